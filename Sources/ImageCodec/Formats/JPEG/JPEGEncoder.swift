import CImageCodecSupport
import Glibc

/// Encodes bitmaps as baseline JPEG with libjpeg-turbo (4:2:0, its standard tables scaled to the
/// quality), straight from 32-bit BGRX rows.
///
/// JPEG has no alpha: ``PixelFormat/bgra32Premultiplied`` pixels are encoded as they are
/// composited over black (premultiplied samples are exactly that), as `vips dzsave` flattens.
public enum JPEGEncoder {
    /// The JPEG file bytes for `height` rows of `width` pixels in `format` (``PixelFormat/bgrx32``
    /// or ``PixelFormat/bgra32Premultiplied``), rows `bytesPerRow` apart, at `quality` (1…100).
    ///
    /// - Throws: `ImageCacheError` `.invalidArgument` for other formats or bad sizes, or
    ///   libjpeg's message when it fails (out of memory).
    public static func encode(pixels: UnsafeRawPointer, width: Int, height: Int, bytesPerRow: Int, format: PixelFormat, quality: Int = 85)
        throws -> [UInt8]
    {
        try encode(pixels: pixels, width: width, height: height, bytesPerRow: bytesPerRow, format: format, quality: quality, tables: nil)
    }

    /// The same, the chroma at `chromaQuality` where given, with `tables` in place of the
    /// qualities' where given (a source JPEG's own, ``JPEGQuantization``; a grey source's chroma
    /// stays the quality's), and the Huffman tables `huffman` chooses.
    package static func encode(
        pixels: UnsafeRawPointer, width: Int, height: Int, bytesPerRow: Int, format: PixelFormat, quality: Int,
        chromaQuality: Int? = nil, tables: JPEGQuantization?, huffman: JPEGHuffmanCoding = .standard
    ) throws -> [UInt8] {
        guard format == .bgrx32 || format == .bgra32Premultiplied else {
            throw ImageCacheError(.invalidArgument, "JPEG encodes 32-bit BGRX or BGRA bitmaps, not \(format.rawValue).")
        }
        guard width > 0, height > 0, width <= 65_535, height <= 65_535, bytesPerRow >= width * 4 else {
            throw ImageCacheError(
                .invalidArgument,
                "Cannot encode a \(width)×\(height) bitmap with \(bytesPerRow) bytes per row as JPEG: sides must be 1…65535 pixels and rows at least \(max(width, 0) * 4) bytes."
            )
        }
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        var message = [CChar](repeating: 0, count: Int(FIC_JPEG_ENCODE_MESSAGE_LENGTH))
        // Each table as a pointer for the call, or NULL (the quality's own).
        func withTable<R>(_ steps: [UInt16]?, _ body: (UnsafePointer<UInt16>?) -> R) -> R {
            guard let steps else { return body(nil) }
            return steps.withUnsafeBufferPointer { body($0.baseAddress) }
        }
        let optimize: Int32 = if case .optimized = huffman { 1 } else { 0 }
        func encode(_ given: UnsafePointer<fic_jpeg_huffman>?) -> Int32 {
            withTable(tables?.luma) { luma in
                withTable(tables?.chroma) { chroma in
                    fic_jpeg_encode_bgrx(
                        pixels.assumingMemoryBound(to: UInt8.self), Int32(width), Int32(height), bytesPerRow,
                        Int32(max(1, min(100, quality))), Int32(chromaQuality.map { max(1, min(100, $0)) } ?? 0), luma, chroma, optimize,
                        given, &output, &size, &message)
                }
            }
        }
        let failed: Int32
        if case .tables(let derived) = huffman {
            failed = withUnsafePointer(to: derived.tables) { encode($0) }
        } else {
            failed = encode(nil)
        }
        defer { free(output) }
        guard failed == 0, let output else {
            throw ImageCacheError(
                .overMemoryBudget,
                "libjpeg could not encode a \(width)×\(height) JPEG: \(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))."
            )
        }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }
}
