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

    @Test func decodesCoffeeAtQuarterScaleThenToTheCoveringSize() throws {
        // 600×400 at DCT scale 1/4 is 150×100; what covers 64×64 with its aspect ratio is 96×64.
        let decoded = try ImageDecoder.decode(
            contentsOf: TestData.path("photos/coffee.jpg"),
            options: DecodingOptions(targetSize: PixelSize(width: 64, height: 64))
        )
        #expect(decoded.width == 96 && decoded.height == 64)
        // The documented ratio (not libjpeg's DCT scale of 4): 600 / 96 = 6.25, rounded up.
        #expect(decoded.scaleDenominator == Int((600.0 / 96.0).rounded(.up)))
        #expect(decoded.source.width == 600 && decoded.source.height == 400)
        // The same as resampling the 1/4 decode: each pixel the mean of the area it covers.
        let quarter = try ImageDecoder.decode(
            contentsOf: TestData.path("photos/coffee.jpg"),
            options: DecodingOptions(targetSize: PixelSize(width: 150, height: 100))
        )
        #expect(quarter.width == 150 && quarter.scaleDenominator == 4)
        let psnr = PixelComparison.psnr(decoded, try Self.areaAverage(quarter, width: 96, height: 64))
        #expect(psnr >= 45, "PSNR \(psnr) dB")
    }

    /// `image` shrunk to `width × height` by exact area averaging (fractional edge weights), the
    /// slow and obvious way, in floating point.
    static func areaAverage(_ image: DecodedImage, width: Int, height: Int) throws -> DecodedImage {
        let out = DecodedImage(
            width: width, height: height, pixelFormat: image.pixelFormat, source: image.source, isOrientationApplied: true)
        let sx = Double(image.width) / Double(width), sy = Double(image.height) / Double(height)
        for oy in 0..<height {
            for ox in 0..<width {
                var sums = [0.0, 0.0, 0.0, 0.0]
                let x0 = Double(ox) * sx, x1 = x0 + sx, y0 = Double(oy) * sy, y1 = y0 + sy
                for y in Int(y0)..<min(image.height, Int(y1.rounded(.up))) {
                    let wy = min(y1, Double(y + 1)) - max(y0, Double(y))
                    for x in Int(x0)..<min(image.width, Int(x1.rounded(.up))) {
                        let w = wy * (min(x1, Double(x + 1)) - max(x0, Double(x)))
                        for c in 0..<4 {
                            sums[c] += w * Double(image.baseAddress.load(fromByteOffset: y * image.bytesPerRow + x * 4 + c, as: UInt8.self))
                        }
                    }
                }
                for c in 0..<4 {
                    out.baseAddress.storeBytes(
                        of: UInt8(min(255, (sums[c] / (sx * sy)).rounded())), toByteOffset: oy * out.bytesPerRow + ox * 4 + c,
                        as: UInt8.self)
                }
            }
        }
        return out
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

    @Test func pngShrinksByTheLargestWholeFactorThatCoversThenToTheCoveringSize() throws {
        // 256 / 8 = 32: a whole factor gives exactly 32×32.
        let decoded = try ImageDecoder.decode(
            contentsOf: TestData.path("png/astronaut-rgb.png"),
            options: DecodingOptions(targetSize: PixelSize(width: 32, height: 32))
        )
        #expect(decoded.scaleDenominator == 8)
        #expect(decoded.width == 32 && decoded.height == 32)
        // 30×30: a factor of 8 (32×32), then resampled to 30×30.
        let thirty = try ImageDecoder.decode(
            contentsOf: TestData.path("png/astronaut-rgb.png"),
            options: DecodingOptions(targetSize: PixelSize(width: 30, height: 30))
        )
        #expect(thirty.width == 30 && thirty.height == 30 && thirty.scaleDenominator == 9)
        #expect(PixelComparison.psnr(thirty, try Self.areaAverage(decoded, width: 30, height: 30)) >= 45)
        // A target larger than the image decodes at full size.
        let full = try ImageDecoder.decode(
            contentsOf: TestData.path("png/astronaut-rgb.png"),
            options: DecodingOptions(targetSize: PixelSize(width: 300, height: 10))
        )
        #expect(full.scaleDenominator == 1 && full.width == 256)
    }

    @Test func nonPositiveTargetIsInvalid() throws {
        let error = try #require(throws: ImageCacheError.self) {
            try ImageDecoder.decode(
                try TestData.bytes("photos/coffee.jpg"), options: DecodingOptions(targetSize: PixelSize(width: 0, height: 10)))
        }
        #expect(error.code == .invalidArgument)
    }
}
