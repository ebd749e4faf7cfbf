import FICTestSupport
import FastImageCache
import Foundation
import ImageCodec
import Testing
@testable import TiledImage

/// A pyramidal TIFF's tiles kept decoded in its tile table: each stored tile is the tile the
/// pyramid reads, a new table on the same folder (a restart) has them without decoding, a file
/// built again has none of them, and the region reader takes stored tiles from the table in place.
@Suite struct TileTableTests {
    typealias F = PyramidTIFFFixtures

    /// A JPEG-tiled vips pyramid of a 1001 × 777 photo at `path`: levels 1001 × 777 (4 × 4 tiles),
    /// 500 × 388 (2 × 2), 250 × 194 (1).
    static func pyramid(at path: String, folder: String) throws -> TilePyramid {
        try PyramidTIFFOpenTests.vipsPyramid(
            ["--tile-width", "256", "--tile-height", "256", "--compression", "jpeg"], at: path, folder: folder)
        return try TilePyramid.open(at: path)
    }

    /// The slot's 256 × 256 pixels as a tile's bytes (rows of 1024).
    static func bytes(_ image: CachedImage) -> [UInt8] {
        image.withUnsafeBytes { raw in
            (0..<PyramidGeometry.tileSide).flatMap { y in Array(raw[(y * image.bytesPerRow)..<(y * image.bytesPerRow + 1024)]) }
        }
    }

    @Test func storedTilesAreThePyramidsAndStayForTheNextRun() async throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let pyramid = try Self.pyramid(at: folder + "/p.tif", folder: folder)
        let expected = try F.tiles(of: pyramid)
        let table = try pyramid.tileTable(directory: folder + "/cache")
        #expect(table.grid == TileGrid(pyramid.geometry) && table.version == pyramid.buildIdentity)
        for level in pyramid.geometry.levels {
            for index in 0..<level.tileCount {
                let (column, row) = (index % level.columns, index / level.columns)
                #expect(table.cachedTile(level: level.index, column: column, row: row) == nil, "nothing stored yet")
                let tile = try await table.tile(level: level.index, column: column, row: row)
                #expect(Self.bytes(tile) == expected[level.index][index], "level \(level.index) tile \(column),\(row)")
                let size = try #require(table.tileSize(level: level.index, column: column, row: row))
                #expect(size == level.validSize(column: column, row: row))
            }
        }
        // The provider decodes a tile as it reads it: one read a tile.
        #expect(table.cache.statistics.sourceFetches == 21, "each tile read once: 16 + 4 + 1")
        #expect(table.cachedTile(level: 3, column: 0, row: 0) == nil && table.cachedTile(level: 0, column: 4, row: 0) == nil)
        await #expect(throws: ImageCacheError.self) { try await table.tile(level: 0, column: 0, row: 4) }
        table.close()

        // A restart: a new pyramid and table on the same files hold every tile, and decode none.
        let reopened = try TilePyramid.open(at: folder + "/p.tif")
        let again = try reopened.tileTable(directory: folder + "/cache")
        for level in pyramid.geometry.levels {
            for index in 0..<level.tileCount {
                let stored = try #require(again.cachedTile(level: level.index, column: index % level.columns, row: index / level.columns))
                #expect(Self.bytes(stored) == expected[level.index][index])
            }
        }
        #expect(again.cache.statistics.sourceFetches == 0)
        again.close()

        // The file built again (another picture at the same path): its table shows none of the old tiles.
        try FileManager.default.removeItem(atPath: folder + "/p.tif")
        try ExternalTools.run(
            F.vips, ["tiffsave", Fixtures.path("photos/hubble.jpg"), folder + "/p.tif", "--tile", "--pyramid", "--compression", "jpeg"])
        let rebuilt = try TilePyramid.open(at: folder + "/p.tif")
        let fresh = try rebuilt.tileTable(directory: folder + "/cache")
        defer { fresh.close() }
        #expect(fresh.version != pyramid.buildIdentity)
        #expect(fresh.cachedTile(level: 0, column: 0, row: 0) == nil, "a stale tile is never shown")
        let tile = try await fresh.tile(level: 0, column: 0, row: 0)
        #expect(Self.bytes(tile) == (try rebuilt.tile(level: 0, column: 0, row: 0)))
    }

    @Test func theRegionReaderTakesStoredTilesInPlaceAndStoresTheRest() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let pyramid = try Self.pyramid(at: folder + "/p.tif", folder: folder)
        let table = try pyramid.tileTable(directory: folder + "/cache")
        defer { table.close() }
        let plain = try PyramidRegionReader(pyramid)
        let reader = try PyramidRegionReader(pyramid, tiles: table)
        // Across four tiles of level 0, at full size and halved.
        for (w, h) in [(300, 300), (150, 150)] {
            let expected = try plain.read(x: 200, y: 200, width: 300, height: 300, outputWidth: w, outputHeight: h)
            #expect(try reader.read(x: 200, y: 200, width: 300, height: 300, outputWidth: w, outputHeight: h).pixels == expected.pixels)
        }
        for (column, row) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            #expect(table.cachedTile(level: 0, column: column, row: row) != nil, "tile \(column),\(row) stored by the read")
        }
        #expect(table.cachedTile(level: 0, column: 2, row: 2) == nil, "a tile outside the region is not read")

        // Read in place: a probe stored over tile (1, 1) (solid red) is what the next read shows.
        let entity = try #require(table.entity(0, 1, 1))
        let red = DecodedImage(
            width: 256, height: 256, pixelFormat: .bgra32Premultiplied,
            source: ImageInfo(format: .tiff, width: 256, height: 256, hasAlpha: false),
            isOrientationApplied: true)
        red.withUnsafeBytes { raw in
            let pixels = UnsafeMutableRawPointer(mutating: raw.baseAddress!).assumingMemoryBound(to: UInt32.self)
            for i in 0..<(256 * 256) { pixels[i] = 0xFFFF_0000 }
        }
        try table.cache.setImage(red, for: entity, format: TileTable.formatName)
        let probed = try reader.read(x: 256, y: 256, width: 4, height: 4, outputWidth: 4, outputHeight: 4)
        #expect(probed.pixels == [UInt8]((0..<16).flatMap { _ in [0, 0, 255, 255] as [UInt8] }))

        // Another pyramid's table is refused.
        try ExternalTools.run(F.vips, ["tiffsave", Fixtures.path("photos/hubble.jpg"), folder + "/q.tif", "--tile", "--pyramid"])
        let other = try TilePyramid.open(at: folder + "/q.tif")
        #expect(throws: ImageCacheError.self) { try PyramidRegionReader(other, tiles: table) }
    }
}
