import FICTestSupport
import Foundation
import Glibc
import ImageCodec
import Testing
@testable import TiledImage

/// The disk budget of a folder of pyramids, each one pyramidal TIFF.
@Suite struct StoreTests {
    /// The store's record of the pyramid `name`, whose modification time is its last use.
    static func record(_ store: String, _ name: String) -> String { store + "/.fic-store/" + name + ".tif" }

    @Test func evictsLeastRecentlyUsedAndNeverAnOpenOne() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let photo = Fixtures.path("photos/coffee.jpg")
        // Measure one pyramid, then allow room for two and a half.
        let probe = try TilePyramidStore(path: folder + "/probe", byteLimit: .max)
        let one = try probe.build("one", contentsOf: photo)
        let size = try probe.diskBytes()
        let written = try FileManager.default.attributesOfItem(atPath: folder + "/probe/one.tif")[.size] as? Int
        #expect(size > 0 && size >= written ?? .max, "the budget counts the disk the file takes (\(size) for \(written ?? 0) bytes)")
        #expect(one.path == folder + "/probe/one.tif" && one.sourceFormat == .jpeg)

        let store = try TilePyramidStore(path: folder + "/store", byteLimit: size * 5 / 2)
        // The store reads a pyramid's last use from its record's modification time: the test
        // sets it (long ago, a before b) instead of waiting between uses.
        let record = { (name: String) in Self.record(folder + "/store", name) }
        func setLastUse(_ name: String, _ seconds: TimeInterval) throws {
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: seconds)], ofItemAtPath: record(name))
        }
        func lastUse(_ name: String) throws -> Date {
            try #require(try FileManager.default.attributesOfItem(atPath: record(name))[.modificationDate] as? Date)
        }
        do { _ = try store.build("a", contentsOf: photo) }
        do { _ = try store.build("b", contentsOf: photo) }
        try setLastUse("a", 1_000_000_000)
        try setLastUse("b", 1_000_000_100)
        #expect(try store.open("a") != nil)
        #expect(try lastUse("a") > lastUse("b"), "opening counts as use: a is now more recently used than b")
        _ = try store.open("b", markingUse: false)
        #expect(try lastUse("b") == Date(timeIntervalSince1970: 1_000_000_100), "a reader that writes nothing leaves the time")
        var held: TilePyramid? = try store.open("b")  // b is open while c arrives,
        try setLastUse("b", 1_000_000_100)  // and the least recently used
        let c = try store.build("c", contentsOf: photo)
        // Three do not fit: the least recently used that is not open goes, which is a (b, used
        // less recently, is open).
        #expect(try store.open("a") == nil)
        #expect(!FileManager.default.fileExists(atPath: folder + "/store/a.tif") && !FileManager.default.fileExists(atPath: record("a")))
        #expect(held != nil)
        #expect(try store.diskBytes() <= size * 5 / 2)
        #expect(try store.names() == ["b", "c"])
        held = nil
        _ = c
        #expect(try store.open("b") != nil)
        #expect(try store.open("c") != nil)
        #expect(throws: ImageCacheError.self) { try store.open("../x") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/store").sorted() == [".fic-store", "b.tif", "c.tif"])
    }

    @Test func everythingOpenMeansNothingIsEvicted() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let store = try TilePyramidStore(path: folder, byteLimit: 1)
        let a = try store.build("a", contentsOf: Fixtures.path("photos/coffee.jpg"))
        let b = try store.build("b", contentsOf: Fixtures.path("photos/chelsea.jpg"))
        #expect(try store.open("a") != nil)
        #expect(try store.open("b") != nil)
        _ = (a, b)
        #expect(try store.trim().isEmpty)
    }

    /// The store builds JPEG-tiled TIFFs of opaque images unless asked otherwise, and other tools
    /// read them: vips finds every level.
    @Test func buildsPyramidalTIFFsOtherToolsRead() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let store = try TilePyramidStore(path: folder, byteLimit: .max)
        let jpeg = try store.build("jpeg", contentsOf: Fixtures.path("photos/hubble.jpg"))
        let raw = try store.build("raw", contentsOf: Fixtures.path("photos/hubble.jpg"), compression: PyramidTIFFCompression.none)
        #expect(try storedJPEG(jpeg) && !(try storedJPEG(raw)), "JPEG tiles by default, none when asked")
        #expect(try PyramidTIFFFixtures.vipsPageCount(folder + "/jpeg.tif", folder: folder) == jpeg.geometry.levels.count)
        let tile = try raw.tile(level: 0, column: 0, row: 0), again = try store.open("raw")?.tile(level: 0, column: 0, row: 0)
        #expect(tile == again)

        func storedJPEG(_ pyramid: TilePyramid) throws -> Bool {
            try pyramid.storedJPEGTile(level: 0, column: 0, row: 0) != nil
        }
    }

    /// Files the store did not build are never replaced, counted or evicted: a TIFF put in its
    /// folder under the name asked for, and one of its own replaced by another program (a new
    /// file renamed over it, or its bytes rewritten in place).
    @Test func neverReplacesNorEvictsWhatItDidNotBuild() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let store = try TilePyramidStore(path: folder + "/store", byteLimit: .max)
        let strict = try TilePyramidStore(path: folder + "/store", byteLimit: 0)
        let photo = Fixtures.path("photos/coffee.jpg")
        try PyramidTIFFOpenTests.vipsPyramid(["--compression", "jpeg"], at: folder + "/store/scan.tif", folder: folder)
        try PyramidTIFFOpenTests.vipsPyramid(["--compression", "jpeg"], at: folder + "/store/other.tiff", folder: folder)
        let scanBytes = try Data(contentsOf: URL(fileURLWithPath: folder + "/store/scan.tif"))
        for name in ["scan", "other"] {
            do {
                _ = try store.build(name, contentsOf: photo)
                Issue.record("built over \(name), which the store did not make")
            } catch let error as ImageCacheError {
                #expect(error.code == .invalidArgument && error.message.contains("did not build"), "\(error)")
            }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/store/scan.tif")) == scanBytes)

        // Its own, replaced: renamed over, and rewritten in place (same inode, another size).
        do { _ = try store.build("renamed", contentsOf: photo) }
        do { _ = try store.build("rewritten", contentsOf: photo) }
        try scanBytes.write(to: URL(fileURLWithPath: folder + "/store/renamed.tif"), options: .atomic)
        let handle = try #require(FileHandle(forWritingAtPath: folder + "/store/rewritten.tif"))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: scanBytes)
        try handle.close()
        #expect(try strict.diskBytes() == 0, "nothing in the folder is the store's own now")
        #expect(try strict.trim().isEmpty)
        #expect(try store.names() == ["other", "renamed", "rewritten", "scan"])
        for name in ["renamed", "rewritten", "scan"] {
            #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/store/\(name).tif")) == scanBytes, "\(name) kept")
        }
        #expect(!FileManager.default.fileExists(atPath: Self.record(folder + "/store", "renamed")), "the stale record is dropped")
    }

    /// A pyramid folder of an earlier version is not read: opening it says how to build it again.
    @Test func anEarlierFolderSaysHowToRebuild() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        try FileManager.default.createDirectory(atPath: folder + "/store/old", withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: folder + "/store/old/pyramid.info", contents: Data("FICTILES".utf8)))
        let store = try TilePyramidStore(path: folder + "/store", byteLimit: 0)
        #expect(try store.names().isEmpty)
        do {
            _ = try store.open("old")
            Issue.record("an earlier folder opened")
        } catch let error as ImageCacheError {
            #expect(error.code == .damagedPyramid && error.message.contains("old.tif") && error.message.contains("fic tile"), "\(error)")
        }
        #expect(try store.trim().isEmpty && FileManager.default.fileExists(atPath: folder + "/store/old/pyramid.info"))
    }
}

