#if canImport(FoundationEssentials)
import FoundationEssentials  // ContiguousBytes
#else
import Foundation
#endif
import CWebP

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
    /// - Throws: ``ImageCacheError/Code/truncated`` when `bytes` ends before the header does, or
    ///   the error a decode would report for a header that is not an image or is damaged.
    public static func estimatedMemory(_ bytes: some ContiguousBytes, options: DecodingOptions = .init()) throws -> DecodeMemoryEstimate {
        try bytes.withUnsafeBytes { buffer in
            let (format, data) = try locate(buffer)
            switch format {
            case .jpeg: return try MemoryEstimator.jpeg(data, options: options)
            case .png: return try MemoryEstimator.png(data, options: options)
            case .webp: return try MemoryEstimator.webp(data, options: options)
            }
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

/// The per-format arithmetic of ``ImageDecoder/estimatedMemory(_:options:)``. Sums saturate:
/// hostile headers cannot make them trap.
enum MemoryEstimator {
    /// Decoder state that does not grow with the image (tables, zlib's window, libwebp's contexts).
    static let fixedOverhead = 512 << 10

    static func bitmap(_ width: Int, _ height: Int, orientation: ImageOrientation, options: DecodingOptions) -> Int {
        let bytes = multiply(multiply(width, height), 4)
        return options.applyOrientation && orientation != .up ? add(bytes, bytes) : bytes
    }

    static func jpeg(_ data: UnsafeRawBufferPointer, options: DecodingOptions) throws -> DecodeMemoryEstimate {
        let header = try JPEGImageDecoder.header(data)
        let info = header.info
        let (d, size) = JPEGImageDecoder.sizes(for: info, target: options.targetSize)
        let output = bitmap(size.width, size.height, orientation: info.orientation, options: options)
        // Strips: a few full-width rows per component, and the DCT-scaled strip being resampled.
        var working = add(fixedOverhead, add(multiply(info.width, 48), multiply((info.width + d - 1) / d, 64 + 16)))
        if header.raw.multiple_scans != 0 {
            let coefficients = Int(clamping: header.raw.coefficient_bytes)
            working = add(working, add(coefficients, coefficients / 32))  // blocks rounded up to whole MCUs
        }
        return DecodeMemoryEstimate(info: info, outputBytes: output, workingBytes: working, encodedBytes: 0)
    }

    static func png(_ data: UnsafeRawBufferPointer, options: DecodingOptions) throws -> DecodeMemoryEstimate {
        // The IHDR chunk: length 13, "IHDR", width, height, depth, color type, …, interlace.
        guard data.count >= 33 else {
            throw ImageCacheError(.truncated, "The PNG data ends before its header does. The file was cut short; download or copy it again.")
        }
        guard data[12] == 0x49, data[13] == 0x48, data[14] == 0x44, data[15] == 0x52 else {
            throw ImageCacheError(.corruptData, "The PNG does not start with its IHDR chunk. The file is damaged.")
        }
        func uint32(_ at: Int) -> Int { Int(data[at]) << 24 | Int(data[at + 1]) << 16 | Int(data[at + 2]) << 8 | Int(data[at + 3]) }
        let width = uint32(16), height = uint32(20), depth = Int(data[24]), colorType = Int(data[25]), interlaced = data[28] != 0
        try PixelLimits.check(width: width, height: height, maximumPixelCount: Int.max / 8, format: "PNG")
        let channels = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][colorType] ?? 4
        let hasAlpha = colorType == 4 || colorType == 6  // tRNS is not looked for: the estimate does not depend on it
        let info = ImageInfo(format: .png, width: width, height: height, orientation: .up, hasAlpha: hasAlpha)
        let size = PNGImageDecoder.sizes(for: info, target: options.targetSize).output
        // The orientation (eXIf) is not read here: assume the upright copy.
        let output = bitmap(size.width, size.height, orientation: options.applyOrientation ? .right : .up, options: options)
        let rowBytes = add(multiply(multiply(width, channels), max(depth, 1)) / 8, 1)
        var working = add(fixedOverhead, add(multiply(rowBytes, 3), multiply(width, 48)))
        if interlaced { working = add(working, multiply(rowBytes, height)) }
        return DecodeMemoryEstimate(info: info, outputBytes: output, workingBytes: working, encodedBytes: 0)
    }

    static func webp(_ data: UnsafeRawBufferPointer, options: DecodingOptions) throws -> DecodeMemoryEstimate {
        let features = try WebPImageDecoder.features(data)
        let width = Int(features.width), height = Int(features.height)
        let info = ImageInfo(format: .webp, width: width, height: height, orientation: WebPEXIF.orientation(data), hasAlpha: features.has_alpha != 0)
        let size = TargetScale.coveringSize(for: info, target: options.targetSize)
        let output = bitmap(size.width, size.height, orientation: info.orientation, options: options)
        let pixels = multiply(width, height)
        var working = add(fixedOverhead, multiply(width, 96))  // rows of YUV, filter and scaler state
        switch features.format {
        case 2: working = add(working, multiply(pixels, 4))  // VP8L decodes all of its ARGB first
        case 1: if features.has_alpha != 0 { working = add(working, pixels) }  // the alpha plane
        default: working = add(working, multiply(pixels, 5))  // an animation's frame: assume the worst
        }
        return DecodeMemoryEstimate(info: info, outputBytes: output, workingBytes: working, encodedBytes: 0)
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
