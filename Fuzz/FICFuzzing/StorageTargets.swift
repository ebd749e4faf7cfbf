import FICCore
import FICHarness
import Foundation
import ImageLoader
import ImageTable
import SystemPackage

/// The files the package reads back: table files, the side file processes share, and the
/// entries of the originals cache.
enum StorageTargets {
    static let all: [FuzzTarget] = [table, sharedState, originalsEntry]

    /// The configuration of the fuzzed tables: small slots and chunks, so an input is a few pages.
    static let configuration = TableConfiguration(
        pixelWidth: 24, pixelHeight: 8, bytesPerPixel: 4, maximumCount: 12, identity: "fuzz", chunkBytes: 4 * 4096)
    /// The entities the seed table holds.
    static let entities = (0..<10).map { "e\($0)" }

    /// A table file: opened (alone: recovered, its side file built from it), every entity looked
    /// up, verified and repaired, then written to.
    ///
    /// When the header says a writer left the table open, the file is a copy written elsewhere
    /// (the fuzzer's file is never the one the header names), so every entry is checked before it
    /// is served: every image served must then hold the pixels drawn for it, and a wrong picture
    /// stops the process as a crash does. A table closed cleanly is trusted as it is, by design
    /// (its pixels are not read at open: SAFETY.md); its images are only read through.
    static let table = FuzzTarget(
        name: "table", summary: "table files: headers, index records, sizes, torn pixels", seeds: { try tableSeeds() }
    ) { bytes in
        let path = Scratch.path("table.fictable")
        unlink(path + "-shared")
        let leftOpen = bytes.count >= TableFuzzing.openStateEnd && bytes[TableFuzzing.openStateRange].contains { $0 != 0 }
        guard (try? Data(bytes).write(to: URL(fileURLWithPath: path))) != nil,
            let table = try? ImageTable(path: path, configuration: configuration)
        else { return }
        if leftOpen { checkServed(table) } else { readServed(table) }
        _ = table.verify(repair: true)
        try? store("new", in: table)
        table.close()
    }

    /// The side file shared by the processes that have a table open, damaged while one table
    /// object holds it: another object then joins it (the path a process takes when others have
    /// the table open), looks every entity up and stores; the first stores again.
    static let sharedState = FuzzTarget(
        name: "shared-state", summary: "the side file several processes share, joined while another holds it",
        seeds: { [("shared.fictable-shared", try seedSideFile())] }
    ) { bytes in
        let path = Scratch.path("shared.fictable")
        guard (try? restoreSeedTable(at: path)) != nil,
            let holder = try? ImageTable(path: path, configuration: configuration)
        else { return }
        defer { holder.close() }
        // The input over the live side file, as far as the file goes (its length is the holder's).
        guard let side = try? FileDescriptor.open(atPath: path + "-shared", .readWrite, options: [.closeOnExec], permissions: nil) else {
            return
        }
        _ = try? side.writeAll(bytes, at: 0, path: nil)
        side.closeQuietly()
        guard let joiner = try? ImageTable(path: path, configuration: configuration) else { return }
        checkServed(joiner)
        try? store("joined", in: joiner)
        checkServed(holder)
        try? store("held", in: holder)
        joiner.close()
    }

    /// An entry file of the originals cache: its header parsed against the URL it must name,
    /// then its body's checksum computed as a read checks it.
    static let originalsEntry = FuzzTarget(
        name: "originals-entry", summary: "the header and body checksum of an entry of the originals cache",
        seeds: { [("entry.orig", seedEntry())] }
    ) { bytes in
        guard case .success(let header) = EntryHeader.decode(bytes, fileLength: bytes.count, url: seedURL, maximumBodyBytes: 1 << 30) else {
            return
        }
        var checksum = BodyChecksum()
        checksum.update(UnsafeRawBufferPointer(rebasing: bytes[header.length...]))
        _ = checksum.finalize() == header.bodyChecksum
    }

