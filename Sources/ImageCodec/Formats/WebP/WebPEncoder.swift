import CWebP

/// Encodes 32-bit bitmaps as WebP with libwebp's simple API, for benchmarks and tests that make
/// large or unusual inputs at run time (the library itself only decodes WebP).
package enum WebPEncoder {
    /// The WebP bytes of `height` rows of `width` BGRA pixels (rows `bytesPerRow` apart): lossy at
    /// `quality` (0–100), or lossless when `quality` is nil.
    package static func encode(bgra pixels: UnsafeRawPointer, width: Int, height: Int, bytesPerRow: Int, quality: Float?) throws -> [UInt8]
    {
        guard width > 0, height > 0, width <= 16383, height <= 16383, bytesPerRow >= width * 4 else {
            throw ImageCacheError(
                .invalidArgument,
                "Cannot encode a \(width)×\(height) WebP with \(bytesPerRow) bytes per row: WebP sides are 1 to 16383 pixels.")
        }
        var output: UnsafeMutablePointer<UInt8>?
        let source = pixels.assumingMemoryBound(to: UInt8.self)
        let size =
            quality.map { WebPEncodeBGRA(source, Int32(width), Int32(height), Int32(bytesPerRow), $0, &output) }
            ?? WebPEncodeLosslessBGRA(source, Int32(width), Int32(height), Int32(bytesPerRow), &output)
        guard size > 0, let output else {
            throw ImageCacheError(.invalidArgument, "libwebp could not encode the \(width)×\(height) image.")
        }
        defer { WebPFree(output) }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }
}
