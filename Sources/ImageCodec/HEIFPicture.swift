import CHeif

/// One image of a HEIF file decoded by libheif — rotated, mirrored, cropped and (for a grid)
/// assembled by it — as interleaved RGB(A): 8 bits a sample, or for 10- and 12-bit images 16-bit
/// containers holding the file's own range. It becomes the package's pixels through
/// ``SamplePipeline``, at full size or shrunk row by row to a smaller one.
final class HEIFPicture {
    /// libheif's decoded image.
    private let image: OpaquePointer
    /// Size in pixels.
    let width: Int, height: Int
    /// Whether the samples carry alpha.
    let hasAlpha: Bool
    /// Whether the colour samples are premultiplied by alpha (undone before the pipeline, which
    /// converts colour before it premultiplies).
    let isPremultiplied: Bool
    /// Bits of each sample's range: 8, or up to 16 in 16-bit containers.
    let bits: Int
    /// The first row, and the distance between rows.
    private let plane: UnsafePointer<UInt8>
    private let stride: Int
    /// What libheif decoded past (in lenient decoding).
    let warnings: [String]

    /// Decodes `handle`, with alpha when `alpha`, in 16-bit containers when `highBitDepth`;
    /// `strict` makes libheif refuse what it would otherwise decode past.
    init(_ handle: HEIFHandle, alpha: Bool, highBitDepth: Bool, strict: Bool, file: HEIFFile) throws {
        guard let options = heif_decoding_options_alloc() else {
            throw ImageCacheError(.overMemoryBudget, "libheif could not allocate its decoding options.")
        }
        defer { heif_decoding_options_free(options) }
        options.pointee.ignore_transformations = 0
        options.pointee.convert_hdr_to_8bit = highBitDepth ? 0 : 1
        options.pointee.strict_decoding = strict ? 1 : 0
        let chroma: heif_chroma = switch (alpha, highBitDepth) {
        case (false, false): heif_chroma_interleaved_RGB
        case (true, false): heif_chroma_interleaved_RGBA
        case (false, true): heif_chroma_interleaved_RRGGBB_LE
        case (true, true): heif_chroma_interleaved_RRGGBBAA_LE
        }
        var decoded: OpaquePointer?
        try HEIFError.check(heif_decode_image(handle.handle, &decoded, heif_colorspace_RGB, chroma, options),
                            format: file.formatName, maximumDimension: file.maximumDimension)
        guard let decoded else {
            throw ImageCacheError(.corruptData, "libheif decoded the \(file.formatName) image into nothing. The file is damaged.")
        }
        image = decoded
        width = Int(heif_image_get_width(decoded, heif_channel_interleaved))
        height = Int(heif_image_get_height(decoded, heif_channel_interleaved))
        hasAlpha = alpha
        isPremultiplied = alpha && handle.isPremultiplied
        let storage = Int(heif_image_get_bits_per_pixel(decoded, heif_channel_interleaved))
        let range = Int(heif_image_get_bits_per_pixel_range(decoded, heif_channel_interleaved))
        var rowStride: Int32 = 0
        let first = heif_image_get_plane_readonly(decoded, heif_channel_interleaved, &rowStride)
        let channels = alpha ? 4 : 3
        let bytesPerSample = highBitDepth ? 2 : 1
        // What libheif hands back must be what was asked for before a byte of it is read.
        guard heif_image_get_colorspace(decoded) == heif_colorspace_RGB, heif_image_get_chroma_format(decoded) == chroma,
              width > 0, height > 0, let first, storage == channels * bytesPerSample * 8,
              highBitDepth ? (1...16).contains(range) : range == 8,
              Int(rowStride) >= width * channels * bytesPerSample else {
            heif_image_release(decoded)
            throw ImageCacheError(.corruptData,
                "libheif decoded the \(file.formatName) image into an unexpected layout (\(width)×\(height), \(storage) bits a pixel). The file is damaged.")
        }
        bits = range
        plane = first
        stride = Int(rowStride)
        warnings = Self.warnings(of: decoded)
    }

    deinit {
        heif_image_release(image)
    }

    /// The warnings libheif attached to `image`.
    private static func warnings(of image: OpaquePointer) -> [String] {
        let count = min(Int(heif_image_get_decoding_warnings(image, 0, nil, 0)), 32)
        guard count > 0 else { return [] }
        var found = [heif_error](repeating: heif_error(), count: count)
        let filled = Int(heif_image_get_decoding_warnings(image, 0, &found, Int32(count)))
        return found.prefix(max(0, min(filled, count))).map { warning in
            "libheif: " + (warning.message.map { String(cString: $0) } ?? "warning \(warning.code.rawValue)/\(warning.subcode.rawValue)")
        }
    }

