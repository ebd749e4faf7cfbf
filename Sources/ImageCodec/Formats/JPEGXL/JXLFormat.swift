#if JPEGXL
import CJxl

extension JXLFormat: ImageFormatDecoder {
    /// The most frames counted for ``ImageInfo/frameCount``; an animation with more reports this many.
    static let maximumCountedFrames = 10_000

    /// Reads the header (and counts the frames of an animation, which reads only frame headers).
    package static func info(_ bytes: UnsafeRawBufferPointer) throws -> ImageInfo {
        let reader = try JXLReader(bytes, events: [JXL_DEC_BASIC_INFO, JXL_DEC_COLOR_ENCODING], threaded: false)
        let (basic, color) = try reader.readHeader()
        return makeInfo(basic, color: color, bytes: bytes)
    }

    /// The ``ImageInfo`` of a file whose header libjxl read.
    static func makeInfo(_ basic: JxlBasicInfo, color: ColorDescription, bytes: UnsafeRawBufferPointer) -> ImageInfo {
        ImageInfo(
            format: .jxl, width: Int(basic.xsize), height: Int(basic.ysize),
            orientation: ImageOrientation(rawValue: Int(basic.orientation.rawValue)) ?? .up,
            hasAlpha: basic.alpha_bits > 0, color: color, bitsPerSample: Int(basic.bits_per_sample),
            frameCount: basic.have_animation != 0 ? countFrames(bytes) : 1
        )
    }

    /// The displayed frames of an animation, counted from their headers (libjxl skips their pixel
    /// data when none is asked for); at least 2, at most ``maximumCountedFrames``. A file cut
    /// short or damaged after its first frames counts those.
    static func countFrames(_ bytes: UnsafeRawBufferPointer) -> Int {
        var frames = 0
        do {
            let reader = try JXLReader(bytes, events: [JXL_DEC_FRAME], threaded: false)
            counting: while frames < maximumCountedFrames {
                switch try reader.next() {
                case JXL_DEC_FRAME:
                    frames += 1
                    var header = JxlFrameHeader()
                    if jxlLibrary.JxlDecoderGetFrameHeader(reader.decoder, &header) == JXL_DEC_SUCCESS, header.is_last != 0 {
                        break counting
                    }
                case JXL_DEC_SUCCESS:
                    break counting
                default:
                    continue
                }
            }
        } catch {}
        return max(frames, 2)
    }

    /// How libjxl hands out the samples: the channels and their size.
    struct SampleFormat {
        /// 1 (grey), 2 (grey, alpha), 3 (RGB) or 4 (RGBA).
        let channels: Int
        /// 1 or 2 (16-bit, native-endian, full range).
        let bytesPerSample: Int

        var pixelFormat: JxlPixelFormat {
            JxlPixelFormat(
                num_channels: UInt32(channels), data_type: bytesPerSample == 2 ? JXL_TYPE_UINT16 : JXL_TYPE_UINT8,
                endianness: JXL_NATIVE_ENDIAN, align: 0)
        }

        var layout: SamplePipeline.Layout {
            switch (channels, bytesPerSample) {
            case (1, 1): .gray8
            case (2, 1): .grayAlpha8
            case (3, 1): .rgb8
            case (4, 1): .rgba8
            case (1, _): .gray16
            case (2, _): .grayAlpha16
            case (3, _): .rgb16
            default: .rgba16
            }
        }
    }

    /// Decodes the first frame into premultiplied BGRA (with alpha) or BGRX, covering `options.targetSize`.
    ///
    /// Always at full size, then shrunk. libjxl 0.7 has no decode at a reduced size; a VarDCT
    /// frame's DC (the image at 1/8) is complete early, but `JxlDecoderFlushImage` renders it at
    /// full size through the same pipeline as the whole frame, which costs more than decoding
    /// the AC as well: on 4032 × 3024 and 6000 × 4186 photos, stopping at the DC took 1.0–1.3× the
    /// full decode's time on two threads and 0.9–1.6× on one (measured with libjxl 0.7.0).
    package static func decode(_ bytes: UnsafeRawBufferPointer, options: DecodingOptions) throws -> DecodedImage {
        let events = [JXL_DEC_BASIC_INFO, JXL_DEC_COLOR_ENCODING, JXL_DEC_FULL_IMAGE]
        let reader = try JXLReader(bytes, events: events, threaded: true)
        let (basic, color) = try reader.readHeader(maximumPixelCount: options.maximumPixelCount)
        let info = makeInfo(basic, color: color, bytes: bytes)
        let gray = basic.num_color_channels == 1
        // Pixels stored in XYB have no profile of their own: ask for sRGB (see `preferSRGB`).
        // Others come out in the file's own colours.
        var pixelColor = color
        if basic.uses_original_profile == 0 {
            reader.preferSRGB(gray: gray)
            pixelColor = try reader.color(JXL_COLOR_PROFILE_TARGET_DATA)
        }
        if JXLColor.isSRGB(pixelColor) {
            pixelColor = .sRGB  // nothing left to convert
        }
        let deep = basic.bits_per_sample > 8 || basic.exponent_bits_per_sample > 0
        let (factor, shrunk, size) = ShrinkingRows.sizes(for: info, target: options.targetSize)
        let fullSize = size == (info.width, info.height)
        // 8-bit colour at full size is decoded straight into the bitmap (as RGBA, converted in
        // place); everything else into samples of its own, converted row by row.
        let direct = fullSize && !deep && !gray
        let samples = SampleFormat(
            channels: (gray ? 1 : 3) + (info.hasAlpha || direct ? 1 : 0),
            bytesPerSample: deep ? 2 : 1)
        var warnings: [String] = []
        let pipeline = SamplePipeline(layout: samples.layout, color: pixelColor, warnings: &warnings)
        let image = try DecodedImage(
            decoding: info, width: size.width, height: size.height,
            pixelFormat: info.hasAlpha ? .bgra32Premultiplied : .bgrx32, options: options,
            scaleDenominator: TargetScale.denominator(for: info, size: size), zeroFilled: false  // every row is written
        )
        if direct {
            // Opaque images come out with alpha 255: the same bytes as BGRX.
            try decodePixels(reader, format: samples, into: image.baseAddress, byteCount: image.bytesPerRow * image.height)
            for y in 0..<image.height {
                let row = image.baseAddress + y * image.bytesPerRow
                pipeline.convert(row, to: row, count: image.width)
            }
        } else {
            let rowBytes = info.width * samples.channels * samples.bytesPerSample
            let storage = try LargeBufferPool.allocate(byteCount: rowBytes * info.height, zeroed: false)
            try decodePixels(reader, format: samples, into: storage.base, byteCount: rowBytes * info.height)
            try ShrinkingRows.write(into: image, sourceWidth: info.width, sourceHeight: info.height, factor: factor, shrunk: shrunk) {
                destination, completed in
                for y in 0..<info.height {
                    let row = destination(y)
                    pipeline.convert(storage.base + y * rowBytes, to: UnsafeMutableRawPointer(row), count: info.width)
                    completed(row)
                }
            }
        }
        image.addWarnings(warnings)
        return try image.uprightIfAsked(options)
    }

