import Foundation
import ImageCodec
import Testing
@testable import TiledImage

/// Pixels: level 0 is the plain decode, every other level the box filter of the one above.
@Suite struct PyramidPixelTests {
    /// Sizes ≡ 1, 255, 256 and 257 (mod 256), in both directions.
    static let sizes: [(Int, Int)] = [(257, 767), (767, 257), (512, 1025), (1025, 512), (1, 511), (511, 1), (255, 256)]

    @Test(arguments: sizes.indices)
    func levelsMatchDecodeAndBoxFilter(index: Int) throws {
        let (width, height) = Self.sizes[index]
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let jpeg = try Fixtures.makeJPEG(width: width, height: height, in: folder)
        let bytes = try Fixtures.bytes(atPath: jpeg)
        let pyramid = try buildPyramid(bytes, chunkSize: 65_536, destination: rawTIFF(folder + "/pyramid.tif"))
        #expect(pyramid.geometry.width == width && pyramid.geometry.height == height)
        let last = try #require(pyramid.geometry.levels.last)
        #expect(last.width <= 256 && last.height <= 256, "levels go down to one tile")
        if pyramid.geometry.levels.count > 1 {
            let before = pyramid.geometry.levels[pyramid.geometry.levels.count - 2]
            #expect(before.width > 256 || before.height > 256, "and no further")
        }
        try expectPyramid(pyramid, matches: Bitmap(decoding: bytes))
    }

