import Foundation
import Testing
@testable import ImageCodec

/// The JPEG encoder, checked by decoding what it wrote.
@Suite struct JPEGEncoderTests {
    /// A photo decoded, encoded at quality 95 and decoded again is the same picture.
    @Test func aPhotoSurvivesAnEncode() throws {
        let photo = try ImageDecoder.decode(try TestData.bytes("photos/chelsea.jpg"))
        let bytes = try JPEGEncoder.encode(
            pixels: photo.baseAddress, width: photo.width, height: photo.height,
            bytesPerRow: photo.bytesPerRow, format: photo.pixelFormat, quality: 95)
        #expect(bytes.starts(with: [0xFF, 0xD8, 0xFF]))
        let again = try ImageDecoder.decode(bytes)
        #expect(again.width == photo.width && again.height == photo.height)
        #expect(PixelComparison.psnr(photo, again) >= 38)
    }

    /// Premultiplied pixels are encoded as they show over black: a pixel half covered by red is
    /// dark red, a transparent one black.
    @Test func alphaIsFlattenedOverBlack() throws {
        let width = 64, height = 32
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 4
                switch x / 16 {
                case 0: pixels[i..<i + 4] = [0, 0, 255, 255]  // opaque red (B, G, R, A)
                case 1: pixels[i..<i + 4] = [0, 0, 128, 128]  // red, half covering
                case 2: pixels[i..<i + 4] = [0, 0, 0, 0]  // transparent
                default: pixels[i..<i + 4] = [200, 100, 50, 255]  // opaque
                }
            }
        }
        let bytes = try pixels.withUnsafeBytes {
            try JPEGEncoder.encode(
                pixels: $0.baseAddress!, width: width, height: height, bytesPerRow: width * 4, format: .bgra32Premultiplied, quality: 100)
        }
        let decoded = try ImageDecoder.decode(bytes)
        func red(atColumn x: Int) -> Int { Int((decoded.baseAddress + 8 * decoded.bytesPerRow + x * 4 + 2).load(as: UInt8.self)) }
        #expect(abs(red(atColumn: 8) - 255) <= 4)
        #expect(abs(red(atColumn: 24) - 128) <= 4)
        #expect(red(atColumn: 40) <= 4)
    }

    @Test func otherFormatsAndBadSizesAreRefused() {
        let pixels = [UInt8](repeating: 0, count: 64)
        pixels.withUnsafeBytes { raw in
            #expect(throws: ImageCacheError.self) {
                try JPEGEncoder.encode(pixels: raw.baseAddress!, width: 4, height: 4, bytesPerRow: 8, format: .rgb565)
            }
            #expect(throws: ImageCacheError.self) {
                try JPEGEncoder.encode(pixels: raw.baseAddress!, width: 4, height: 4, bytesPerRow: 8, format: .bgrx32)
            }
            #expect(throws: ImageCacheError.self) {
                try JPEGEncoder.encode(pixels: raw.baseAddress!, width: 0, height: 4, bytesPerRow: 16, format: .bgrx32)
            }
        }
    }
}