    /// Runs the decoder to its first full frame, written to `buffer` (`byteCount` bytes, which must
    /// be exactly what libjxl needs for `format`).
    private static func decodePixels(_ reader: JXLReader, format: SampleFormat, into buffer: UnsafeMutableRawPointer, byteCount: Int) throws
    {
        var pixelFormat = format.pixelFormat
        var bufferSet = false
        while true {
            switch try reader.next() {
            case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                var needed = 0
                guard !bufferSet, jxlLibrary.JxlDecoderImageOutBufferSize(reader.decoder, &pixelFormat, &needed) == JXL_DEC_SUCCESS,
                    needed == byteCount,
                    jxlLibrary.JxlDecoderSetImageOutBuffer(reader.decoder, &pixelFormat, buffer, byteCount) == JXL_DEC_SUCCESS
                else {
                    throw JXLReader.corrupt()
                }
                bufferSet = true
            case JXL_DEC_FULL_IMAGE:
                guard bufferSet else { throw JXLReader.corrupt() }
                return
            case JXL_DEC_SUCCESS:
                throw JXLReader.corrupt()  // no frame
            default:
                continue
            }
        }
    }
}

extension JXLFormat {
    /// libjxl: no reduced decode in 0.7; decoded whole, on its thread pool.
    package static let capabilities = DecoderCapabilities(
        reducedDecode:
            "none in libjxl 0.7: decoded at full size (stopping at the DC, the image at 1/8, costs more: libjxl renders it at full size); rows shrunk by a whole factor and resampled",
        streamsRows: false, maximumDimension: 1 << 30)

    /// What a decode needs in memory at its peak, from the header alone.
    package static func estimatedMemory(_ data: UnsafeRawBufferPointer, options: DecodingOptions) throws -> DecodeMemoryEstimate {
        let reader = try JXLReader(data, events: [JXL_DEC_BASIC_INFO, JXL_DEC_COLOR_ENCODING], threaded: false)
        let (basic, color) = try reader.readHeader()
        // Frames are not counted here: the estimate does not depend on how many there are.
        let info = ImageInfo(
            format: .jxl, width: Int(basic.xsize), height: Int(basic.ysize),
            orientation: ImageOrientation(rawValue: Int(basic.orientation.rawValue)) ?? .up,
            hasAlpha: basic.alpha_bits > 0, color: color, bitsPerSample: Int(basic.bits_per_sample),
            frameCount: basic.have_animation != 0 ? 2 : 1)
        let size = ShrinkingRows.sizes(for: info, target: options.targetSize).output
        let output = MemoryEstimator.bitmap(size.width, size.height, orientation: info.orientation, options: options)
        let pixels = MemoryEstimator.multiply(info.width, info.height)
        let deep = basic.bits_per_sample > 8 || basic.exponent_bits_per_sample > 0
        let channels = Int(basic.num_color_channels) + (info.hasAlpha ? 1 : 0)
        // The samples libjxl writes (unless they go straight into the output), and libjxl's own
        // state: measured at 3.2 bytes a pixel for a 12 MP VarDCT image and 5 for a recompressed
        // JPEG (whose coefficients it keeps); an animation also keeps its previous frame in floats.
        var working = MemoryEstimator.add(MemoryEstimator.fixedOverhead, MemoryEstimator.multiply(pixels, 4))
        if size != (info.width, info.height) || deep || channels < 3 {
            working = MemoryEstimator.add(working, MemoryEstimator.multiply(pixels, channels * (deep ? 2 : 1)))
        }
        if basic.have_animation != 0 {
            working = MemoryEstimator.add(working, MemoryEstimator.multiply(pixels, 16))
        }
        return DecodeMemoryEstimate(info: info, outputBytes: output, workingBytes: working, encodedBytes: 0)
    }
}
#endif
