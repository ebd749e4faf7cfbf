import Foundation
import Glibc
import ImageCodec
import Testing
@testable import TiledImage

/// Pyramids reopen after a restart; damaged ones are refused; throwaway ones leave no files.
@Suite struct PersistenceTests {
    @Test func reopensWithTheSameTiles() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let jpeg = try Fixtures.makeJPEG(width: 600, height: 400, in: folder)
        var before: [Bitmap] = []
        do {
            let pyramid = try TilePyramidBuilder.build(contentsOf: jpeg, destination: .folder(folder + "/p"))
            before = try pyramid.geometry.levels.map { try Bitmap(level: $0.index, of: pyramid) }
            #expect(pyramid.statistics != nil)
        }
        let reopened = try TilePyramid.open(at: folder + "/p")
        #expect(reopened.statistics == nil)
        #expect(reopened.sourceFormat == .jpeg)
        #expect(try reopened.geometry.levels.map { try Bitmap(level: $0.index, of: reopened) } == before)
        // The mapped view shows the same bytes as pread.
        let read = try reopened.tile(level: 0, column: 2, row: 1)
        let mapped = try reopened.withMappedTile(level: 0, column: 2, row: 1) { Array($0) }
        #expect(read == mapped)
        #expect(throws: ImageCacheError.self) { try reopened.tile(level: 0, column: 3, row: 0) }
        #expect(throws: ImageCacheError.self) { try reopened.tile(level: 9, column: 0, row: 0) }
        try reopened.synchronize()
        #expect(try TilePyramid.open(at: folder + "/p").geometry == reopened.geometry)
    }

    /// Builds a small pyramid in `folder/p` and returns the metadata file's path.
    static func build(in folder: String) throws -> String {
        _ = try TilePyramidBuilder.build(contentsOf: Fixtures.path("photos/coffee.jpg"), destination: .folder(folder + "/p"))
        return folder + "/p/pyramid.info"
    }

    @Test(arguments: [0, 8, 12, 20, 40, 60, -1])
    func damagedMetadataIsRefused(offset: Int) throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let path = try Self.build(in: folder)
        var bytes = try Fixtures.bytes(atPath: path)
        bytes[offset < 0 ? bytes.count - 1 : offset] ^= 0x41
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let error = try #require(throws: ImageCacheError.self) { try TilePyramid.open(at: folder + "/p") }
        #expect(error.code == .damagedPyramid)
    }

    @Test func hostileMetadataIsRefused() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let path = try Self.build(in: folder)
        let good = try PyramidMetadata.decode(Fixtures.bytes(atPath: path), path: path)
        var cases: [[UInt8]] = [[], Array(try Fixtures.bytes(atPath: path).prefix(20)), [UInt8](repeating: 0xFF, count: 5000)]
        var huge = good
        huge.width = 2_000_000_000
        cases.append(huge.encoded())  // checksum right, size absurd
        var inconsistent = good
        inconsistent.levelSizes[1].width += 1
        cases.append(inconsistent.encoded())
        for bytes in cases {
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let error = try #require(throws: ImageCacheError.self) { try TilePyramid.open(at: folder + "/p") }
            #expect(error.code == .damagedPyramid)
        }
    }

    @Test func shortLevelFileIsRefused() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        _ = try Self.build(in: folder)
        #expect(truncate(folder + "/p/level-0.tiles", 1000) == 0)
        let error = try #require(throws: ImageCacheError.self) { try TilePyramid.open(at: folder + "/p") }
        #expect(error.code == .damagedPyramid)
    }

    @Test func unflushedPyramidFromAnEarlierBootIsRefused() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let path = try Self.build(in: folder)
        var metadata = try PyramidMetadata.decode(Fixtures.bytes(atPath: path), path: path)
        metadata.bootID = [UInt8](repeating: 7, count: 16)
        try Data(metadata.encoded()).write(to: URL(fileURLWithPath: path))
        let error = try #require(throws: ImageCacheError.self) { try TilePyramid.open(at: folder + "/p") }
        #expect(error.code == .damagedPyramid)
        metadata.flushed = true
        try Data(metadata.encoded()).write(to: URL(fileURLWithPath: path))
        #expect(try TilePyramid.open(at: folder + "/p").geometry.width > 0)
    }

    @Test func openPyramidIsNotOverwritten() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        _ = try Self.build(in: folder)
        let open = try TilePyramid.open(at: folder + "/p")
        let error = try #require(throws: ImageCacheError.self) {
            _ = try TilePyramidBuilder(destination: .folder(folder + "/p"))
        }
        #expect(error.code == .inUse)
        #expect(try open.tile(level: 0, column: 0, row: 0).count == 262_144)
    }

    @Test func throwawayPyramidLeavesNoFiles() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let pyramid = try TilePyramidBuilder.build(
            contentsOf: Fixtures.path("jpeg/orientation/chelsea-orientation-6.jpg"), destination: .temporary(folder: folder))
        #expect(pyramid.path == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
        try expectPyramid(pyramid, matches: Bitmap(decoding: Fixtures.bytes("jpeg/orientation/chelsea-orientation-6.jpg")))
    }
}
