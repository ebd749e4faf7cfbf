#if canImport(FoundationEssentials)
import FoundationEssentials  // ContiguousBytes
#else
import Foundation
#endif

/// Decodes JPEG, PNG, WebP, HEIC, AVIF, JPEG XL, GIF and TIFF images (the first frame of an
/// animation, the first page of a TIFF) into cairo-compatible bitmaps.
///
/// The format is always sniffed from the bytes, never taken from a file name. Every failure is an
/// `ImageCacheError`. By default damaged input is decoded as browsers show it — what can be
/// recovered, the rest grey — and the damage is logged and listed in ``DecodedImage/warnings``;
/// ``DecodingOptions/allowCorruptData`` set to `false` refuses it instead.
public enum ImageDecoder {
    /// The format `bytes` start with (JPEG `FF D8 FF`, the PNG signature, `RIFF….WEBP`, an `ftyp`
    /// box with a HEIF or AVIF brand, JPEG XL's `FF 0A` or container signature, `GIF87a`/`GIF89a`,
    /// TIFF's `II*\0`/`MM\0*` and BigTIFF's), or `nil`.
    public static func sniffFormat(_ bytes: UnsafeRawBufferPointer) -> ImageFileFormat? {
        ImageFormats.decoders.first { $0.sniff(bytes) == .match(offset: 0) }?.format(of: bytes)
    }

    /// Reads only the header: format, stored size, EXIF orientation and whether there is alpha.
    public static func info(_ bytes: some ContiguousBytes) throws -> ImageInfo {
        try bytes.withUnsafeBytes { buffer in
            let (decoder, data) = try ImageFormats.locate(buffer)
            return try decoder.info(data)
        }
    }

    /// Decodes a complete image held in memory.
    ///
    /// The result is ``PixelFormat/bgra32Premultiplied`` when the source has alpha and
    /// ``PixelFormat/bgrx32`` otherwise; upright unless `options.applyOrientation` is `false`; and,
    /// with `options.targetSize`, the smallest the decoder can make that still covers it (see
    /// ``DecodingOptions/targetSize``).
    public static func decode(_ bytes: some ContiguousBytes, options: DecodingOptions = .init()) throws -> DecodedImage {
        try decode(bytes, options: options, path: nil)
    }

    /// Reads and decodes the file at `path` (read with one `pread` into memory of its own, see
    /// ``ImageBytes``). Every error carries `path`; I/O errors also `errno`.
    public static func decode(contentsOf path: String, options: DecodingOptions = .init()) throws -> DecodedImage {
        do {
            return try decode(try ImageBytes(contentsOf: path), options: options)
        } catch let error as ImageCacheError {
            throw error.adding(path: path)
        }
    }

    /// Decodes bytes read from a file; warnings are logged, and errors reported, with its path.
    public static func decode(_ bytes: ImageBytes, options: DecodingOptions = .init()) throws -> DecodedImage {
        do {
            return try decode(bytes, options: options, path: bytes.path)
        } catch let error as ImageCacheError {
            throw error.adding(path: bytes.path)
        }
    }

    /// Decodes `bytes` (read from `path`, when it was). Recoverable damage decoded past is in the
    /// image's `warnings`, for the caller to report or log with its own logger: the library logs
    /// nothing itself.
    static func decode(_ bytes: some ContiguousBytes, options: DecodingOptions, path: String?) throws -> DecodedImage {
        if let target = options.targetSize, target.width <= 0 || target.height <= 0 {
            throw ImageCacheError(.invalidArgument, "targetSize must be positive in both dimensions, not \(target).")
        }
        let image = try bytes.withUnsafeBytes { buffer in
            let (decoder, data) = try ImageFormats.locate(buffer)
            let image = try decoder.decode(data, options: options)
            if data.count < buffer.count {
                image.addWarnings(["\(buffer.count - data.count) bytes of junk before the JPEG's start-of-image marker were skipped"])
            }
            return image
        }
        return image
    }
}