    @Test func edgeTilesArePaddedWithZeros() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let jpeg = try Fixtures.makeJPEG(width: 300, height: 260, in: folder)
        let pyramid = try TilePyramidBuilder.build(contentsOf: jpeg, destination: rawTIFF(folder + "/p.tif"))
        let tile = try pyramid.tile(level: 0, column: 1, row: 1)  // 44 × 4 valid pixels
        #expect(tile.count == 256 * 1024)
        var paddingIsZero = true, contentIsOpaque = true
        for y in 0..<256 {
            for x in 0..<256 {
                let alpha = tile[y * 1024 + x * 4 + 3]
                if x < 44 && y < 4 {
                    contentIsOpaque = contentIsOpaque && alpha == 255
                } else {
                    paddingIsZero = paddingIsZero && tile[(y * 1024 + x * 4)..<(y * 1024 + x * 4 + 4)].allSatisfy { $0 == 0 }
                }
            }
        }
        #expect(paddingIsZero)
        #expect(contentIsOpaque)
    }

    @Test func chunkSizesGiveIdenticalTiles() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let jpeg = try Fixtures.makeJPEG(width: 700, height: 530, in: folder)
        let bytes = try Fixtures.bytes(atPath: jpeg)
        var results: [[Bitmap]] = []
        for chunk in [1, 4096, 1 << 20] {
            let pyramid = try buildPyramid(bytes, chunkSize: chunk, destination: .temporary(folder: folder))
            results.append(try pyramid.geometry.levels.map { try Bitmap(level: $0.index, of: pyramid) })
        }
        #expect(results[0] == results[1])
        #expect(results[1] == results[2])
        try expectPyramid(buildPyramid(bytes, chunkSize: 4096, destination: .temporary(folder: folder)), matches: Bitmap(decoding: bytes))
    }

    @Test(arguments: 1...8)
    func everyOrientationIsUpright(orientation: Int) throws {
        let file = "jpeg/orientation/chelsea-orientation-\(orientation).jpg"
        let bytes = try Fixtures.bytes(file)
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        for chunk in [1000, 1 << 20] {
            let pyramid = try buildPyramid(bytes, chunkSize: chunk, destination: rawTIFF(folder + "/p\(chunk).tif"))
            #expect(pyramid.sourceOrientation.rawValue == orientation)
            try expectPyramid(pyramid, matches: Bitmap(decoding: bytes))
        }
        // All eight show the same picture as orientation 1 (within JPEG re-encoding noise).
        let upright = try Bitmap(decoding: Fixtures.bytes("jpeg/orientation/chelsea-orientation-1.jpg"))
        let pyramid = try buildPyramid(bytes, chunkSize: 1 << 20, destination: .temporary(folder: folder))
        let top = try Bitmap(level: 0, of: pyramid)
        #expect(top.width == upright.width && top.height == upright.height)
        var total = 0
        for i in 0..<top.pixels.count { total += abs(Int(top.pixels[i]) - Int(upright.pixels[i])) }
        #expect(Double(total) / Double(top.pixels.count) < 4, "mean difference to orientation 1")
    }

    /// Every kind of JPEG; the CMYK one and rocket.jpg (Adobe RGB) have their colours converted
    /// on the pyramid's writer thread, and must come out as the decoder converts them.
    @Test(arguments: [
        "jpeg/coffee-gray.jpg", "jpeg/coffee-cmyk.jpg", "jpeg/coffee-444.jpg", "jpeg/coffee-restart.jpg",
        "jpeg/coffee-arithmetic.jpg", "jpeg/coffee-progressive.jpg", "jpeg/odd-17x13.jpg", "jpeg/tiny-1x1.jpg",
        "photos/rocket.jpg"
    ])
    func jpegVariants(file: String) throws {
        let bytes = try Fixtures.bytes(file)
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let pyramid = try buildPyramid(bytes, chunkSize: 4096, destination: rawTIFF(folder + "/p.tif"))
        #expect(!pyramid.hasAlpha)
        try expectPyramid(pyramid, matches: Bitmap(decoding: bytes))
    }

    @Test(arguments: [
        "png/astronaut-rgb.png", "png/astronaut-rgba.png", "png/astronaut-palette.png", "png/astronaut-palette-trns.png",
        "png/camera-gray.png", "png/astronaut-gray-alpha.png", "png/astronaut-interlaced.png", "png/tiny-1x1.png",
        "webp/astronaut-lossless-alpha.webp", "photos/camera-gray.png"
    ])
    func pngAndWebP(file: String) throws {
        guard FileManager.default.fileExists(atPath: Fixtures.path(file)) else { return }
        let bytes = try Fixtures.bytes(file)
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        for chunk in [1, 5000] {
            let pyramid = try buildPyramid(bytes, chunkSize: chunk, destination: .temporary(folder: folder))
            try expectPyramid(pyramid, matches: Bitmap(decoding: bytes))
        }
    }

    @Test func sixteenBitPNGWithinOne() throws {
        let bytes = try Fixtures.bytes("png/astronaut-rgba-16bit.png")
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let pyramid = try buildPyramid(bytes, chunkSize: 3000, destination: .temporary(folder: folder))
        #expect(try Bitmap(level: 0, of: pyramid).maximumDifference(to: Bitmap(decoding: bytes)) <= 1)
    }

    @Test func viewSizeStopsTheLevels() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let geometry = try PyramidGeometry(width: 18000, height: 18000, viewSize: (1920, 1080))
        #expect(geometry.levels.map(\.width) == [18000, 9000, 4500, 2250, 1125, 563])  // 1125 is taller than 1080
        #expect(try PyramidGeometry(width: 18000, height: 9001).levels.map(\.height) == [9001, 4501, 2251, 1126, 563, 282, 141, 71])
        #expect(throws: ImageCacheError.self) { try PyramidGeometry(width: 70_000, height: 10) }
        let jpeg = try Fixtures.makeJPEG(width: 900, height: 600, in: folder)
        let pyramid = try TilePyramidBuilder.build(
            contentsOf: jpeg, destination: rawTIFF(folder + "/p.tif"), options: .init(viewSize: PixelSize(width: 300, height: 300)))
        #expect(pyramid.geometry.levels.map(\.width) == [900, 450, 225])
        let reopened = try TilePyramid.open(at: folder + "/p.tif")
        #expect(reopened.geometry == pyramid.geometry)
    }
}
