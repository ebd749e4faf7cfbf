import FICTestSupport
import Foundation
import ImageCodec

/// Measures how far two 32-bit bitmaps of the same size are apart.
enum PixelComparison {
    /// Peak signal-to-noise ratio, in dB (infinity when identical), of two runs of 8-bit samples
    /// of the same length (for example interleaved R, G, B).
    static func psnr(samples a: [UInt8], _ b: [UInt8]) -> Double {
        precondition(a.count == b.count && !a.isEmpty, "sample runs of different lengths")
        return a.withUnsafeBytes { a in b.withUnsafeBytes { b in SampleComparison.psnr(a, b) } }
    }

    /// Peak signal-to-noise ratio over the B, G, R channels, in dB (infinity when identical).
    static func psnr(_ a: DecodedImage, _ b: DecodedImage) -> Double {
        var squared = 0, count = 0
        for y in 0..<a.height {
            let (sum, samples) = SampleComparison.squaredError(row(a, y), row(b, y), skippingFourth: true)
            squared += sum
            count += samples
        }
        return SampleComparison.psnr(squaredError: Double(squared), count: count)
    }

    /// The largest difference of any channel (including alpha / X) between `a` and `b`.
    static func maximumDifference(_ a: DecodedImage, _ b: DecodedImage) -> Int {
        var largest = 0
        for y in 0..<a.height { largest = Swift.max(largest, SampleComparison.largestDifference(row(a, y), row(b, y))) }
        return largest
    }

    /// The BGRA (or BGRX) pixels of `image`, its rows side by side without padding.
    static func packed(_ image: DecodedImage) -> [UInt8] {
        SampleComparison.packedRows(image.baseAddress, height: image.height, rowBytes: image.width * 4, bytesPerRow: image.bytesPerRow)
    }

    /// Row `y` of `image`, without padding (`image.width` BGRA pixels).
    private static func row(_ image: DecodedImage, _ y: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: image.baseAddress + y * image.bytesPerRow, count: image.width * 4)
    }

    /// Whether the pixel bytes of `a` and `b` (without row padding) are identical.
    static func identical(_ a: DecodedImage, _ b: DecodedImage) -> Bool {
        guard a.width == b.width, a.height == b.height else { return false }
        for y in 0..<a.height where memcmp(a.baseAddress + y * a.bytesPerRow, b.baseAddress + y * b.bytesPerRow, a.width * 4) != 0 {
            return false
        }
        return true
    }

    /// PSNR over R, G, B, in dB, of two bitmaps of the same size as they look on a grey 128
    /// background: a premultiplied pixel shows `c + 128 × (255 − a) / 255`; a bitmap without alpha
    /// is opaque whatever its fourth byte holds.
    static func psnrOnGrey(_ a: DecodedImage, _ b: DecodedImage) -> Double {
        var squared = 0.0
        for y in 0..<a.height {
            let rowA = (a.baseAddress + y * a.bytesPerRow).assumingMemoryBound(to: UInt8.self)
            let rowB = (b.baseAddress + y * b.bytesPerRow).assumingMemoryBound(to: UInt8.self)
            for x in 0..<a.width {
                let greyA = a.pixelFormat.hasAlpha ? (128 * (255 - Int(rowA[x * 4 + 3])) + 127) / 255 : 0
                let greyB = b.pixelFormat.hasAlpha ? (128 * (255 - Int(rowB[x * 4 + 3])) + 127) / 255 : 0
                for c in 0..<3 {
                    let d = Double(Int(rowA[x * 4 + c]) + greyA - Int(rowB[x * 4 + c]) - greyB)
                    squared += d * d
                }
            }
        }
        let mse = squared / Double(a.width * a.height * 3)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }
}
