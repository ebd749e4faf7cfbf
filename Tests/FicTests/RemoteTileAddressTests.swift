import Foundation
import Testing
import TiledImage
@testable import fic

/// How `fic view photo URL` tells a remote tiled image from an image file, and the tile plan on a
/// remote service's grid (tiles of any size).
@Suite("remote tiled images: URLs and the tile plan")
struct RemoteTileAddressTests {
    @Test(
        "a .dzi or info.json is a descriptor; a .tif a pyramidal TIFF; a URL without an extension may be a IIIF base URL; an image file's is downloaded"
    )
    func classification() {
        let dzi = "https://example.org/a/nebula.dzi"
        #expect(RemoteTileAddress.classify(dzi) == .descriptor(URL(string: dzi)!))
        let info = "https://example.org/iiif/nebula/info.json"
        #expect(RemoteTileAddress.classify(info) == .descriptor(URL(string: info)!))
        #expect(RemoteTileAddress.classify("https://example.org/iiif/nebula/") == .possibleService(info: URL(string: info)!))
        #expect(RemoteTileAddress.classify("https://example.org/iiif/nebula") == .possibleService(info: URL(string: info)!))
        let tiff = "https://example.org/scans/nebula.TIF"
        #expect(RemoteTileAddress.classify(tiff) == .pyramidalTIFF(URL(string: tiff)!), "a TIFF is read by ranges, never downloaded")
        for image in [
            "https://example.org/nebula.jpg", "http://example.org/a/b.PNG", "https://example.org/", "https://example.org/photo?id=3",
            "ftp://example.org/a.dzi"
        ] {
            #expect(RemoteTileAddress.classify(image) == .imageFile, "\(image)")
        }
    }

    @Test("on a grid of 254-pixel tiles, the plan's visible tiles cover the view, a ring around them, and the next coarser level")
    func planOnARemoteGrid() {
        let grid = TileGrid(
            tileWidth: 254, tileHeight: 254,
            levels: [
                .init(width: 3000, height: 1800, columns: 12, rows: 8),
                .init(width: 1500, height: 900, columns: 6, rows: 4),
                .init(width: 750, height: 450, columns: 3, rows: 2)
            ])
        var viewport = PhotoViewport(imageWidth: 3000, imageHeight: 1800, width: 640, height: 400)
        viewport.zoom(to: 1, x: 0, y: 0)
        let plan = TilePlan(viewport: viewport, grid: grid)
        #expect(plan.level == 0)
        // 640 × 400 from (0, 0): columns 0…2 (0…761), rows 0…1 (0…507).
        #expect(Set(plan.visible) == Set((0...1).flatMap { r in (0...2).map { TileKey(level: 0, column: $0, row: r) } }))
        let finest = plan.wanted.filter { $0.level == 0 }
        #expect(finest.allSatisfy { $0.column <= 3 && $0.row <= 2 } && finest.count == 12)
        #expect(plan.wanted.contains(TileKey(level: 1, column: 0, row: 0)))
        #expect(grid.cellSize(level: 0, column: 11, row: 7) == (3000 - 11 * 254, 1800 - 7 * 254))
        #expect(grid.trimmedToOneTile.levels.count == 3, "no level is a single tile")
    }
}
