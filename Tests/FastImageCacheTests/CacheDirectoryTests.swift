import Foundation
import Testing
@testable import FastImageCache

/// The namespaces of a cache directory: listing, last use, removal and trimming to a size.
@Suite struct CacheDirectoryTests {
    /// Makes namespace `name` in `dir` with one stored image and closes it; its folder's last use
    /// is then set to `daysAgo` days ago.
    func makeNamespace(_ name: String, in dir: String, daysAgo: Double) throws {
        let cache = try ImageCache(directory: dir, namespace: name, formats: [try thumbFormat(), try mediumFormat()])
        try cache.storeImages(from: .encoded([UInt8](try Data(contentsOf: coffee))), for: Photo(entityID: "c"))
        cache.close()
        try setLastUse(of: dir + "/" + name, daysAgo: daysAgo)
    }

    func setLastUse(of folder: String, daysAgo: Double) throws {
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -daysAgo * 86_400)], ofItemAtPath: folder)
    }

    /// Bytes on disk of the regular files named `*.fictable` in `folder`.
    func tableBytes(_ folder: String) throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".fictable") }.reduce(0) { total, name in
            var st = stat()
            #expect(lstat(folder + "/" + name, &st) == 0)
            return total + Int(st.st_blocks) * 512
        }
    }

    func exists(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0
    }

    @Test func theUserCacheFolderIsXDGCacheHomeWhenAbsoluteElseTheHomeFoldersDotCache() throws {
        #expect(
            try CacheDirectory.user(named: "gallery", environment: ["XDG_CACHE_HOME": "/x/cache", "HOME": "/home/me"]).path
                == "/x/cache/gallery")
        // A relative XDG_CACHE_HOME is ignored, as the XDG base directory specification says.
        #expect(
            try CacheDirectory.user(named: "gallery", environment: ["XDG_CACHE_HOME": "cache", "HOME": "/home/me"]).path
                == "/home/me/.cache/gallery")
        #expect(try CacheDirectory.user(named: "gallery", environment: ["HOME": "/home/me"]).path == "/home/me/.cache/gallery")
        for name in ["", ".", "..", "a/b", "/etc"] {
            let error = #expect(throws: ImageCacheError.self) { try CacheDirectory.user(named: name, environment: ["HOME": "/home/me"]) }
            #expect(error?.code == .invalidArgument)
        }
    }

    @Test func namespacesAreListedLeastRecentlyUsedFirstWithTheirTablesSizeOnDisk() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        try makeNamespace("old", in: dir.path, daysAgo: 30)
        try makeNamespace("new", in: dir.path, daysAgo: 1)
        try makeNamespace("middle", in: dir.path, daysAgo: 10)
        // Not namespaces: a folder without tables, a link to a namespace, a file, a bad name.
        try FileManager.default.createDirectory(atPath: dir.path + "/photos.originals", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dir.path + "/linked", withDestinationPath: dir.path + "/new")
        try Data("x".utf8).write(to: URL(fileURLWithPath: dir.path + "/new.formats.json"))
        try FileManager.default.createDirectory(atPath: dir.path + "/with space", withIntermediateDirectories: true)

        let listed = try CacheDirectory(path: dir.path).namespaces()
        #expect(listed.map(\.name) == ["old", "middle", "new"])
        for namespace in listed {
            #expect(namespace.tableFiles == 2)
            #expect(namespace.diskBytes == (try tableBytes(dir.path + "/" + namespace.name)))
            #expect(namespace.diskBytes > 0)
        }
        #expect(try CacheDirectory(path: dir.path + "/missing").namespaces().isEmpty)
    }

    @Test func openingANamespaceForWritingRecordsItsLastUseAndReadingDoesNot() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        try makeNamespace("ns", in: dir.path, daysAgo: 100)
        let before = try #require(try CacheDirectory(path: dir.path).namespaces().first).lastUse
        #expect(before < Date(timeIntervalSinceNow: -99 * 86_400))

        let reader = try ImageCache(
            directory: dir.path, namespace: "ns", formats: [try thumbFormat(), try mediumFormat()],
            options: TableOpenOptions(readOnly: true))
        reader.close()
        #expect(try CacheDirectory(path: dir.path).namespaces().first?.lastUse == before)

        let writer = try ImageCache(directory: dir.path, namespace: "ns", formats: [try thumbFormat(), try mediumFormat()])
        writer.close()
        let after = try #require(try CacheDirectory(path: dir.path).namespaces().first).lastUse
        #expect(after > Date(timeIntervalSinceNow: -86_400), "opened just now: \(after)")
    }

    @Test func trimmingRemovesTheLeastRecentlyUsedFirstNeverOneInUseNorOneKept() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        for (name, days) in [("a", 40.0), ("b", 30), ("c", 20), ("d", 10), ("e", 5)] {
            try makeNamespace(name, in: dir.path, daysAgo: days)
        }
        let size = try #require(try CacheDirectory(path: dir.path).namespaces().first).diskBytes
        // "b" is open in a cache (as in another process: the lock is on the folder's open file).
        let open = try ImageCache(directory: dir.path, namespace: "b", formats: [try thumbFormat(), try mediumFormat()])
        defer { open.close() }
        try setLastUse(of: dir.path + "/b", daysAgo: 30)  // opening it made it the most recent

        var told: [String] = []
        let report = try CacheDirectory(path: dir.path).trim(toBytes: 2 * size, keeping: ["a"]) { told.append($0) }

        #expect(report.removed.map(\.name) == ["c", "d", "e"], "a (kept) and b (in use) stay, so three must go to reach 2 × size")
        #expect(report.skippedInUse == ["b"])
        #expect(report.bytesBefore == 5 * size)
        #expect(report.bytesAfter == 2 * size)
        #expect(told == ["c", "d", "e"])
        for name in ["c", "d", "e"] { #expect(!exists(dir.path + "/" + name), "\(name) removed") }
        for name in ["a", "b"] { #expect(try tableBytes(dir.path + "/" + name) == size, "\(name) untouched") }
        // The cache that had "b" open still works.
        #expect(open.cachedImage(for: Photo(entityID: "c"), format: "thumb") != nil)
    }

    @Test func trimmingStopsAsSoonAsTheDirectoryFits() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        for (name, days) in [("a", 3.0), ("b", 2), ("c", 1)] { try makeNamespace(name, in: dir.path, daysAgo: days) }
        let size = try #require(try CacheDirectory(path: dir.path).namespaces().first).diskBytes
        let report = try CacheDirectory(path: dir.path).trim(toBytes: 2 * size)
        #expect(report.removed.map(\.name) == ["a"])
        #expect(try CacheDirectory(path: dir.path).namespaces().map(\.name) == ["b", "c"])
        let none = try CacheDirectory(path: dir.path).trim(toBytes: 2 * size)
        #expect(none.removed.isEmpty && none.bytesAfter == 2 * size)
    }

    @Test func removalTakesOnlyProvableTablesNeverLinksFoldersOrOtherFiles() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        try makeNamespace("other", in: dir.path, daysAgo: 1)
        try makeNamespace("n", in: dir.path, daysAgo: 2)
        let n = dir.path + "/n"
        let otherBytes = try tableBytes(dir.path + "/other")
        try Data("my notes".utf8).write(to: URL(fileURLWithPath: n + "/notes.txt"))
        try FileManager.default.createDirectory(atPath: n + "/sub", withIntermediateDirectories: true)
        try Data("kept".utf8).write(to: URL(fileURLWithPath: n + "/sub/thumb.fictable"))
        try Data("not a table, just named like one".utf8).write(to: URL(fileURLWithPath: n + "/fake.fictable"))
        try FileManager.default.createSymbolicLink(atPath: n + "/linked.fictable", withDestinationPath: dir.path + "/other/thumb.fictable")
        // A link at the directory's level, named like a namespace.
        try FileManager.default.createSymbolicLink(atPath: dir.path + "/alias", withDestinationPath: dir.path + "/other")

        var told: [String] = []
        let removal = try CacheDirectory(path: dir.path).removeNamespace("n") { told.append($0) }
        #expect(removal.removedTables == 2)
        #expect(removal.freedBytes > 0)
        #expect(!removal.folderRemoved, "other files remain in it")
        #expect(told == ["n"], "no table is left, so the caller may remove its own files")
        #expect(!exists(n + "/thumb.fictable") && !exists(n + "/medium.fictable"))
        for kept in ["notes.txt", "sub/thumb.fictable", "fake.fictable", "linked.fictable"] {
            #expect(exists(n + "/" + kept), "\(kept) stays")
        }
        #expect(try tableBytes(dir.path + "/other") == otherBytes, "the link's target is untouched")

        let error = #expect(throws: ImageCacheError.self) { try CacheDirectory(path: dir.path).removeNamespace("alias") }
        #expect(error?.code == .unsafePath)
        #expect(try CacheDirectory(path: dir.path).namespaces().map(\.name) == ["other"], "n has no table left; the link is no namespace")
        #expect(throws: ImageCacheError.self) { try CacheDirectory(path: dir.path).removeNamespace("..") }

        // With nothing else in it, the folder goes too.
        try makeNamespace("empty", in: dir.path, daysAgo: 3)
        #expect(try CacheDirectory(path: dir.path).removeNamespace("empty").folderRemoved)
        #expect(!exists(dir.path + "/empty"))
    }

    @Test func aNamespaceInUseIsNotRemovedAndItsCacheReopensAfterARemoval() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        try makeNamespace("ns", in: dir.path, daysAgo: 1)
        let open = try ImageCache(directory: dir.path, namespace: "ns", formats: [try thumbFormat(), try mediumFormat()])
        let error = #expect(throws: ImageCacheError.self) { try CacheDirectory(path: dir.path).removeNamespace("ns") }
        #expect(error?.code == .inUse)
        #expect(open.cachedImage(for: Photo(entityID: "c"), format: "thumb") != nil)
        open.close()

        #expect(try CacheDirectory(path: dir.path).removeNamespace("ns").folderRemoved)
        let again = try ImageCache(directory: dir.path, namespace: "ns", formats: [try thumbFormat(), try mediumFormat()])
        defer { again.close() }
        #expect(again.cachedImage(for: Photo(entityID: "c"), format: "thumb") == nil)
        try again.storeImages(from: .encoded([UInt8](try Data(contentsOf: coffee))), for: Photo(entityID: "c"))
        #expect(again.cachedImage(for: Photo(entityID: "c"), format: "thumb") != nil)
    }
}
