import FICTestSupport
import Foundation
import ImageCodec
import Testing
import TileServer
import TiledImage

/// The server serves the pyramidal TIFFs of its store as it serves its own pyramids: the pattern
/// saved by vips as a lossless tiled pyramid (128 × 128 tiles, levels rounded down) comes back
/// pixel for pixel.
@Suite struct ServeTIFFTests {
    @Test func aVipsPyramidIsServedPixelForPixel() async throws {
        let pattern = try PatternStore()
        try ExternalTools.run(
            "/usr/bin/vips",
            [
                "tiffsave", pattern.folder + "/pattern.png", pattern.folder + "/store/scan.tif", "--tile", "--pyramid", "--compression",
                "none"
            ])
        let server = try TileServer(storePath: pattern.folder + "/store")
        let index = await server.respond(to: TileServerRequest(path: "/"))
        #expect(index.status == 200 && String(decoding: index.body, as: UTF8.self).contains("scan"))
        let info = await server.respond(to: TileServerRequest(path: "/iiif/3/scan/info.json", host: "tiles.test"))
        let document = try #require(try JSONSerialization.jsonObject(with: Data(info.body)) as? [String: Any])
        #expect(info.status == 200 && document["width"] as? Int == PatternStore.width && document["height"] as? Int == PatternStore.height)

        let full = await server.respond(to: TileServerRequest(path: "/iiif/3/scan/full/max/0/default.png"))
        #expect(full.status == 200 && full.header("Content-Type") == "image/png")
        let picture = try Picture(full.body)
        #expect(picture.width == PatternStore.width && picture.height == PatternStore.height)
        var wrong = 0
        for y in 0..<picture.height {
            for x in 0..<picture.width where picture.pixel(x, y) != PatternStore.pixel(x, y) { wrong += 1 }
        }
        #expect(wrong == 0, "\(wrong) pixels differ from the pattern")

        // A Deep Zoom tile of full resolution, whole and at the right and bottom edges.
        let levels = 12  // 1500 × 1100: Deep Zoom levels 0 (1 × 1) … 11 (full).
        for (column, row, width, height) in [(1, 1, 256, 256), (5, 4, 1500 - 5 * 256, 1100 - 4 * 256)] {
            let tile = await server.respond(to: TileServerRequest(path: "/dzi/scan_files/\(levels - 1)/\(column)_\(row).jpg"))
            #expect(tile.status == 200)
            let decoded = try Picture(tile.body)
            #expect(decoded.width == width && decoded.height == height)
        }
    }

    /// A Deep Zoom tile that is a stored JPEG tile of the file (256 × 256, inside the level) is
    /// answered with the stored bytes, the file's tables spliced in: no decode, no encode. An edge
    /// tile, cropped to the image, is encoded.
    @Test func storedJPEGTilesAreAnsweredAsStored() async throws {
        let pattern = try PatternStore()
        let path = pattern.folder + "/store/scan.tif"
        try ExternalTools.run(
            "/usr/bin/vips",
            [
                "tiffsave", pattern.folder + "/pattern.png", path, "--tile", "--tile-width", "256", "--tile-height", "256", "--pyramid",
                "--compression", "jpeg"
            ])
        let server = try TileServer(storePath: pattern.folder + "/store")
        let file = try PyramidTIFFReader(path: path)
        for (level, column, row) in [(11, 1, 2), (11, 4, 3), (10, 1, 1)] {
            let answer = await server.respond(to: TileServerRequest(path: "/dzi/scan_files/\(level)/\(column)_\(row).jpg"))
            let stored = try file.tileBytes(level: 11 - level, column: column, row: row)
            #expect(answer.status == 200 && answer.body.count > stored.count)
            let served: [UInt8] = Array(answer.body.suffix(stored.count - 2)), kept: [UInt8] = Array(stored.dropFirst(2))
            #expect(served == kept, "level \(level) tile \(column)_\(row)")
            let picture = try Picture(answer.body)
            #expect(picture.width == 256 && picture.height == 256)
        }
        // The same tiles asked as IIIF regions of one tile at its level's scale.
        for (level, column, row) in [(0, 1, 2), (1, 1, 1)] {
            let span = 256 << level
            let answer = await server.respond(
                to: TileServerRequest(path: "/iiif/3/scan/\(column * span),\(row * span),\(span),\(span)/256,/0/default.jpg"))
            let stored = try file.tileBytes(level: level, column: column, row: row)
            let served: [UInt8] = Array(answer.body.suffix(stored.count - 2)), kept: [UInt8] = Array(stored.dropFirst(2))
            #expect(served == kept, "IIIF level \(level)")
        }
        // Any other size, or a PNG, is made from the pixels.
        let png = await server.respond(to: TileServerRequest(path: "/iiif/3/scan/256,512,256,256/256,/0/default.png"))
        #expect(png.status == 200 && png.header("Content-Type") == "image/png")
        let smaller = await server.respond(to: TileServerRequest(path: "/iiif/3/scan/256,512,256,256/128,/0/default.jpg"))
        #expect(try Picture(smaller.body).width == 128)
        let edge = await server.respond(to: TileServerRequest(path: "/dzi/scan_files/11/5_4.jpg"))
        let cropped = try Picture(edge.body)
        #expect(cropped.width == 1500 - 5 * 256 && cropped.height == 1100 - 4 * 256)
    }
}
