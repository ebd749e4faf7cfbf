import Foundation
import Glibc
import ImageCodec
import Testing
@testable import TiledImage

/// The disk budget of a folder of pyramids.
@Suite struct StoreTests {
    @Test func evictsLeastRecentlyUsedAndNeverAnOpenOne() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let photo = Fixtures.path("photos/coffee.jpg")
        // Measure one pyramid, then allow room for two and a half.
        let probe = try TilePyramidStore(path: folder + "/probe", byteLimit: .max)
        _ = try probe.build("one", contentsOf: photo)
        let size = try probe.diskBytes()
        #expect(size > 0)

        let store = try TilePyramidStore(path: folder + "/store", byteLimit: size * 5 / 2)
        // The store reads a pyramid's last use from its info file's modification time: the test
        // sets it (long ago, a before b) instead of waiting between uses.
        let info = { (name: String) in folder + "/store/" + name + "/pyramid.info" }
        func setLastUse(_ name: String, _ seconds: TimeInterval) throws {
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: seconds)], ofItemAtPath: info(name))
        }
        func lastUse(_ name: String) throws -> Date {
            try #require(try FileManager.default.attributesOfItem(atPath: info(name))[.modificationDate] as? Date)
        }
        do { _ = try store.build("a", contentsOf: photo) }
        do { _ = try store.build("b", contentsOf: photo) }
        try setLastUse("a", 1_000_000_000)
        try setLastUse("b", 1_000_000_100)
        #expect(try store.open("a") != nil)
        #expect(try lastUse("a") > lastUse("b"), "opening counts as use: a is now more recently used than b")
        var held: TilePyramid? = try store.open("b")  // b is open while c arrives,
        try setLastUse("b", 1_000_000_100)  // and the least recently used
        let c = try store.build("c", contentsOf: photo)
        // Three do not fit: the least recently used that is not open goes, which is a (b, used
        // less recently, is open).
        #expect(try store.open("a") == nil)
        #expect(held != nil)
        #expect(try store.diskBytes() <= size * 5 / 2)
        held = nil
        _ = c
        // Unfinished folders (a build that died) go first.
        try FileManager.default.createDirectory(atPath: folder + "/store/dead", withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: folder + "/store/dead/level-0.tiles", contents: Data(count: 4096)))
        let evicted = try store.trim()
        #expect(evicted.contains("dead"))
        #expect(!FileManager.default.fileExists(atPath: folder + "/store/dead"))
        #expect(try store.open("b") != nil)
        #expect(try store.open("c") != nil)
        #expect(throws: ImageCacheError.self) { try store.open("../x") }
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
        let pyramid = try buildPyramid(bytes, chunkSize: 100_000, destination: .folder(folder + "/p"), options: options)
        let placed = try #require(pyramid.statistics?.coefficientFileBytes)
        #expect(placed >= 2100 * 1500 * 3 / 2, "the coefficients went to the file (\(placed) bytes)")
        try expectPyramid(pyramid, matches: Bitmap(decoding: bytes))
        // The unlinked coefficient file is gone.
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder + "/p").sorted().allSatisfy {
                $0.hasPrefix("level-") || $0 == "pyramid.info"
            })
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
                Array(bytes[0..<(bytes.count * 2 / 3)]), chunkSize: 50_000, destination: .folder(folder + "/p"), options: options)
        }
        #expect(error.code == .truncated)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/p").isEmpty)
    }
}
