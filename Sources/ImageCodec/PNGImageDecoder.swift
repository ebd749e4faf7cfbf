import CSpng

/// PNG decoding with libspng (CRC checks on, image and chunk size limits set).
enum PNGImageDecoder {
    /// Largest single chunk accepted, and the most memory ancillary chunks (text, ICC, EXIF) may keep.
    private static let chunkSizeLimit = 64 << 20
    private static let chunkCacheLimit = 64 << 20

    /// An spng context reading from a borrowed buffer, freed on deinit.
    private final class Context {
        let pointer: OpaquePointer

        init(bytes: UnsafeRawBufferPointer, maximumPixelCount: Int, strict: Bool) throws {
            guard let pointer = spng_ctx_new(0) else {
                throw ImageCacheError(.overMemoryBudget, "Could not allocate a PNG decoder: out of memory.")
            }
            self.pointer = pointer
            let critical = Int32(SPNG_CRC_ERROR.rawValue)
            let ancillary = Int32(strict ? SPNG_CRC_ERROR.rawValue : SPNG_CRC_DISCARD.rawValue)
            let side = UInt32(clamping: min(max(maximumPixelCount, 1), Int(Int32.max)))
            try PNGImageDecoder.check(spng_set_crc_action(pointer, critical, ancillary))
            try PNGImageDecoder.check(spng_set_image_limits(pointer, side, side))
            try PNGImageDecoder.check(spng_set_chunk_limits(pointer, PNGImageDecoder.chunkSizeLimit, PNGImageDecoder.chunkCacheLimit))
            try PNGImageDecoder.check(spng_set_png_buffer(pointer, bytes.baseAddress, bytes.count))
        }

        deinit {
            spng_ctx_free(pointer)
        }
    }

    /// The header facts and stored color layout.
    private struct Header {
        let info: ImageInfo
        let bitDepth: UInt8
    }

    private static func readHeader(_ context: Context) throws -> Header {
        var ihdr = spng_ihdr()
        try check(spng_get_ihdr(context.pointer, &ihdr))
        var trns = spng_trns()
        let colorType = Int(ihdr.color_type)
        let hasAlpha = colorType == Int(SPNG_COLOR_TYPE_GRAYSCALE_ALPHA.rawValue)
            || colorType == Int(SPNG_COLOR_TYPE_TRUECOLOR_ALPHA.rawValue)
            || spng_get_trns(context.pointer, &trns) == 0
        var orientation = ImageOrientation.up
        var exif = spng_exif()
        if spng_get_exif(context.pointer, &exif) == 0, let data = exif.data {
            orientation = EXIFOrientationParser.orientation(tiff: UnsafeRawBufferPointer(start: data, count: exif.length))
        }
        let info = ImageInfo(
            format: .png, width: Int(ihdr.width), height: Int(ihdr.height),
            orientation: orientation, hasAlpha: hasAlpha
        )
        return Header(info: info, bitDepth: ihdr.bit_depth)
    }

    /// Reads the header of a PNG.
    static func info(_ bytes: UnsafeRawBufferPointer) throws -> ImageInfo {
        let context = try Context(bytes: bytes, maximumPixelCount: Int(Int32.max), strict: true)
        return try readHeader(context).info
    }

    /// Decodes a PNG into BGRA (premultiplied) or BGRX.
    static func decode(_ bytes: UnsafeRawBufferPointer, options: DecodingOptions) throws -> DecodedImage {
        let context = try Context(bytes: bytes, maximumPixelCount: options.maximumPixelCount, strict: !options.allowCorruptData)
        let header = try readHeader(context)
        let info = header.info
        try PixelLimits.check(width: info.width, height: info.height, maximumPixelCount: options.maximumPixelCount, format: "PNG")
        let applyOrientation = options.applyOrientation && info.orientation != .up
        let image = DecodedImage(
            width: info.width, height: info.height,
            pixelFormat: info.hasAlpha ? .bgra32Premultiplied : .bgrx32, source: info,
            isOrientationApplied: options.applyOrientation && !applyOrientation,
            zeroFilled: false  // rows are exactly width × 4 bytes and libspng writes them all
        )
        if header.bitDepth == 16 {
            try decode16(context, into: image)
        } else {
            try check(spng_decode_image(context.pointer, image.baseAddress, image.byteCount, Int32(SPNG_FMT_RGBA8.rawValue), Int32(SPNG_DECODE_TRNS.rawValue)))
            PixelConversion.rgbaToBGRAInPlace(image.baseAddress, width: image.width, height: image.height, bytesPerRow: image.bytesPerRow, premultiplied: info.hasAlpha)
        }
        if !options.allowCorruptData {
            // Read (and CRC-check) the chunks after the image data, up to IEND.
            try check(spng_decode_chunks(context.pointer))
        }
        return applyOrientation ? OrientationTransform.apply(info.orientation, to: image) : image
    }

