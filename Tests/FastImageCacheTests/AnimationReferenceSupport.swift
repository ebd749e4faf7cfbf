import FICTestSupport
@testable import FastImageCache

extension PillowFrames {
    /// The pixels of `image` (premultiplied BGRA, as the cache stores) that differ from Pillow's
    /// frame `n` (straight RGBA, premultiplied here with rounding, as the package premultiplies)
    /// by more than `tolerance` in a channel; every pixel when the sizes differ.
    func differingPixels(_ image: CachedImage, frame n: Int, tolerance: Int) -> Int {
        guard image.width == width, image.height == height, image.style == .bgra32Premultiplied else { return width * height }
        let reference = frames[n]
        return image.withUnsafeBytes { p in
            var count = 0
            for y in 0..<height {
                for x in 0..<width {
                    let r = (y * width + x) * 4, o = y * image.bytesPerRow + x * 4
                    let alpha = Int(reference[r + 3])
                    let expected = [reference[r + 2], reference[r + 1], reference[r]].map { (Int($0) * alpha + 127) / 255 } + [alpha]
                    if (0..<4).contains(where: { abs(Int(p[o + $0]) - expected[$0]) > tolerance }) { count += 1 }
                }
            }
            return count
        }
    }
}
