import Foundation
import ImageCodec
import Testing

/// WebP decoded straight to the needed size, animated WebP's first frame, and the incremental decoder.
@Suite struct WebPScalingTests {
    static let lossy = "webp/astronaut-lossy.webp"
    static let lossless = "webp/astronaut-lossless-alpha.webp"

    @Test(arguments: [lossy, lossless])
    func decodesStraightToTheCoveringSize(file: String) throws {
        let bytes = try TestData.bytes(file)
        let full = try ImageDecoder.decode(bytes)
        let probe = AllocationProbe()
        let small = try AllocationProbe.$current.withValue(probe) {
            try ImageDecoder.decode(bytes, options: DecodingOptions(targetSize: PixelSize(width: 100, height: 70)))
        }
        #expect(small.width == 100 && small.height == 100)  // square: covering 100×70 takes 100×100
        #expect(small.scaleDenominator == 3)  // 256 / 100, rounded up
        #expect(small.pixelFormat == full.pixelFormat)
        #expect(probe.largestBytes == 100 * 100 * 4, "no full-size bitmap: largest buffer \(probe.largestBytes) bytes")
        let psnr = PixelComparison.psnr(small, try ScaleTests.areaAverage(full, width: 100, height: 100))
        #expect(psnr >= 30, "PSNR \(psnr) dB against an area average of the full decode")
        // Premultiplied output stays well-formed.
        if small.pixelFormat == .bgra32Premultiplied {
            var bad = 0
            for y in 0..<small.height {
                for x in 0..<small.width {
                    let p = (small.baseAddress + y * small.bytesPerRow + x * 4).assumingMemoryBound(to: UInt8.self)
                    if p[0] > p[3] || p[1] > p[3] || p[2] > p[3] { bad += 1 }
                }
            }
            #expect(bad == 0)
        }
    }

    @Test func animatedWebPDecodesItsFirstFrame() throws {
        let first = try TestData.bytes(Self.lossy), second = try TestData.bytes(Self.lossless)
        let animation = TestImageBuilder.animatedWebP(
            canvas: (256, 256), alpha: false,
            frames: [
                (first, 0, 0, 256, 256), (second, 0, 0, 256, 256)
            ])
        let info = try ImageDecoder.info(animation)
        #expect(info.width == 256 && info.height == 256 && !info.hasAlpha)
        let image = try ImageDecoder.decode(animation)
        #expect(PixelComparison.identical(image, try ImageDecoder.decode(first)))
        let scaled = try ImageDecoder.decode(animation, options: DecodingOptions(targetSize: PixelSize(width: 64, height: 64)))
        #expect(
            PixelComparison.identical(
                scaled, try ImageDecoder.decode(first, options: DecodingOptions(targetSize: PixelSize(width: 64, height: 64)))))
    }

    @Test func animatedFrameSmallerThanItsCanvasLeavesTheRestTransparent() throws {
        let first = try TestData.bytes(Self.lossy)
        let animation = TestImageBuilder.animatedWebP(canvas: (400, 300), alpha: true, frames: [(first, 100, 20, 256, 256)])
        let info = try ImageDecoder.info(animation)
        #expect(info.width == 400 && info.height == 300 && info.hasAlpha)
        let image = try ImageDecoder.decode(animation)
        let still = try ImageDecoder.decode(first)
        func pixel(_ i: DecodedImage, _ x: Int, _ y: Int) -> UInt32 {
            i.baseAddress.load(fromByteOffset: y * i.bytesPerRow + x * 4, as: UInt32.self)
        }
        #expect(pixel(image, 0, 0) == 0 && pixel(image, 399, 299) == 0 && pixel(image, 50, 150) == 0)
        #expect(pixel(image, 100, 20) == pixel(still, 0, 0))
        #expect(pixel(image, 355, 275) == pixel(still, 255, 255))
    }
}
