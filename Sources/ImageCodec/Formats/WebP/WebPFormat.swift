import CWebP

/// WebP decoding with libwebp's advanced API, straight to the size the caller needs: libwebp's
/// own scaler (`use_scaling`) shrinks while it decodes, and writes premultiplied BGRA (or BGRX)
/// into the output bitmap, so no full-size bitmap and no conversion pass exist. Animated WebPs
/// decode to their first frame (via the demux API) on their canvas, as a still thumbnail should.
package enum WebPFormat: ImageFormatDecoder {
    /// A frame of an animation (its bitstream, valid while the demuxer's data is) and where it
    /// sits on the canvas.
    struct Frame {
        let bytes: UnsafeRawBufferPointer
        let x: Int, y: Int, width: Int, height: Int
        let hasAlpha: Bool
        /// Whether the frame is drawn over the canvas (`ANMF` blending) rather than replacing it.
        let blends: Bool
        /// Whether the frame's rectangle is cleared to transparent once it was shown.
        let disposesToBackground: Bool

        /// The frame the demuxer's `iterator` is at, checked against a `canvas`.
        ///
        /// - Throws: ``ImageCacheError/Code/truncated`` when its data is incomplete,
        ///   ``ImageCacheError/Code/corruptData`` when it lies outside the canvas.
        init(_ iterator: WebPIterator, canvas: (width: Int, height: Int), number: Int) throws {
            guard iterator.complete != 0, let start = iterator.fragment.bytes else {
                throw ImageCacheError(
                    .truncated, "The animated WebP's frame \(number) is incomplete. The file was cut short; download or copy it again.")
            }
            bytes = UnsafeRawBufferPointer(start: start, count: iterator.fragment.size)
            x = Int(iterator.x_offset)
            y = Int(iterator.y_offset)
            width = Int(iterator.width)
            height = Int(iterator.height)
            hasAlpha = iterator.has_alpha != 0
            blends = iterator.blend_method == WEBP_MUX_BLEND
            disposesToBackground = iterator.dispose_method == WEBP_MUX_DISPOSE_BACKGROUND
            guard width > 0, height > 0, x >= 0, y >= 0, x + width <= canvas.width, y + height <= canvas.height else {
                throw ImageCacheError(.corruptData, "The animated WebP's frame \(number) lies outside its canvas. The file is damaged.")
            }
        }

        /// The frame's rectangle on the canvas scaled to `size`: its edges scaled, the start
        /// rounded down and the end up (every pixel it touches), at least one pixel.
        func rect(canvas: (width: Int, height: Int), scaledTo size: (width: Int, height: Int)) -> FrameRect {
            let x0 = x * size.width / canvas.width, y0 = y * size.height / canvas.height
            let x1 = max(x0 + 1, min(size.width, ((x + width) * size.width + canvas.width - 1) / canvas.width))
            let y1 = max(y0 + 1, min(size.height, ((y + height) * size.height + canvas.height - 1) / canvas.height))
            return FrameRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
        }

        /// Whether every edge of the frame falls on a pixel edge of the canvas scaled to `size`:
        /// its scaled rectangle is then exact.
        func isAligned(canvas: (width: Int, height: Int), scaledTo size: (width: Int, height: Int)) -> Bool {
            x * size.width % canvas.width == 0 && (x + width) * size.width % canvas.width == 0
                && y * size.height % canvas.height == 0 && (y + height) * size.height % canvas.height == 0
        }
    }

    /// Reads the features of a WebP bitstream (the canvas size, for an animation).
    static func features(_ bytes: UnsafeRawBufferPointer) throws -> WebPBitstreamFeatures {
        var features = WebPBitstreamFeatures()
        let status = WebPGetFeatures(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, &features)
        try check(status)
        return features
    }

    /// Reads the header of a WebP.
    package static func info(_ bytes: UnsafeRawBufferPointer) throws -> ImageInfo {
        try info(bytes, color: EmbeddedColor.webp(bytes))
    }

    /// The header of a WebP whose colour information is `color` (read once by the caller).
    private static func info(_ bytes: UnsafeRawBufferPointer, color: EmbeddedColor) throws -> ImageInfo {
        let found = try features(bytes)
        var hasAlpha = found.has_alpha != 0
        if found.has_animation != 0 {
            hasAlpha = try withFirstFrame(bytes) { frame, canvas in
                hasAlpha || frame.hasAlpha
                    || !(frame.x == 0 && frame.y == 0 && frame.width == canvas.width && frame.height == canvas.height)
            }
        }
        return ImageInfo(
            format: .webp, width: Int(found.width), height: Int(found.height),
            orientation: WebPEXIF.orientation(bytes), hasAlpha: hasAlpha,
            color: color.description
        )
    }

    /// Calls `body` with the first frame of the animation in `bytes` and the canvas size.
    static func withFirstFrame<R>(_ bytes: UnsafeRawBufferPointer, _ body: (Frame, (width: Int, height: Int)) throws -> R) throws -> R {
        var data = WebPData(bytes: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), size: bytes.count)
        guard let demuxer = WebPDemux(&data) else {
            throw ImageCacheError(
                .corruptData, "The animated WebP's container is damaged (libwebp's demuxer refused it). Re-export the image.")
        }
        defer { WebPDemuxDelete(demuxer) }
        let canvas = (width: Int(WebPDemuxGetI(demuxer, WEBP_FF_CANVAS_WIDTH)), height: Int(WebPDemuxGetI(demuxer, WEBP_FF_CANVAS_HEIGHT)))
        var iterator = WebPIterator()
        guard WebPDemuxGetFrame(demuxer, 1, &iterator) != 0 else {
            throw ImageCacheError(.corruptData, "The animated WebP has no frame. Re-export the image.")
        }
        defer { WebPDemuxReleaseIterator(&iterator) }
        let frame = try Frame(iterator, canvas: canvas, number: 1)
        return try body(frame, canvas)
    }

    /// Decodes a WebP into premultiplied BGRA or BGRX, covering `options.targetSize`.
    package static func decode(_ bytes: UnsafeRawBufferPointer, options: DecodingOptions) throws -> DecodedImage {
        let found = try features(bytes)
        let embedded = EmbeddedColor.webp(bytes)
        let info = try info(bytes, color: embedded)
        try PixelLimits.check(width: info.width, height: info.height, maximumPixelCount: options.maximumPixelCount, format: "WebP")
        let size = TargetScale.coveringSize(for: info, target: options.targetSize)
        let animated = found.has_animation != 0
        let image = try DecodedImage(
            decoding: info, width: size.width, height: size.height,
            pixelFormat: info.hasAlpha ? .bgra32Premultiplied : .bgrx32, options: options,
            scaleDenominator: TargetScale.denominator(for: info, size: size),
            zeroFilled: animated  // a frame may leave parts of the canvas transparent
        )
        if animated {
            try withFirstFrame(bytes) { frame, canvas in
                let rect = frame.rect(canvas: canvas, scaledTo: size)
                try decodeBitstream(
                    frame.bytes, into: image, x: rect.x, y: rect.y, width: rect.width, height: rect.height, sourceWidth: frame.width,
                    sourceHeight: frame.height)
            }
        } else {
            try decodeBitstream(
                bytes, into: image, x: 0, y: 0, width: size.width, height: size.height, sourceWidth: info.width, sourceHeight: info.height)
        }
        // An ICCP chunk's profile: libwebp hands out the stored values, converted here.
        var warnings = embedded.warnings
        if let color = RowColorStep(
            color: info.color, rows: info.hasAlpha ? .premultipliedBGRA : .bgrx, isGrey: false, width: size.width, warnings: &warnings)
        {
            for y in 0..<size.height { color.convert(image.baseAddress + y * image.bytesPerRow) }
        }
        image.addWarnings(warnings)
        return try image.uprightIfAsked(options)
    }

    /// Decodes one still bitstream into the `width × height` rectangle at (`x`, `y`) of `image`,
    /// scaled by libwebp when that is smaller than the bitstream's `sourceWidth × sourceHeight`.
    private static func decodeBitstream(
        _ bytes: UnsafeRawBufferPointer, into image: DecodedImage, x: Int, y: Int, width: Int, height: Int,
        sourceWidth: Int, sourceHeight: Int
    ) throws {
        precondition(x >= 0 && y >= 0 && width > 0 && height > 0 && x + width <= image.width && y + height <= image.height)
        try decodeBitstream(
            bytes, into: UnsafeMutableRawPointer(image.baseAddress + y * image.bytesPerRow + x * 4), bytesPerRow: image.bytesPerRow,
            premultiplied: image.pixelFormat == .bgra32Premultiplied, width: width, height: height,
            sourceWidth: sourceWidth, sourceHeight: sourceHeight, threads: false)
    }

    /// Decodes one still bitstream (or an animation frame's) into the `width × height` pixels
    /// at `start`, rows `bytesPerRow` apart, as premultiplied BGRA or as BGRA, scaled by libwebp
    /// when that is smaller than the bitstream's `sourceWidth × sourceHeight`; with `threads`,
    /// libwebp filters a lossy bitstream on a second thread.
    static func decodeBitstream(
        _ bytes: UnsafeRawBufferPointer, into start: UnsafeMutableRawPointer, bytesPerRow: Int, premultiplied: Bool,
        width: Int, height: Int, sourceWidth: Int, sourceHeight: Int, threads: Bool
    ) throws {
        precondition(width > 0 && height > 0 && bytesPerRow >= width * 4)
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else {
            throw ImageCacheError(.invalidArgument, "libwebp rejected its decoder configuration (ABI mismatch between header and library).")
        }
        if width != sourceWidth || height != sourceHeight {
            config.options.use_scaling = 1
            config.options.scaled_width = Int32(width)
            config.options.scaled_height = Int32(height)
        }
        config.options.use_threads = threads ? 1 : 0
        config.output.colorspace = premultiplied ? MODE_bgrA : MODE_BGRA
        config.output.is_external_memory = 1
        config.output.u.RGBA.rgba = start.assumingMemoryBound(to: UInt8.self)
        config.output.u.RGBA.stride = Int32(bytesPerRow)
        config.output.u.RGBA.size = (height - 1) * bytesPerRow + width * 4
        let status = WebPDecode(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, &config)
        WebPFreeDecBuffer(&config.output)
        try check(status)
    }

    /// Throws the ``ImageCacheError`` for a libwebp status other than OK.
    static func check(_ status: VP8StatusCode) throws {
        switch status {
        case VP8_STATUS_OK:
            return
        case VP8_STATUS_NOT_ENOUGH_DATA, VP8_STATUS_SUSPENDED:
            throw ImageCacheError(
                .truncated,
                "The WebP data ends before the image does (libwebp: not enough data). The file was cut short; download or copy it again.")
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

extension WebPFormat {
    /// WebP.
    package static let format = ImageFileFormat.webp

    /// libwebp: scaled while decoding; decoded whole.
    package static let capabilities = DecoderCapabilities(
        reducedDecode: "libwebp's scaler, to exactly the covering size, while decoding",
        streamsRows: false, maximumDimension: 16_383)

    /// `RIFF` at 0 and `WEBP` at 8.
    package static func sniff(_ prefix: UnsafeRawBufferPointer) -> SniffResult {
        switch Signature.check(prefix, Array("RIFF".utf8)) {
        case .match:
            guard prefix.count >= 12 else { return .needMoreBytes }
            return Signature.check(UnsafeRawBufferPointer(rebasing: prefix[8...]), Array("WEBP".utf8))
        case let other:
            return other
        }
    }

    /// What a decode needs in memory at its peak, from the header alone.
    package static func estimatedMemory(_ data: UnsafeRawBufferPointer, options: DecodingOptions) throws -> DecodeMemoryEstimate {
        let features = try WebPFormat.features(data)
        let width = Int(features.width), height = Int(features.height)
        let info = ImageInfo(
            format: .webp, width: width, height: height, orientation: WebPEXIF.orientation(data), hasAlpha: features.has_alpha != 0)
        let size = TargetScale.coveringSize(for: info, target: options.targetSize)
        let output = MemoryEstimator.bitmap(size.width, size.height, orientation: info.orientation, options: options)
        let pixels = MemoryEstimator.multiply(width, height)
        // Rows of YUV, filter and scaler state.
        var working = MemoryEstimator.add(MemoryEstimator.fixedOverhead, MemoryEstimator.multiply(width, 96))
        switch features.format {
        case 2: working = MemoryEstimator.add(working, MemoryEstimator.multiply(pixels, 4))  // VP8L decodes all of its ARGB first
        case 1: if features.has_alpha != 0 { working = MemoryEstimator.add(working, pixels) }  // the alpha plane
        default: working = MemoryEstimator.add(working, MemoryEstimator.multiply(pixels, 5))  // an animation's frame: assume the worst
        }
        return DecodeMemoryEstimate(info: info, outputBytes: output, workingBytes: working, encodedBytes: 0)
    }
}
