/// Checks claimed image dimensions before anything is allocated for them.
enum PixelLimits {
    /// Throws unless `width × height` is positive, at most `maximumPixelCount`, and
    /// `width × height × 4` bytes can be addressed.
    static func check(width: Int, height: Int, maximumPixelCount: Int, format: String) throws {
        guard width > 0, height > 0 else {
            throw ImageCacheError(
                .corruptData,
                "The \(format) header claims a size of \(width)×\(height) pixels; an image needs at least 1×1. The file is damaged."
            )
        }
        guard maximumPixelCount > 0 else {
            throw ImageCacheError(.invalidArgument, "maximumPixelCount must be positive, not \(maximumPixelCount).")
        }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        let (_, bytesOverflow) = pixels.multipliedReportingOverflow(by: 4)
        guard !overflow, !bytesOverflow, pixels <= maximumPixelCount else {
            throw ImageCacheError(
                .dimensionsTooLarge,
                "The \(format) image is \(width)×\(height) pixels, over the limit of \(maximumPixelCount) pixels; it was refused before decoding. Raise DecodingOptions.maximumPixelCount if such images are expected."
            )
        }
    }
}