    /// The pipeline's layout for these samples (16-bit ones once scaled to the full range).
    var layout: SamplePipeline.Layout {
        switch (hasAlpha, bits > 8) {
        case (false, false): .rgb8
        case (true, false): .rgba8
        case (false, true): .rgb16
        case (true, true): .rgba16
        }
    }

    /// Writes the picture into `output` through `pipeline`: row by row when the sizes agree,
    /// else shrunk by an ``AreaResampler`` (each output pixel the average of the area it covers).
    func write(into output: DecodedImage, pipeline: SamplePipeline) throws {
        precondition(output.width <= width && output.height <= height)
        let channels = hasAlpha ? 4 : 3
        // Samples rewritten before the pipeline: scaled to 16 bits, alpha un-premultiplied.
        let rewrite = bits > 8 || isPremultiplied
        let resample = output.width != width || output.height != height
        let rewrittenBytes = rewrite ? width * channels * (bits > 8 ? 2 : 1) : 0
        let scratch = try LargeBufferPool.allocate(byteCount: max(1, rewrittenBytes + (resample ? width * 4 : 0)), zeroed: false)
        let rewritten = scratch.base
        let shrinkRow = (scratch.base + rewrittenBytes).assumingMemoryBound(to: UInt32.self)
        let rowPixels = output.bytesPerRow / 4
        let pixels = output.baseAddress.assumingMemoryBound(to: UInt32.self)
        var resampler = resample
            ? AreaResampler(sourceWidth: width, sourceHeight: height, outputWidth: output.width, outputHeight: output.height) : nil
        let scale = SampleScale(bits: bits)
        for y in 0..<height {
            var source = UnsafeRawPointer(plane + y * stride)
            if rewrite {
                if bits > 8 {
                    scale.rewrite(source, into: rewritten, pixels: width, channels: channels, premultiplied: isPremultiplied)
                } else {
                    Self.unpremultiply8(source, into: rewritten, pixels: width)
                }
                source = UnsafeRawPointer(rewritten)
            }
            if resampler != nil {
                pipeline.convert(source, to: shrinkRow, count: width)
                resampler!.add(shrinkRow) { pixels + $0 * rowPixels }
            } else {
                pipeline.convert(source, to: pixels + y * rowPixels, count: width)
            }
        }
    }

    /// RGBA with premultiplied colour to straight colour, 8 bits a sample.
    private static func unpremultiply8(_ source: UnsafeRawPointer, into destination: UnsafeMutableRawPointer, pixels: Int) {
        let s = source.assumingMemoryBound(to: UInt8.self), d = destination.assumingMemoryBound(to: UInt8.self)
        for i in 0..<pixels {
            let a = UInt32(s[4 * i + 3])
            for c in 0..<3 { d[4 * i + c] = UInt8(PixelConversion.unpremultiply(UInt32(s[4 * i + c]), a)) }
            d[4 * i + 3] = UInt8(a)
        }
    }
}

/// Little-endian samples of `bits` bits in 16-bit containers to native 16-bit full range (what
/// ``SamplePipeline`` takes), rounded: `v × 65535 / (2^bits − 1)`; out-of-range values clamp.
struct SampleScale {
    let maximum: UInt32
    /// `65535 / maximum` in 16.16 fixed point, rounded: one multiply per sample instead of a division.
    private let factor: UInt64

    init(bits: Int) {
        maximum = UInt32((1 << max(1, min(bits, 16))) - 1)
        factor = (UInt64(65535) << 32 + UInt64(maximum) / 2) / UInt64(maximum)
    }

    /// The full-range value of `value`.
    @inline(__always)
    func scale(_ value: UInt32) -> UInt16 {
        UInt16((UInt64(min(value, maximum)) &* factor &+ (1 << 31)) >> 32)
    }

    /// Rewrites one row of `pixels` pixels of `channels` samples; with `premultiplied` (and
    /// alpha, the fourth sample), colour is divided by alpha first, in the file's own range.
    func rewrite(_ source: UnsafeRawPointer, into destination: UnsafeMutableRawPointer, pixels: Int, channels: Int, premultiplied: Bool) {
        let d = destination.assumingMemoryBound(to: UInt16.self)
        @inline(__always) func sample(_ index: Int) -> UInt32 {
            UInt32(UInt16(littleEndian: source.loadUnaligned(fromByteOffset: index * 2, as: UInt16.self)))
        }
        if premultiplied && channels == 4 {
            for i in 0..<pixels {
                let a = min(sample(4 * i + 3), maximum)
                for c in 0..<3 {
                    let v = sample(4 * i + c)
                    d[4 * i + c] = a == 0 ? 0 : scale(min(maximum, (min(v, maximum) * maximum + a / 2) / a))
                }
                d[4 * i + 3] = scale(a)
            }
        } else {
            for i in 0..<(pixels * channels) { d[i] = scale(sample(i)) }
        }
    }
}