    /// Decodes 16-bit samples and reduces them to 8 bits with rounding.
    private static func decode16(_ context: Context, into image: DecodedImage) throws {
        let count = image.width * image.height * 4
        let samples = UnsafeMutablePointer<UInt16>.allocate(capacity: count)
        defer { samples.deallocate() }
        try check(spng_decode_image(context.pointer, samples, count * 2, Int32(SPNG_FMT_RGBA16.rawValue), Int32(SPNG_DECODE_TRNS.rawValue)))
        let premultiplied = image.pixelFormat == .bgra32Premultiplied
        for y in 0..<image.height {
            let row = (image.baseAddress + y * image.bytesPerRow).assumingMemoryBound(to: UInt8.self)
            let source = samples + y * image.width * 4
            for x in 0..<image.width {
                let s = source + x * 4
                let r = PixelConversion.reduce16(s[0]), g = PixelConversion.reduce16(s[1]), b = PixelConversion.reduce16(s[2])
                let a = premultiplied ? PixelConversion.reduce16(s[3]) : 255
                let p = row + x * 4
                p[0] = UInt8(truncatingIfNeeded: premultiplied ? PixelConversion.premultiply(b, a) : b)
                p[1] = UInt8(truncatingIfNeeded: premultiplied ? PixelConversion.premultiply(g, a) : g)
                p[2] = UInt8(truncatingIfNeeded: premultiplied ? PixelConversion.premultiply(r, a) : r)
                p[3] = UInt8(truncatingIfNeeded: a)
            }
        }
    }

    /// Throws the ``ImageCacheError`` for an spng result code other than 0.
    static func check(_ code: Int32) throws {
        guard code != 0 else { return }
        let text = String(cString: spng_strerror(code))
        let quoted = "libspng: “\(text)”"
        switch code {
        case SPNG_IO_EOF.rawValue, SPNG_IO_ERROR.rawValue, Int32(SPNG_EOF.rawValue), Int32(SPNG_EIDAT_TOO_SHORT.rawValue):
            throw ImageCacheError(.truncated, "The PNG data ends before the image does (\(quoted)). The file was cut short; download or copy it again.")
        case Int32(SPNG_EUSER_WIDTH.rawValue), Int32(SPNG_EUSER_HEIGHT.rawValue), Int32(SPNG_EOVERFLOW.rawValue):
            throw ImageCacheError(.dimensionsTooLarge, "The PNG is larger than the configured limit (\(quoted)); it was refused before decoding. Raise DecodingOptions.maximumPixelCount if such images are expected.")
        case Int32(SPNG_EMEM.rawValue), Int32(SPNG_ECHUNK_LIMITS.rawValue):
            throw ImageCacheError(.overMemoryBudget, "Decoding the PNG needs more memory than allowed (\(quoted)).")
        case Int32(SPNG_ESIGNATURE.rawValue):
            throw ImageCacheError(.unsupportedFormat, "The data is not a PNG (\(quoted)).")
        case Int32(SPNG_EINVAL.rawValue), Int32(SPNG_EBUFSIZ.rawValue):
            throw ImageCacheError(.invalidArgument, "Invalid PNG decoding request (\(quoted)).")
        default:
            throw ImageCacheError(.corruptData, "The PNG data is corrupt (\(quoted)). Re-export the image, or set allowCorruptData to tolerate damaged ancillary chunks.")
        }
    }
}
