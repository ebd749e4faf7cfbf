#if GIF
extension GIFFormat: ImageFormatDecoder {
    /// Reads the header (logical screen, the first frame's rectangle and transparency) and counts
    /// the frames (see ``GIFBlocks``).
    package static func info(_ bytes: UnsafeRawBufferPointer) throws -> ImageInfo {
        let (canvas, walk, _) = try header(bytes)
        return canvas.info(frameCount: walk.frames)
    }

    /// Reads up to the first frame's image data: its canvas, the block walk from there, and the
    /// reader, positioned at the image data.
    static func header(_ bytes: UnsafeRawBufferPointer) throws -> (canvas: GIFCanvas, walk: GIFBlocks.Walk, reader: GIFReader) {
        let reader = try GIFReader(GIFInput(bytes: bytes))
        let canvas = GIFCanvas(try reader.readFirstFrame())
        return (canvas, GIFBlocks.walk(bytes, firstFrameDataAt: reader.input.offset), reader)
    }

    /// Decodes the first frame into premultiplied BGRA (with alpha) or BGRX, covering `options.targetSize`.
    package static func decode(_ bytes: UnsafeRawBufferPointer, options: DecodingOptions) throws -> DecodedImage {
        let (canvas, walk, reader) = try header(bytes)
        let info = canvas.info(frameCount: walk.frames)
        try PixelLimits.check(width: info.width, height: info.height, maximumPixelCount: options.maximumPixelCount, format: "GIF")
        guard walk.firstFrameComplete else {
            throw ImageCacheError(
                .truncated, "The GIF data ends before its first frame does. The file was cut short; download or copy it again.")
        }
        let (factor, shrunk, size) = ShrinkingRows.sizes(for: info, target: options.targetSize)
        let image = try DecodedImage(
            allocating: size.width, height: size.height,
            pixelFormat: info.hasAlpha ? .bgra32Premultiplied : .bgrx32, source: info,
            isOrientationApplied: options.applyOrientation,  // GIF has no orientation
            scaleDenominator: TargetScale.denominator(for: info, size: size), zeroFilled: false  // every row is written
        )
        var warnings: [String] = []
        try ShrinkingRows.write(into: image, sourceWidth: info.width, sourceHeight: info.height, factor: factor, shrunk: shrunk) {
            destination, completed in
            warnings = try canvas.decodeRows(
                reader, strict: !options.allowCorruptData, destination: destination, completed: { completed($1) })
        }
        image.addWarnings(warnings)
        return image
    }
}

extension GIFFormat {
    /// giflib: no reduced decode; rows as bytes arrive.
    package static let capabilities = DecoderCapabilities(
        reducedDecode: "none in giflib; rows are shrunk by a whole factor and resampled as they are decoded",
        streamsRows: true, maximumDimension: 131_070)  // a 65535-pixel first frame at 65535: the canvas grows to hold it

    /// Rows as bytes arrive, decoded on a thread of their own (giflib pulls its input).
    package static func makeRowDecoder(sink: any RowSink, options: RowDecodingOptions) throws -> any RowDecoder {
        try GIFStreamDecoder.make(sink: sink, options: options)
    }

    /// What a decode needs in memory at its peak, from the header alone.
    package static func estimatedMemory(_ data: UnsafeRawBufferPointer, options: DecodingOptions) throws -> DecodeMemoryEstimate {
        let (canvas, walk, _) = try header(data)
        let info = canvas.info(frameCount: walk.frames)
        let size = ShrinkingRows.sizes(for: info, target: options.targetSize).output
        let output = MemoryEstimator.bitmap(size.width, size.height, orientation: .up, options: options)
        // giflib's state (its LZW tables are 16 KB), a few rows, and an interlaced frame's indices.
        var working = MemoryEstimator.add(MemoryEstimator.fixedOverhead, MemoryEstimator.multiply(info.width, 16))
        if canvas.frame.interlaced {
            working = MemoryEstimator.add(working, MemoryEstimator.multiply(canvas.frame.width, canvas.frame.height))
        }
        return DecodeMemoryEstimate(info: info, outputBytes: output, workingBytes: working, encodedBytes: 0)
    }
}
#endif
