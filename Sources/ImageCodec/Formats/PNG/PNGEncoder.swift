import Glibc
import CSpng

/// Encodes bitmaps as PNG with libspng.
///
/// ``PixelFormat/bgra32Premultiplied`` is un-premultiplied to 8-bit RGBA; ``PixelFormat/bgrx32``
/// and ``PixelFormat/rgb565`` become 8-bit RGB; ``PixelFormat/gray8`` becomes 8-bit grayscale.
public enum PNGEncoder {
    /// The PNG file bytes for `height` rows of `width` pixels in `format`, rows `bytesPerRow` apart.
    public static func encode(pixels: UnsafeRawPointer, width: Int, height: Int, bytesPerRow: Int, format: PixelFormat) throws -> [UInt8] {
        guard width > 0, height > 0, width <= Int(Int32.max), height <= Int(Int32.max), bytesPerRow >= width * format.bytesPerPixel else {
            throw ImageCacheError(
                .invalidArgument,
                "Cannot encode a \(width)×\(height) \(format.rawValue) bitmap with \(bytesPerRow) bytes per row: sizes must be positive and rows at least \(max(width, 0) * format.bytesPerPixel) bytes."
            )
        }
        let layout = PNGRowLayout(format: format)
        let rowLength = width * layout.channels
        let (total, overflow) = rowLength.multipliedReportingOverflow(by: height)
        guard !overflow else {
            throw ImageCacheError(.dimensionsTooLarge, "A \(width)×\(height) PNG is too large to encode in memory.")
        }
        var converted = [UInt8](repeating: 0, count: total)
        converted.withUnsafeMutableBufferPointer { out in
            for y in 0..<height {
                layout.convert(row: pixels + y * bytesPerRow, width: width, into: out.baseAddress! + y * rowLength)
            }
        }
        guard let context = spng_ctx_new(Int32(SPNG_CTX_ENCODER.rawValue)) else {
            throw ImageCacheError(.overMemoryBudget, "Could not allocate a PNG encoder: out of memory.")
        }
        defer { spng_ctx_free(context) }
        try check(spng_set_option(context, SPNG_ENCODE_TO_BUFFER, 1))
        var ihdr = spng_ihdr(
            width: UInt32(width), height: UInt32(height), bit_depth: 8, color_type: layout.colorType,
            compression_method: 0, filter_method: 0, interlace_method: 0
        )
        try check(spng_set_ihdr(context, &ihdr))
        try converted.withUnsafeBytes { buffer in
            try check(
                spng_encode_image(
                    context, buffer.baseAddress, buffer.count, Int32(SPNG_FMT_PNG.rawValue), Int32(SPNG_ENCODE_FINALIZE.rawValue)))
        }
        var length = 0
        var error: Int32 = 0
        guard let output = spng_get_png_buffer(context, &length, &error) else {
            try check(error == 0 ? Int32(SPNG_EINTERNAL.rawValue) : error)
            return []
        }
        defer { free(output) }
        return Array(UnsafeRawBufferPointer(start: output, count: length))
    }

    /// Encodes like ``encode(pixels:width:height:bytesPerRow:format:)`` and writes the file at `path`
    /// (created or truncated). I/O failures are `ImageCacheError.Code.io` errors
    /// carrying `path` and `errno`.
    public static func write(pixels: UnsafeRawPointer, width: Int, height: Int, bytesPerRow: Int, format: PixelFormat, to path: String)
        throws
    {
        let bytes = try encode(pixels: pixels, width: width, height: height, bytesPerRow: bytesPerRow, format: format)
        try FileWriter.write(bytes, to: path)
    }

    private static func check(_ code: Int32) throws {
        guard code != 0 else { return }
        throw ImageCacheError(.invalidArgument, "libspng could not encode the PNG: \(String(cString: spng_strerror(code))).")
    }
}
