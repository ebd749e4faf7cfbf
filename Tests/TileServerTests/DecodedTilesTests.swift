import FICTestSupport
import FastImageCache
import Foundation
import ImageCodec
import Testing
import TileServer
@testable import TiledImage

/// With a folder of decoded tiles, the server's answers are the same, the tiles it read are kept
/// in the pyramid's table there for the next server, and a tile kept there is what the next
/// answer is made from (read in place, not decoded again).
@Suite struct DecodedTilesTests {
    @Test func regionsReadTheirTilesFromTheTableAndKeepThem() async throws {
        let pattern = try PatternStore()
        let tables = try ExternalTools.makeFolder("decoded-tiles")
        defer { try? FileManager.default.removeItem(atPath: tables) }
        var options = TileServerOptions()
        options.decodedTilesDirectory = tables
        // Full resolution across four tiles (256…767), and the same region halved.
        let paths = ["/iiif/3/pattern/200,200,400,400/max/0/default.png", "/iiif/3/pattern/200,200,400,400/200,/0/default.png"]
        for path in paths {
            let expected = await pattern.server.respond(to: TileServerRequest(path: path))
            let server = try TileServer(storePath: pattern.folder + "/store", options: options)
            let answer = await server.respond(to: TileServerRequest(path: path))
            #expect(expected.status == 200 && answer.status == 200 && answer.body == expected.body, "\(path)")
        }

        // The tiles read are kept in the pyramid's table (no server has it open any more).
        let pyramid = try TilePyramid.open(at: pattern.folder + "/store/pattern.tif")
        let table = try pyramid.tileTable(directory: tables)
        for (column, row) in [(0, 0), (1, 1), (2, 2)] {
            #expect(table.cachedTile(level: 0, column: column, row: row) != nil, "tile \(column),\(row) kept")
        }
        #expect(table.cachedTile(level: 0, column: 4, row: 3) == nil, "a tile no answer needed is not read")

        // A probe stored in the slot of tile (1, 1) (solid blue) is what the next server answers.
        let blue = DecodedImage(
            width: 256, height: 256, pixelFormat: .bgrx32, source: ImageInfo(format: .tiff, width: 256, height: 256, hasAlpha: false),
            isOrientationApplied: true)
        blue.withUnsafeBytes { raw in
            let pixels = UnsafeMutableRawPointer(mutating: raw.baseAddress!).assumingMemoryBound(to: UInt32.self)
            for i in 0..<(256 * 256) { pixels[i] = 0xFF00_00FF }
        }
        try table.cache.setImage(blue, for: try #require(table.entity(0, 1, 1)), format: TileTable.formatName)
        table.close()
        let server = try TileServer(storePath: pattern.folder + "/store", options: options)
        let probed = await server.respond(to: TileServerRequest(path: "/iiif/3/pattern/300,300,8,8/max/0/default.png"))
        let picture = try Picture(probed.body)
        #expect(probed.status == 200 && picture.pixel(3, 3) == (r: 0, g: 0, b: 255), "read from the table in place")
    }
}
