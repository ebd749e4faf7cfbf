#if canImport(FoundationEssentials)
import FoundationEssentials  // ContiguousBytes
#else
import Foundation
#endif

/// What one decode needs in memory at its peak, estimated from the image's header alone, before
/// anything is decoded: what a caller needs to keep several decodes in flight within one budget
/// (see ``DecodeMemoryBudget``).
public struct DecodeMemoryEstimate: Sendable, Hashable {
    /// The header facts the estimate was made from.
    public var info: ImageInfo
    /// Bytes of the bitmap(s) the decode returns: the decoded size (after DCT scaling or
    /// shrinking for ``DecodingOptions/targetSize``), twice when the orientation must be applied
    /// (the upright copy is made while the stored one still exists).
    public var outputBytes: Int
    /// Bytes the decoder needs while it works, beyond the output: for a progressive JPEG its whole
    /// coefficient array (libjpeg cannot do without it: ~44 MB for 5120×2880), for a lossless WebP
    /// libwebp's full-size ARGB buffer, for an interlaced PNG its stored samples, otherwise a few
    /// rows and the decompressor's tables.
    public var workingBytes: Int
    /// The encoded bytes, when the estimate was made for a file (its size), else 0.
    public var encodedBytes: Int

    /// Everything together: what a decode of the file, with the file read into memory, needs.
    public var totalBytes: Int { MemoryEstimator.add(MemoryEstimator.add(outputBytes, workingBytes), encodedBytes) }
}

extension ImageDecoder {
    /// Estimates the memory a decode of `bytes` with `options` needs, from its header only.
    ///
    /// `bytes` may be just the start of a file: enough for the header (for a JPEG, up to its first
    /// scan; for a PNG its first 33 bytes; for a WebP its first chunks).
    ///
    /// - Throws: `ImageCacheError.Code.truncated` when `bytes` ends before the header does, or
    ///   the error a decode would report for a header that is not an image or is damaged.
    public static func estimatedMemory(_ bytes: some ContiguousBytes, options: DecodingOptions = .init()) throws -> DecodeMemoryEstimate {
        try bytes.withUnsafeBytes { buffer in
            let (decoder, data) = try ImageFormats.locate(buffer)
            return try decoder.estimatedMemory(data, options: options)
        }
    }

    /// Estimates the memory decoding the file at `path` with `options` needs, reading only as much
    /// of the file as its header takes (64 KiB, more only when the header is longer).
    /// ``DecodeMemoryEstimate/encodedBytes`` is the file's size. Errors carry `path`.
    public static func estimatedMemory(ofFileAt path: String, options: DecodingOptions = .init()) throws -> DecodeMemoryEstimate {
        do {
            let file = try ImageFile(path: path)
            var length = min(file.size, 64 << 10)
            while true {
                let prefix = try LargeBufferPool.allocate(byteCount: length, zeroed: false)
                let read = try file.read(into: UnsafeMutableRawBufferPointer(start: prefix.base, count: length), at: 0)
                let bytes = UnsafeRawBufferPointer(start: prefix.base, count: read)
                do {
                    var estimate = try estimatedMemory(bytes, options: options)
                    estimate.encodedBytes = file.size
                    return estimate
                } catch let error as ImageCacheError where error.code == .truncated && read < file.size && read == length {
                    length = min(file.size, length * 8)  // a long header (big EXIF, ICC, XMP): read more
                }
            }
        } catch let error as ImageCacheError {
            throw error.adding(path: path)
        }
    }
}

/// The arithmetic the formats' estimates share (``ImageFormatDecoder/estimatedMemory(_:options:)``).
/// Sums saturate: hostile headers cannot make them trap.
enum MemoryEstimator {
    /// Decoder state that does not grow with the image (tables, zlib's window, libwebp's contexts).
    static let fixedOverhead = 512 << 10

    static func bitmap(_ width: Int, _ height: Int, orientation: ImageOrientation, options: DecodingOptions) -> Int {
        let bytes = multiply(multiply(width, height), 4)
        return options.applyOrientation && orientation != .up ? add(bytes, bytes) : bytes
    }

    static func multiply(_ a: Int, _ b: Int) -> Int {
        let (product, overflow) = a.multipliedReportingOverflow(by: b)
        return overflow ? Int.max : product
    }

    static func add(_ a: Int, _ b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? Int.max : sum
    }
}
