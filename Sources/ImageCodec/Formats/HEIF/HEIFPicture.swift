#if HEIF
import CHeif

/// One image of a HEIF file decoded by libheif — rotated, mirrored, cropped and (for a grid)
/// assembled by it — as planar RGB (and alpha) at the file's own bit depth: libheif 1.15 always
/// turns YCbCr into RGB planes, and asking for them spares the interleaved copy it would make
/// next (a third of a decode's peak memory). The planes become the package's pixels row by row:
/// interleaved into one row of samples (16-bit ones scaled to the full range), then through
/// ``SamplePipeline``, at full size or shrunk by an ``AreaResampler``.
final class HEIFPicture {
    /// One plane of samples: 8 bits in a byte, or more in native-endian 16-bit containers.
    struct Plane {
        let base: UnsafePointer<UInt8>
        let stride: Int
        let scale: SampleScale

        /// Whether the samples take 16 bits.
        var isWide: Bool { scale.bits > 8 }

        /// The sample at `x` of row `y`.
        @inline(__always)
        func sample(_ x: Int, _ row: UnsafePointer<UInt8>) -> UInt32 {
            isWide ? UInt32(UnsafeRawPointer(row).loadUnaligned(fromByteOffset: 2 * x, as: UInt16.self)) : UInt32(row[x])
        }
    }

    /// libheif's decoded image.
    private let image: OpaquePointer
    /// Size in pixels.
    let width: Int, height: Int
    /// Red, green, blue, and alpha when there is alpha.
    private let planes: [Plane]
    /// Whether the colour samples are premultiplied by alpha (undone before the pipeline, which
    /// converts colour before it premultiplies).
    let isPremultiplied: Bool
    /// What libheif decoded past (in lenient decoding).
    let warnings: [String]

    /// Decodes `handle` with alpha when `alpha`; `strict` refuses what libheif decoded past.
    init(_ handle: HEIFHandle, alpha: Bool, strict: Bool, file: HEIFFile) throws {
        guard let options = heifLibrary.heif_decoding_options_alloc() else {
            throw ImageCacheError(.overMemoryBudget, "libheif could not allocate its decoding options.")
        }
        defer { heifLibrary.heif_decoding_options_free(options) }
        options.pointee.ignore_transformations = 0
        options.pointee.convert_hdr_to_8bit = 0
        // Never libheif's own strict decoding: its only effect is to turn the codec plugins'
        // warnings into errors, and on that path libheif 1.15's dav1d plugin leaks the decoded
        // picture and its image (a damaged AV1 sequence header's unknown colour primaries, say).
        // A lenient decode keeps the same warnings on the image, and a strict caller refuses them
        // below.
        options.pointee.strict_decoding = 0
        var decoded: OpaquePointer?
        try HEIFError.check(
            heifLibrary.heif_decode_image(handle.handle, &decoded, heif_colorspace_RGB, heif_chroma_444, options),
            format: file.formatName, maximumDimension: file.maximumDimension)
        guard let decoded else {
            throw ImageCacheError(.corruptData, "libheif decoded the \(file.formatName) image into nothing. The file is damaged.")
        }
        let found = Self.warnings(of: decoded)
        if strict, let first = found.first {
            heifLibrary.heif_image_release(decoded)
            throw ImageCacheError(.corruptData, "The \(file.formatName) file is damaged (\(first)). Re-export the image.")
        }
        image = decoded
        width = Int(heifLibrary.heif_image_get_width(decoded, heif_channel_R))
        height = Int(heifLibrary.heif_image_get_height(decoded, heif_channel_R))
        // What libheif hands back must be what was asked for before a byte of it is read: three
        // (or four) planes of the image's size, each at most 16 bits deep, rows long enough.
        var planes: [Plane] = []
        var channels = [heif_channel_R, heif_channel_G, heif_channel_B]
        if alpha && heifLibrary.heif_image_has_channel(decoded, heif_channel_Alpha) != 0 { channels.append(heif_channel_Alpha) }
        for channel in channels {
            var stride: Int32 = 0
            let bits = Int(heifLibrary.heif_image_get_bits_per_pixel_range(decoded, channel))
            guard let base = heifLibrary.heif_image_get_plane_readonly(decoded, channel, &stride), (1...16).contains(bits),
                heifLibrary.heif_image_get_width(decoded, channel) == width, heifLibrary.heif_image_get_height(decoded, channel) == height,
                Int(stride) >= width * (bits > 8 ? 2 : 1)
            else { break }
            planes.append(Plane(base: base, stride: Int(stride), scale: SampleScale(bits: bits)))
        }
        guard heifLibrary.heif_image_get_colorspace(decoded) == heif_colorspace_RGB,
            heifLibrary.heif_image_get_chroma_format(decoded) == heif_chroma_444,
            width > 0, height > 0, planes.count == channels.count
        else {
            heifLibrary.heif_image_release(decoded)
            throw ImageCacheError(
                .corruptData,
                "libheif decoded the \(file.formatName) image into an unexpected layout (\(width)×\(height), \(planes.count) planes). The file is damaged."
            )
        }
        self.planes = planes
        // An image whose alpha plane is missing is given opaque alpha by the layout below.
        isPremultiplied = planes.count == 4 && handle.isPremultiplied
        warnings = found
        hasAlpha = alpha
    }