/// Progressive JPEGs under a memory budget: coefficients in a file, pixels unchanged.
@Suite struct ProgressiveTests {
    @Test func progressiveWithCoefficientsInAFile() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let jpeg = try Fixtures.makeJPEG(width: 2100, height: 1500, progressive: true, in: folder)
        let bytes = try Fixtures.bytes(atPath: jpeg)
        let options = TilePyramidOptions(coefficientMemoryBudget: 0, residentCoefficientLimit: 1 << 20)
        let pyramid = try buildPyramid(bytes, chunkSize: 100_000, destination: rawTIFF(folder + "/p.tif"), options: options)
        let placed = try #require(pyramid.statistics?.coefficientFileBytes)
        #expect(placed >= 2100 * 1500 * 3 / 2, "the coefficients went to the file (\(placed) bytes)")
        try expectPyramid(pyramid, matches: Bitmap(decoding: bytes))
        // The unlinked coefficient file is gone.
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder).sorted().allSatisfy { $0 == "p.tif" || $0.hasSuffix(".jpg") })
    }

    /// The pager thread keeps about `residentCoefficientLimit` of the coefficient file mapped: far
    /// less than the file, whatever the chunking of the input; the pixels are the same with it, and
    /// with the decoding thread paging by itself. The final output pass frees the file behind it.
    @Test(arguments: [4096, 1 << 20])
    func pagerBoundsTheMappedWindow(chunkSize: Int) throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let jpeg = try Fixtures.makeJPEG(width: 2100, height: 1500, progressive: true, in: folder)
        let bytes = try Fixtures.bytes(atPath: jpeg)
        let reference = try Bitmap(decoding: bytes)
        let limit = 1 << 20
        let paged = try buildPyramid(
            bytes, chunkSize: chunkSize, destination: .temporary(folder: folder),
            options: TilePyramidOptions(coefficientMemoryBudget: 0, residentCoefficientLimit: limit))
        let statistics = try #require(paged.statistics)
        #expect(statistics.coefficientFileBytes > 8 * limit)
        #expect(statistics.coefficientPagerPeakBytes > 0, "a pager thread served the file")
        #expect(
            statistics.coefficientPagerPeakBytes <= 2 * limit,
            "at most about the limit mapped at once (\(statistics.coefficientPagerPeakBytes) bytes)")
        #expect(
            statistics.coefficientBytesFreedEarly >= statistics.coefficientFileBytes / 2,
            "the final output pass freed most of the file behind it (\(statistics.coefficientBytesFreedEarly) of \(statistics.coefficientFileBytes) bytes)"
        )
        try expectPyramid(paged, matches: reference)

        var alone = TilePyramidOptions(coefficientMemoryBudget: 0, residentCoefficientLimit: limit)
        alone.pagesCoefficientsInBackground = false
        let unpaged = try buildPyramid(bytes, chunkSize: chunkSize, destination: .temporary(folder: folder), options: alone)
        #expect(unpaged.statistics?.coefficientPagerPeakBytes == 0)
        #expect(unpaged.statistics?.coefficientBytesFreedEarly == 0)
        #expect(unpaged.statistics?.coefficientFileBytes == statistics.coefficientFileBytes)
        try expectPyramid(unpaged, matches: reference)
    }

    @Test func smallProgressiveStaysInMemory() throws {
        let bytes = try Fixtures.bytes("jpeg/coffee-progressive.jpg")
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let pyramid = try buildPyramid(bytes, chunkSize: 1, destination: .temporary(folder: folder))
        #expect(pyramid.statistics?.coefficientFileBytes == 0)
        try expectPyramid(pyramid, matches: Bitmap(decoding: bytes))
    }

    @Test func truncatedProgressiveFails() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let jpeg = try Fixtures.makeJPEG(width: 900, height: 700, progressive: true, in: folder)
        let bytes = try Fixtures.bytes(atPath: jpeg)
        let options = TilePyramidOptions(coefficientMemoryBudget: 0)
        let error = try #require(throws: ImageCacheError.self) {
            _ = try buildPyramid(
                Array(bytes[0..<(bytes.count * 2 / 3)]), chunkSize: 50_000, destination: rawTIFF(folder + "/p.tif"), options: options)
        }
        #expect(error.code == .truncated)
        expectNoPyramid(folder + "/p.tif")
    }
}
