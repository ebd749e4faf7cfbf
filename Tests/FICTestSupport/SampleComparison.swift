import Foundation

/// How far two runs of 8-bit samples are apart: the arithmetic every pixel comparison of the tests
/// shares.
///
/// Plain loops over pointers, on purpose: the tests run in the debug build (under Address
/// Sanitizer in CI), where `zip`, `map`, a generic `max` or `abs`, or `==` of two `[UInt8]`, go
/// through the Swift runtime's generic code for each sample (tens of nanoseconds each, a few
/// million samples a picture).
public enum SampleComparison {
    /// The sum of the squared differences of `a` and `b` (of equal length) and how many samples
    /// it covers: all of them, or with `skippingFourth`, the first three of every four (B, G, R
    /// of BGRA pixels, without alpha).
    public static func squaredError(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer, skippingFourth: Bool = false) -> (
        sum: Int, count: Int
    ) {
        precondition(a.count == b.count, "sample runs of different lengths")
        guard let p = a.baseAddress?.assumingMemoryBound(to: UInt8.self), let q = b.baseAddress?.assumingMemoryBound(to: UInt8.self)
        else { return (0, 0) }
        var sum = 0, count = 0, i = 0
        let n = a.count
        while i < n {
            if !skippingFourth || i & 3 != 3 {
                let d = Int(p[i]) - Int(q[i])
                sum += d * d
                count += 1
            }
            i += 1
        }
        return (sum, count)
    }

    /// Peak signal-to-noise ratio, in dB (infinity when equal), of `a` against `b` (of equal
    /// length): every sample, or with `skippingFourth` the first three of every four.
    public static func psnr(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer, skippingFourth: Bool = false) -> Double {
        let (sum, count) = squaredError(a, b, skippingFourth: skippingFourth)
        precondition(count > 0, "no samples to compare")
        return psnr(squaredError: Double(sum), count: count)
    }

    /// Peak signal-to-noise ratio, in dB, of samples whose squared differences add up to
    /// `squaredError` over `count` samples (infinity when it is zero).
    public static func psnr(squaredError: Double, count: Int) -> Double {
        squaredError == 0 ? .infinity : 10 * log10(255 * 255 / (squaredError / Double(count)))
    }

    /// The largest difference of any sample of `a` and `b` (of equal length).
    public static func largestDifference(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        precondition(a.count == b.count, "sample runs of different lengths")
        guard let p = a.baseAddress?.assumingMemoryBound(to: UInt8.self), let q = b.baseAddress?.assumingMemoryBound(to: UInt8.self)
        else { return 0 }
        var largest = 0, i = 0
        let n = a.count
        while i < n {
            let d = Int(p[i]) - Int(q[i])
            if d > largest { largest = d } else if -d > largest { largest = -d }
            i += 1
        }
        return largest
    }

    /// `height` rows of `rowBytes` bytes each, `bytesPerRow` apart from `base`, side by side
    /// without padding: the runs the comparisons above take.
    public static func packedRows(_ base: UnsafeRawPointer, height: Int, rowBytes: Int, bytesPerRow: Int) -> [UInt8] {
        var packed = [UInt8](repeating: 0, count: height * rowBytes)
        packed.withUnsafeMutableBytes { packed in
            for y in 0..<height {
                (packed.baseAddress! + y * rowBytes).copyMemory(from: base + y * bytesPerRow, byteCount: rowBytes)
            }
        }
        return packed
    }

    /// Whether `a` and `b` hold the same bytes.
    public static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        a.count == b.count && (a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0)
    }
}