    /// Whether the output carries alpha (what was asked for; opaque when the file had none).
    let hasAlpha: Bool

    deinit {
        heifLibrary.heif_image_release(image)
    }

    /// The warnings libheif attached to `image` (the last 32). libheif 1.15 writes every warning
    /// from the first one asked for to the last, whatever room it is given, and composes each
    /// message in one buffer of the image: once the call returns, only the last message written is
    /// valid; the others' pointers point at text written over or freed (a fuzzer's AVIF with three
    /// warnings read freed memory; asked for one at a time, libheif overran the one entry given).
    /// So the room is the whole remainder, only the last message is read, and the others are
    /// named by their codes.
    private static func warnings(of image: OpaquePointer) -> [String] {
        let total = Int(heifLibrary.heif_image_get_decoding_warnings(image, 0, nil, 0))
        guard total > 0 else { return [] }
        let first = max(0, total - 32)
        var entries = [heif_error](repeating: heif_error(), count: total - first)
        let written = Int(heifLibrary.heif_image_get_decoding_warnings(image, Int32(first), &entries, Int32(entries.count)))
        guard written > 0, written <= entries.count else { return [] }
        let codes = entries[0..<written].map { "libheif: warning \($0.code.rawValue)/\($0.subcode.rawValue)" }
        let last = entries[written - 1].message.map { "libheif: " + String(cString: $0) } ?? codes[written - 1]
        return Array(codes.dropLast()) + [last]
    }

    /// Whether samples reach the pipeline 16 bits wide: when any plane is deeper than 8 bits.
    private var isWide: Bool { planes.contains { $0.isWide } }

    /// The pipeline's layout for the interleaved rows.
    var layout: SamplePipeline.Layout {
        switch (hasAlpha, isWide) {
        case (false, false): .rgb8
        case (true, false): .rgba8
        case (false, true): .rgb16
        case (true, true): .rgba16
        }
    }

    /// Writes the picture into `output` through `pipeline`: row by row when the sizes agree,
    /// else shrunk by an ``AreaResampler`` (each output pixel the average of the area it covers).
    func write(into output: DecodedImage, pipeline: SamplePipeline) throws {
        precondition(output.width <= width && output.height <= height && pipeline.layout == layout)
        let resample = output.width != width || output.height != height
        let rowBytes = width * layout.bytesPerPixel
        let scratch = try LargeBufferPool.allocate(byteCount: rowBytes + (resample ? width * 4 : 0), zeroed: false)
        let interleaved = scratch.base
        let shrinkRow = (scratch.base + rowBytes).assumingMemoryBound(to: UInt32.self)
        let rowPixels = output.bytesPerRow / 4
        let pixels = output.baseAddress.assumingMemoryBound(to: UInt32.self)
        var resampler =
            resample
            ? AreaResampler(sourceWidth: width, sourceHeight: height, outputWidth: output.width, outputHeight: output.height) : nil
        for y in 0..<height {
            if isWide { interleave16(row: y, into: interleaved) } else { interleave8(row: y, into: interleaved) }
            if resampler != nil {
                pipeline.convert(interleaved, to: shrinkRow, count: width)
                resampler!.add(shrinkRow) { pixels + $0 * rowPixels }
            } else {
                pipeline.convert(interleaved, to: pixels + y * rowPixels, count: width)
            }
        }
    }

