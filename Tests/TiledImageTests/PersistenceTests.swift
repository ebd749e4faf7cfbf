import Foundation
import Glibc
import ImageCodec
import Testing
@testable import TiledImage

/// Pyramids reopen after a restart from their TIFF; a rebuild never changes an open one; pyramid
/// folders of earlier versions are refused with how to rebuild them; throwaway ones leave no files.
@Suite struct PersistenceTests {
    @Test func reopensWithTheSameTiles() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let jpeg = try Fixtures.makeJPEG(width: 600, height: 400, in: folder)
        var before: [Bitmap] = []
        do {
            let pyramid = try TilePyramidBuilder.build(contentsOf: jpeg, destination: rawTIFF(folder + "/p.tif"))
            before = try pyramid.geometry.levels.map { try Bitmap(level: $0.index, of: pyramid) }
            #expect(pyramid.statistics != nil && pyramid.sourceFormat == .jpeg)
        }
        let reopened = try TilePyramid.open(at: folder + "/p.tif")
        #expect(reopened.statistics == nil)
        #expect(reopened.sourceFormat == .tiff, "reopened, a pyramid is its file")
        #expect(try reopened.geometry.levels.map { try Bitmap(level: $0.index, of: reopened) } == before)
        // The view given to a closure shows the same bytes as a read.
        let read = try reopened.tile(level: 0, column: 2, row: 1)
        let viewed = try reopened.withMappedTile(level: 0, column: 2, row: 1) { Array($0) }
        #expect(read == viewed)
        #expect(throws: ImageCacheError.self) { try reopened.tile(level: 0, column: 3, row: 0) }
        #expect(throws: ImageCacheError.self) { try reopened.tile(level: 9, column: 0, row: 0) }
    }

    /// A file cut short is refused when opened, with where it ends: after its directories (a
    /// tile passes the end) or inside them.
    @Test func aCutFileIsRefused() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        _ = try TilePyramidBuilder.build(contentsOf: Fixtures.path("photos/coffee.jpg"), destination: rawTIFF(folder + "/p.tif"))
        #expect(try TilePyramid.open(at: folder + "/p.tif").geometry.levels.count > 1)
        #expect(truncate(folder + "/p.tif", 65_536) == 0)
        let cut = try #require(throws: ImageCacheError.self) { try TilePyramid.open(at: folder + "/p.tif") }
        #expect(cut.message.contains("passes the end of the 65536-byte file"), "\(cut)")
        #expect(truncate(folder + "/p.tif", 100) == 0)
        #expect(throws: ImageCacheError.self) { try TilePyramid.open(at: folder + "/p.tif") }
    }

    /// A pyramid folder of an earlier version (level files beside `pyramid.info`) is not read:
    /// the error says to build it again as a TIFF. Any other folder is not a pyramid.
    @Test func anEarlierFolderSaysHowToRebuild() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        try FileManager.default.createDirectory(atPath: folder + "/old", withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: folder + "/old/pyramid.info", contents: Data("FICTILES".utf8)))
        #expect(FileManager.default.createFile(atPath: folder + "/old/level-0.tiles", contents: Data(count: 262_144)))
        let error = try #require(throws: ImageCacheError.self) { try TilePyramid.open(at: folder + "/old") }
        #expect(error.code == .damagedPyramid && error.message.contains("--out NAME.tif"), "\(error)")
        let other = try #require(throws: ImageCacheError.self) { try TilePyramid.open(at: folder) }
        #expect(other.code == .unsafePath && other.message.contains("not a folder"), "\(other)")
    }

    /// Building again at the path of an open pyramid replaces the name, never the bytes read.
    @Test func anOpenPyramidKeepsItsTilesThroughARebuild() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        _ = try TilePyramidBuilder.build(contentsOf: Fixtures.path("photos/coffee.jpg"), destination: rawTIFF(folder + "/p.tif"))
        let open = try TilePyramid.open(at: folder + "/p.tif")
        let tile = try open.tile(level: 0, column: 0, row: 0)
        _ = try TilePyramidBuilder.build(contentsOf: Fixtures.path("photos/chelsea.jpg"), destination: rawTIFF(folder + "/p.tif"))
        #expect(try open.tile(level: 0, column: 0, row: 0) == tile)
        let rebuilt = try TilePyramid.open(at: folder + "/p.tif")
        #expect(try rebuilt.tile(level: 0, column: 0, row: 0) != tile)
        #expect(rebuilt.buildIdentity != open.buildIdentity)
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
