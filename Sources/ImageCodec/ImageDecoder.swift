#if canImport(FoundationEssentials)
import FoundationEssentials  // ContiguousBytes
#else
import Foundation
#endif

/// Decodes JPEG, PNG and WebP images into cairo-compatible bitmaps.
///
/// The format is always sniffed from the bytes, never taken from a file name. Every failure is an
/// ``ImageCacheError``; damaged input never yields a partially decoded image unless
/// ``DecodingOptions/allowCorruptData`` is set.
public enum ImageDecoder {
    /// The format `bytes` start with (JPEG `FF D8 FF`, the PNG signature, or `RIFF….WEBP`), or `nil`.
    public static func sniffFormat(_ bytes: UnsafeRawBufferPointer) -> ImageFileFormat? {
        FormatSniffer.format(of: bytes)
    }

    /// Reads only the header: format, stored size, EXIF orientation and whether there is alpha.
    public static func info(_ bytes: some ContiguousBytes) throws -> ImageInfo {
        try bytes.withUnsafeBytes { buffer in
            switch try format(of: buffer) {
            case .jpeg: return try JPEGImageDecoder.info(buffer)
            case .png: return try PNGImageDecoder.info(buffer)
            case .webp: return try WebPImageDecoder.info(buffer)
            }
        }
    }

    /// Decodes a complete image held in memory.
    ///
    /// The result is ``PixelFormat/bgra32Premultiplied`` when the source has alpha and
    /// ``PixelFormat/bgrx32`` otherwise; upright unless `options.applyOrientation` is `false`; and,
    /// for JPEGs with `options.targetSize`, DCT-scaled (see ``jpegScaleDenominator(for:target:)``).
    public static func decode(_ bytes: some ContiguousBytes, options: DecodingOptions = .init()) throws -> DecodedImage {
        if let target = options.targetSize, target.width <= 0 || target.height <= 0 {
            throw ImageCacheError(.invalidArgument, "targetSize must be positive in both dimensions, not \(target).")
        }
        return try bytes.withUnsafeBytes { buffer in
            switch try format(of: buffer) {
            case .jpeg: return try JPEGImageDecoder.decode(buffer, options: options)
            case .png: return try PNGImageDecoder.decode(buffer, options: options)
            case .webp: return try WebPImageDecoder.decode(buffer, options: options)
            }
        }
    }

    /// Reads and decodes the file at `path`. Every error carries `path`; I/O errors also `errno`.
    public static func decode(contentsOf path: String, options: DecodingOptions = .init()) throws -> DecodedImage {
        let bytes = try FileReader.readAll(path: path)
        do {
            return try decode(bytes, options: options)
        } catch let error as ImageCacheError {
            throw error.adding(path: path)
        }
    }

    /// The sniffed format, or the error describing what the bytes are instead.
    private static func format(of buffer: UnsafeRawBufferPointer) throws -> ImageFileFormat {
        guard let format = FormatSniffer.format(of: buffer) else {
            throw FormatSniffer.unrecognisedError(buffer)
        }
        return format
    }
}
