import FICCore
import FICTestSupport
import Foundation
import Testing
@testable import ImageLoader

/// Stores `bytes` for `url` in `cache` as a download would.
@discardableResult
func store(
    _ bytes: [UInt8], for url: URL, in cache: OriginalsCache, maximumAge: Int64? = nil, etag: String? = nil, storedAt: Date = Date()
) throws -> Bool {
    guard let writer = try cache.makeWriter(for: url, storedAt: storedAt, maximumAge: maximumAge, etag: etag, lastModified: nil) else {
        return false
    }
    try writer.write(bytes)
    return try cache.commit(writer)
}

/// Sum of the sizes of the entry files really in `folder`.
func entryBytesOnDisk(_ folder: String) -> Int {
    entryFiles(folder).reduce(0) { total, name in
        total + ((try? FileManager.default.attributesOfItem(atPath: folder + "/" + name)[.size] as? Int) ?? 0)
    }
}

/// Whether `a` holds exactly `b` (a Boolean, so that a failure does not print both arrays).
func same(_ a: [UInt8]?, _ b: [UInt8]) -> Bool { a == b }

func pattern(_ n: Int, seed: Int = 0) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ seed) } }

@Suite struct OriginalsCacheTests {
    @Test func anEntryIsReadBackUnderTheSHA256OfItsURLWithPrivateModes() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let folder = dir.child("originals")
        let cache = try OriginalsCache(directory: folder, maximumBytes: 1 << 20)
        let url = URL(string: "https://example.com/photos/1.jpg?size=large")!
        #expect(try cache.data(for: url) == nil)
        try store(pattern(5000), for: url, in: cache)
        #expect(same(try cache.data(for: url), pattern(5000)))
        // The name is the SHA-256 of the URL, as sha256sum computes it.
        let request = folder + ".url", digest = folder + ".sha256"
        defer { unlink(request); unlink(digest) }
        try ExternalTools.write(Array(url.absoluteString.utf8), to: request)
        try ExternalTools.run("/usr/bin/sha256sum", [], stdin: request, stdout: digest)
        let expected = String(decoding: try ExternalTools.bytes(atPath: digest).prefix(64), as: UTF8.self)
        #expect(entryFiles(folder) == [expected])
        let fileMode = try FileManager.default.attributesOfItem(atPath: folder + "/" + expected)[.posixPermissions] as? Int
        let folderMode = try FileManager.default.attributesOfItem(atPath: folder)[.posixPermissions] as? Int
        // Private: nothing for group or others (exactly 0600/0700 unless a stricter umask is set;
        // other suites change the process's umask while they run).
        #expect(fileMode.map { $0 & 0o077 == 0 && $0 & 0o600 != 0 } == true)
        #expect(folderMode.map { $0 & 0o077 == 0 && $0 & 0o500 != 0 } == true)
        let s = cache.statistics
        #expect(s.hits == 1 && s.misses == 1 && s.stores == 1 && s.entries == 1)
        #expect(s.diskUsage == entryBytesOnDisk(folder))
        #expect(cache.diskUsage == s.diskUsage)
    }

    @Test func theLimitIsNeverExceededAndTheLeastRecentlyUsedGoFirst() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let folder = dir.child("originals")
        let limit = 20_000
        let cache = try OriginalsCache(directory: folder, maximumBytes: limit)
        let urls = (0..<30).map { URL(string: "https://example.com/\($0).jpg")! }
        for (i, url) in urls.enumerated() {
            try store(pattern(1800 + i), for: url, in: cache)
            #expect(entryBytesOnDisk(folder) <= limit, "the limit holds after every store")
            #expect(cache.diskUsage == entryBytesOnDisk(folder))
            // Keep the first one in use: it is never the least recently used.
            if i > 0 { #expect(same(try cache.data(for: urls[0]), pattern(1800))) }
        }
        #expect(try cache.data(for: urls[0]) != nil, "recently used entries stay")
        #expect(try cache.data(for: urls[1]) == nil, "the least recently used went first")
        #expect(same(try cache.data(for: urls[29]), pattern(1829)))
        let s = cache.statistics
        #expect(s.evictions > 0 && s.entries == entryFiles(folder).count)
        // An entry larger than the whole cache is not stored, and evicts nothing.
        let before = entryFiles(folder)
        #expect(try store(pattern(limit + 1), for: URL(string: "https://example.com/big.jpg")!, in: cache) == false)
        #expect(entryFiles(folder) == before)
    }

    @Test func damagedEntriesAreMissesAndAreRemoved() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let folder = dir.child("originals")
        let cache = try OriginalsCache(directory: folder, maximumBytes: 1 << 20)
        let urls = (0..<3).map { URL(string: "https://example.com/d\($0).jpg")! }
        for url in urls { try store(pattern(4000), for: url, in: cache) }
        func path(_ url: URL) -> String { folder + "/" + OriginalsCache.entryName(for: url) }
        // A flipped byte in the body.
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path(urls[0]))))
        bytes[bytes.count - 10] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: path(urls[0])))
        // A truncated file (a torn write).
        let fh = try FileHandle(forUpdating: URL(fileURLWithPath: path(urls[1])))
        try fh.truncate(atOffset: 3000)
        try fh.close()
        // Junk under an entry's name.
        try Data(pattern(600)).write(to: URL(fileURLWithPath: path(urls[2])))
        for url in urls { #expect(try cache.data(for: url) == nil, "\(url) is refused") }
        #expect(entryFiles(folder).isEmpty, "damaged files are removed")
        #expect(cache.statistics.invalidEntries == 3)
        #expect(cache.diskUsage == 0)
    }

    @Test func anEntryOfAnotherURLIsRefused() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let folder = dir.child("originals")
        let cache = try OriginalsCache(directory: folder, maximumBytes: 1 << 20)
        let a = URL(string: "https://example.com/a.jpg")!, b = URL(string: "https://example.com/b.jpg")!
        try store(pattern(100), for: a, in: cache)
        try FileManager.default.copyItem(
            atPath: folder + "/" + OriginalsCache.entryName(for: a), toPath: folder + "/" + OriginalsCache.entryName(for: b))
        #expect(try cache.data(for: b) == nil)
        #expect(same(try cache.data(for: a), pattern(100)))
    }

    /// A time whose millisecond, read back as a file's header gives it (whole milliseconds since
    /// 1970 as `Date`'s floating-point seconds), lies after the time itself: found by trying times
    /// from a fixed one, with the same arithmetic written out here.
    static func timeThatComesBackLater() -> Date? {
        for k in 0..<2_000_000 {
            let time = Date(timeIntervalSince1970: 1_796_000_000 + Double(k) * 0.000_123_457)
            let millisecond: Double = (time.timeIntervalSince1970 * 1000).rounded(.down)
            if Date(timeIntervalSince1970: millisecond / 1000) > time { return time }
        }
        return nil
    }

    /// An entry is fresh at the very time it was stored: a lookup by a clock held still (as the
    /// loader's tests hold theirs) once found such an entry stale, and fetched it again.
    @Test func anEntryIsFreshAtTheTimeItWasStoredAndForItsMaximumAge() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let cache = try OriginalsCache(directory: dir.child("originals"), maximumBytes: 1 << 20)
        let url = URL(string: "https://example.com/a.jpg")!
        let time = try #require(Self.timeThatComesBackLater())
        try store(pattern(100), for: url, in: cache, maximumAge: 1, storedAt: time)
        let header = try #require(cache.lookup(url)).header
        try #require(header.storedAt > time, "the stored time came back after the time it was stored at: the case under test")
        #expect(header.isFresh(at: time))
        #expect(header.isFresh(at: time + 0.998))
        #expect(!header.isFresh(at: time + 1.001), "older than its maximum age of 1 s")
        #expect(!header.isFresh(at: time - 0.002), "a clock that went back before the store does not make it fresh")
    }

    @Test func aWriteThatIsNeverCommittedLeavesNothing() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let folder = dir.child("originals")
        let cache = try OriginalsCache(directory: folder, maximumBytes: 1 << 20)
        let url = URL(string: "https://example.com/a.jpg")!
        do {
            let writer = try #require(try cache.makeWriter(for: url, storedAt: Date(), maximumAge: nil, etag: nil, lastModified: nil))
            try writer.write(pattern(50_000))
            #expect(filesIn(folder) == ["journal"], "a write in progress has no name")
        }
        #expect(filesIn(folder) == ["journal"])
        #expect(try cache.data(for: url) == nil)
    }

    @Test func twoCachesOnOneFolderShareEntriesAndTheLimit() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let folder = dir.child("originals")
        let limit = 60_000
        // Each instance has its own open folder, so they lock each other out as two processes do.
        let a = try OriginalsCache(directory: folder, maximumBytes: limit)
        let b = try OriginalsCache(directory: folder, maximumBytes: limit)
        try store(pattern(1000, seed: 1), for: URL(string: "https://example.com/shared.jpg")!, in: a)
        #expect(same(try b.data(for: URL(string: "https://example.com/shared.jpg")!), pattern(1000, seed: 1)))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (n, cache) in [a, b].enumerated() {
                group.addTask {
                    for i in 0..<60 {
                        let url = URL(string: "https://example.com/\(n)/\(i).jpg")!
                        try store(pattern(2500 + i, seed: n), for: url, in: cache)
                        _ = try cache.data(for: URL(string: "https://example.com/\(1 - n)/\(i / 2).jpg")!)
                    }
                }
            }
            try await group.waitForAll()
        }
        let onDisk = entryBytesOnDisk(folder)
        #expect(onDisk <= limit)
        #expect(a.diskUsage == onDisk && b.diskUsage == onDisk, "both see the same entries")
        #expect(a.statistics.entries == entryFiles(folder).count)
        let newest = URL(string: "https://example.com/last.jpg")!
        try store(pattern(3000, seed: 9), for: newest, in: a)
        #expect(same(try b.data(for: newest), pattern(3000, seed: 9)), "an entry one made is read by the other")
        #expect(entryBytesOnDisk(folder) <= limit && b.diskUsage == entryBytesOnDisk(folder))
    }

    @Test func aDamagedJournalIsRebuiltFromTheFolder() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let folder = dir.child("originals")
        let urls = (0..<5).map { URL(string: "https://example.com/\($0).jpg")! }
        do {
            let cache = try OriginalsCache(directory: folder, maximumBytes: 1 << 20)
            for url in urls { try store(pattern(3000), for: url, in: cache) }
        }
        let usage = entryBytesOnDisk(folder)
        try Data(pattern(10_000)).write(to: URL(fileURLWithPath: folder + "/journal"))
        let cache = try OriginalsCache(directory: folder, maximumBytes: 1 << 20)
        #expect(cache.diskUsage == usage)
        for url in urls { #expect(same(try cache.data(for: url), pattern(3000))) }
        // A torn last line (a crash while appending) is ignored: here a size that is too small.
        let journal = try FileHandle(forWritingTo: URL(fileURLWithPath: folder + "/journal"))
        try journal.seekToEnd()
        try journal.write(contentsOf: Data("S \(OriginalsCache.entryName(for: urls[0])) 12".utf8))
        try journal.close()
        let again = try OriginalsCache(directory: folder, maximumBytes: 1 << 20)
        #expect(again.diskUsage == usage)
    }

    @Test func aSmallerLimitTrimsTheCacheWhenItOpens() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let folder = dir.child("originals")
        do {
            let cache = try OriginalsCache(directory: folder, maximumBytes: 1 << 20)
            for i in 0..<10 { try store(pattern(10_000), for: URL(string: "https://example.com/\(i).jpg")!, in: cache) }
        }
        let cache = try OriginalsCache(directory: folder, maximumBytes: 35_000)
        #expect(entryBytesOnDisk(folder) <= 35_000)
        #expect(entryFiles(folder).count == 3)
        #expect(try cache.data(for: URL(string: "https://example.com/9.jpg")!) != nil, "the newest stay")
    }

    @Test func theJournalStaysSmallHoweverManyReads() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let folder = dir.child("originals")
        let cache = try OriginalsCache(directory: folder, maximumBytes: 1 << 20)
        let url = URL(string: "https://example.com/hot.jpg")!
        try store(pattern(100), for: url, in: cache)
        for _ in 0..<5000 { _ = cache.lookup(url) }
        let size = try FileManager.default.attributesOfItem(atPath: folder + "/journal")[.size] as? Int ?? .max
        #expect(size < 1100 * 100, "compacted: about one line per entry plus at most ~1000 lines")
        #expect(cache.statistics.hits == 5000)
    }

    @Test func aFolderThatIsASymbolicLinkIsRefused() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        try FileManager.default.createDirectory(atPath: dir.child("real"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dir.child("link"), withDestinationPath: dir.child("real"))
        let e = #expect(throws: ImageCacheError.self) { try OriginalsCache(directory: dir.child("link"), maximumBytes: 1000) }
        #expect(e?.code == .unsafePath)
    }

    @Test func aFolderOfSomeoneElsesFilesIsRefusedAndLeftAlone() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let photos = dir.child("Pictures")
        try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: photos + "/IMG_0001.jpg"))
        let e = #expect(throws: ImageCacheError.self) { try OriginalsCache(directory: photos, maximumBytes: 1) }
        #expect(e?.code == .unsafePath)
        #expect(e?.message.contains("IMG_0001.jpg") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: photos) == ["IMG_0001.jpg"])
        // The cache's own folder reopens.
        let own = dir.child("originals")
        _ = try OriginalsCache(directory: own, maximumBytes: 1000)
        _ = try OriginalsCache(directory: own, maximumBytes: 1000)
    }
}