    /// Looks every seed entity up in `table`; an image that does not hold the pixels drawn for
    /// it stops the process.
    static func checkServed(_ table: ImageTable) {
        for entity in entities {
            guard let image = table.image(for: TableKey(entity)) else { continue }
            if !TestPattern.matches(image) {
                FileHandle.standardError.write(Data("fic-fuzz: the table served wrong pixels for \(entity)\n".utf8))
                abort()
            }
        }
    }

    /// Looks every seed entity up in `table` and reads each image served, whole.
    static func readServed(_ table: ImageTable) {
        var sum: UInt8 = 0
        for entity in entities {
            guard let image = table.image(for: TableKey(entity)) else { continue }
            image.withUnsafeBytes { for byte in $0 { sum &+= byte } }
        }
        blackHole(sum)
    }

    /// Stores `entity` (source "v1") in `table`, drawn with the pattern of its keys.
    static func store(_ entity: String, in table: ImageTable) throws {
        let keys = (TableKey(entity), TableKey("v1"))
        _ = try table.insert(entity: keys.0, source: keys.1) {
            TestPattern.fill($0.baseAddress!, count: $0.count, seed: TestPattern.seed(entity: keys.0, source: keys.1))
        }
    }

    /// The seed table closed cleanly, and the same as a writer that stopped would leave it.
    static func tableSeeds() throws -> [(String, [UInt8])] {
        let closed = try seedTable()
        var leftOpen = closed
        leftOpen[TableFuzzing.openStateRange.lowerBound] = 1
        return [("table.fictable", closed), ("left-open.fictable", leftOpen)]
    }

    /// The bytes of a table holding the seed entities, closed cleanly.
    static func seedTable() throws -> [UInt8] {
        let path = Scratch.path("seed.fictable")
        unlink(path)
        unlink(path + "-shared")
        let table = try ImageTable(path: path, configuration: configuration)
        for entity in entities { try store(entity, in: table) }
        table.close()
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// The side file of the seed table while it is open.
    static func seedSideFile() throws -> [UInt8] {
        let path = Scratch.path("side.fictable")
        try restoreSeedTable(at: path)
        let table = try ImageTable(path: path, configuration: configuration)
        defer { table.close() }
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path + "-shared")))
    }

    /// The seed table, made once, at `path`, with no side file.
    static func restoreSeedTable(at path: String) throws {
        unlink(path + "-shared")
        try Data(seedTableBytes.get()).write(to: URL(fileURLWithPath: path))
    }

    private static let seedTableBytes = Result { try seedTable() }

    /// The URL the fuzzed entries must name.
    static let seedURL = "https://example.com/photos/entry.jpg"

    /// A valid entry of 3,000 body bytes.
    static func seedEntry() -> [UInt8] {
        let body = (0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var checksum = BodyChecksum()
        body.withUnsafeBytes { checksum.update($0) }
        let header = EntryHeader(
            url: seedURL, bodyLength: body.count, bodyChecksum: checksum.finalize(), storedAt: Date(timeIntervalSince1970: 1_700_000_000),
            maximumAge: 3600, etag: "\"abc\"", lastModified: nil)
        return header.encoded() + body
    }
}

/// A folder of this process's own for the files the targets write, made once.
enum Scratch {
    static let folder: String = {
        let path = NSTemporaryDirectory() + "/fic-fuzz-\(getpid())"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    /// The path of `name` in the folder.
    static func path(_ name: String) -> String { folder + "/" + name }
}

/// Where a table file's header keeps its open state (bytes 88..<92: nonzero while a writer has
/// it open, and after one stopped without closing).
enum TableFuzzing {
    static let openStateRange = 88..<92
    static var openStateEnd: Int { openStateRange.upperBound }
}

/// Keeps `value` from being optimised away.
@inline(never) func blackHole<T>(_ value: T) {}
