import ImageCodec
import Testing

/// DCT scale selection and scaled JPEG decoding.
@Suite struct ScaleTests {
    static func jpeg(_ width: Int, _ height: Int, _ orientation: ImageOrientation = .up) -> ImageInfo {
        ImageInfo(format: .jpeg, width: width, height: height, orientation: orientation, hasAlpha: false)
    }

    @Test func denominatorIsLargestThatCoversTarget() {
        let info = Self.jpeg(600, 400)
        #expect(ImageDecoder.jpegScaleDenominator(for: info, target: PixelSize(width: 64, height: 64)) == 4)  // 150×100 (1/8 gives 75×50)
        #expect(ImageDecoder.jpegScaleDenominator(for: info, target: PixelSize(width: 75, height: 50)) == 8)
        #expect(ImageDecoder.jpegScaleDenominator(for: info, target: PixelSize(width: 76, height: 50)) == 4)
        #expect(ImageDecoder.jpegScaleDenominator(for: info, target: PixelSize(width: 300, height: 200)) == 2)
        #expect(ImageDecoder.jpegScaleDenominator(for: info, target: PixelSize(width: 301, height: 10)) == 1)
        #expect(ImageDecoder.jpegScaleDenominator(for: info, target: PixelSize(width: 10, height: 201)) == 1)
        #expect(ImageDecoder.jpegScaleDenominator(for: info, target: PixelSize(width: 4000, height: 4000)) == 1)
    }

    @Test func denominatorRoundsUp() {
        // ceil(17 / 8) = 3, ceil(13 / 8) = 2.
        let odd = Self.jpeg(17, 13)
        #expect(ImageDecoder.jpegScaleDenominator(for: odd, target: PixelSize(width: 3, height: 2)) == 8)
        #expect(ImageDecoder.jpegScaleDenominator(for: odd, target: PixelSize(width: 4, height: 2)) == 4)
        #expect(ImageDecoder.jpegScaleDenominator(for: Self.jpeg(1, 1), target: PixelSize(width: 1, height: 1)) == 8)
    }

    @Test func denominatorUsesDisplayOrientation() {
        // Stored 400×600, displayed 600×400.
        let rotated = Self.jpeg(400, 600, .right)
        #expect(ImageDecoder.jpegScaleDenominator(for: rotated, target: PixelSize(width: 150, height: 100)) == 4)
        #expect(ImageDecoder.jpegScaleDenominator(for: rotated, target: PixelSize(width: 100, height: 150)) == 2)
    }

    @Test func otherFormatsAreNotScaled() {
        let png = ImageInfo(format: .png, width: 600, height: 400, hasAlpha: false)
        #expect(ImageDecoder.jpegScaleDenominator(for: png, target: PixelSize(width: 1, height: 1)) == 1)
    }

    @Test func decodesCoffeeAtQuarterScale() throws {
        let decoded = try ImageDecoder.decode(
            contentsOf: TestData.path("photos/coffee.jpg"),
            options: DecodingOptions(targetSize: PixelSize(width: 64, height: 64))
        )
        #expect(decoded.scaleDenominator == 4)
        #expect(decoded.width == 150 && decoded.height == 100)
        #expect(decoded.source.width == 600 && decoded.source.height == 400)
    }

    @Test(arguments: [1, 2, 4, 8])
    func scaledOutputSizeIsCeiling(denominator: Int) throws {
        let bytes = try TestData.bytes("jpeg/odd-17x13.jpg")
        let target = PixelSize(width: (17 + denominator - 1) / denominator, height: (13 + denominator - 1) / denominator)
        let decoded = try ImageDecoder.decode(bytes, options: DecodingOptions(targetSize: target))
        #expect(decoded.scaleDenominator == denominator)
        #expect(decoded.width == target.width && decoded.height == target.height)
    }

    @Test func scaledDecodeOfRotatedImageIsUpright() throws {
        let decoded = try ImageDecoder.decode(
            contentsOf: TestData.path("jpeg/orientation/chelsea-orientation-6.jpg"),
            options: DecodingOptions(targetSize: PixelSize(width: 226, height: 150))
        )
        #expect(decoded.scaleDenominator == 2)
        #expect(decoded.width == 226 && decoded.height == 150)
    }

    @Test func pngShrinksByTheLargestWholeFactorThatCovers() throws {
        // 256 / 8 = 32 ≥ 30 but 256 / 9 → 29 < 30.
        let decoded = try ImageDecoder.decode(
            contentsOf: TestData.path("png/astronaut-rgb.png"),
            options: DecodingOptions(targetSize: PixelSize(width: 30, height: 30))
        )
        #expect(decoded.scaleDenominator == 8)
        #expect(decoded.width == 32 && decoded.height == 32)
        // A target larger than the image decodes at full size.
        let full = try ImageDecoder.decode(
            contentsOf: TestData.path("png/astronaut-rgb.png"),
            options: DecodingOptions(targetSize: PixelSize(width: 300, height: 10))
        )
        #expect(full.scaleDenominator == 1 && full.width == 256)
    }

    @Test func nonPositiveTargetIsInvalid() throws {
        let error = try #require(throws: ImageCacheError.self) {
            try ImageDecoder.decode(try TestData.bytes("photos/coffee.jpg"), options: DecodingOptions(targetSize: PixelSize(width: 0, height: 10)))
        }
        #expect(error.code == .invalidArgument)
    }
}
