import CWebP

/// WebP decoding with libwebp's advanced API, into BGRA then premultiplied with exact rounding.
enum WebPImageDecoder {
    /// Reads the features of a WebP bitstream.
    private static func features(_ bytes: UnsafeRawBufferPointer) throws -> WebPBitstreamFeatures {
        var features = WebPBitstreamFeatures()
        let status = WebPGetFeatures(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, &features)
        try check(status)
        if features.has_animation != 0 {
            throw ImageCacheError(.unsupportedFormat, "The WebP is animated; only still WebP images are decoded. Extract a frame first.")
        }
        return features
    }

    /// Reads the header of a WebP.
    static func info(_ bytes: UnsafeRawBufferPointer) throws -> ImageInfo {
        let found = try features(bytes)
        return ImageInfo(
            format: .webp, width: Int(found.width), height: Int(found.height),
            orientation: WebPEXIF.orientation(bytes), hasAlpha: found.has_alpha != 0
        )
    }

    /// Decodes a WebP into BGRA (premultiplied) or BGRX.
    static func decode(_ bytes: UnsafeRawBufferPointer, options: DecodingOptions) throws -> DecodedImage {
        let info = try info(bytes)
        try PixelLimits.check(width: info.width, height: info.height, maximumPixelCount: options.maximumPixelCount, format: "WebP")
        let applyOrientation = options.applyOrientation && info.orientation != .up
        let image = DecodedImage(
            width: info.width, height: info.height,
            pixelFormat: info.hasAlpha ? .bgra32Premultiplied : .bgrx32, source: info,
            isOrientationApplied: options.applyOrientation && !applyOrientation,
            zeroFilled: false  // libwebp writes every row
        )
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else {
            throw ImageCacheError(.invalidArgument, "libwebp rejected its decoder configuration (ABI mismatch between header and library).")
        }
        config.output.colorspace = MODE_BGRA
        config.output.is_external_memory = 1
        config.output.u.RGBA.rgba = image.baseAddress.assumingMemoryBound(to: UInt8.self)
        config.output.u.RGBA.stride = Int32(image.bytesPerRow)
        config.output.u.RGBA.size = image.byteCount
        let status = WebPDecode(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, &config)
        WebPFreeDecBuffer(&config.output)
        try check(status)
        if info.hasAlpha {
            PixelConversion.premultiplyBGRAInPlace(image.baseAddress, width: image.width, height: image.height, bytesPerRow: image.bytesPerRow)
        }
        return applyOrientation ? OrientationTransform.apply(info.orientation, to: image) : image
    }

    /// Throws the ``ImageCacheError`` for a libwebp status other than OK.
    private static func check(_ status: VP8StatusCode) throws {
        switch status {
        case VP8_STATUS_OK:
            return
        case VP8_STATUS_NOT_ENOUGH_DATA, VP8_STATUS_SUSPENDED:
            throw ImageCacheError(.truncated, "The WebP data ends before the image does (libwebp: not enough data). The file was cut short; download or copy it again.")
        case VP8_STATUS_UNSUPPORTED_FEATURE:
            throw ImageCacheError(.unsupportedFormat, "The WebP uses a feature libwebp cannot decode (libwebp: unsupported feature).")
        case VP8_STATUS_OUT_OF_MEMORY:
            throw ImageCacheError(.overMemoryBudget, "Decoding the WebP ran out of memory (libwebp: out of memory).")
        case VP8_STATUS_INVALID_PARAM:
            throw ImageCacheError(.invalidArgument, "libwebp rejected the decoding request (libwebp: invalid parameter).")
        default:
            throw ImageCacheError(.corruptData, "The WebP data is corrupt (libwebp: bitstream error). Re-export the image.")
        }
    }
}