    /// Row `y` as 8-bit RGB(A), straight alpha (255 when the file has none).
    private func interleave8(row y: Int, into destination: UnsafeMutableRawPointer) {
        let d = destination.assumingMemoryBound(to: UInt8.self)
        let r = planes[0].base + y * planes[0].stride, g = planes[1].base + y * planes[1].stride, b = planes[2].base + y * planes[2].stride
        guard hasAlpha else {
            for x in 0..<width {
                d[3 * x] = r[x]
                d[3 * x + 1] = g[x]
                d[3 * x + 2] = b[x]
            }
            return
        }
        let a: UnsafePointer<UInt8>? = planes.count == 4 ? planes[3].base + y * planes[3].stride : nil
        for x in 0..<width {
            let alpha = a.map { UInt32($0[x]) } ?? 255
            if isPremultiplied {
                d[4 * x] = UInt8(PixelConversion.unpremultiply(UInt32(r[x]), alpha))
                d[4 * x + 1] = UInt8(PixelConversion.unpremultiply(UInt32(g[x]), alpha))
                d[4 * x + 2] = UInt8(PixelConversion.unpremultiply(UInt32(b[x]), alpha))
            } else {
                d[4 * x] = r[x]
                d[4 * x + 1] = g[x]
                d[4 * x + 2] = b[x]
            }
            d[4 * x + 3] = UInt8(alpha)
        }
    }

    /// Row `y` as native 16-bit full-range RGB(A), straight alpha.
    private func interleave16(row y: Int, into destination: UnsafeMutableRawPointer) {
        let d = destination.assumingMemoryBound(to: UInt16.self)
        let channels = hasAlpha ? 4 : 3
        for (index, plane) in planes.prefix(channels).enumerated() {
            let row = plane.base + y * plane.stride
            for x in 0..<width { d[channels * x + index] = plane.scale.scale(plane.sample(x, row)) }
        }
        guard hasAlpha else { return }
        if planes.count < 4 {
            for x in 0..<width { d[4 * x + 3] = 65535 }
        } else if isPremultiplied {
            for x in 0..<width {
                let alpha = UInt32(d[4 * x + 3])
                for c in 0..<3 {
                    // c × 65535 < 2^32 for every 16-bit c.
                    d[4 * x + c] = alpha == 0 ? 0 : UInt16(min(65535, (UInt32(d[4 * x + c]) * 65535 + alpha / 2) / alpha))
                }
            }
        }
    }
}

/// Samples of `bits` bits to 16-bit full range (what ``SamplePipeline`` takes), rounded:
/// `v × 65535 / (2^bits − 1)`; out-of-range values clamp.
struct SampleScale {
    /// Bits of the samples' range.
    let bits: Int
    /// `2^bits − 1`.
    let maximum: UInt32
    /// `65535 / maximum` in 32.32 fixed point, rounded: one multiply a sample instead of a division.
    private let factor: UInt64

    init(bits: Int) {
        self.bits = max(1, min(bits, 16))
        maximum = UInt32((1 << self.bits) - 1)
        factor = (UInt64(65535) << 32 + UInt64(maximum) / 2) / UInt64(maximum)
    }

    /// The full-range value of `value`.
    @inline(__always)
    func scale(_ value: UInt32) -> UInt16 {
        UInt16((UInt64(min(value, maximum)) &* factor &+ (1 << 31)) >> 32)
    }
}
#endif
