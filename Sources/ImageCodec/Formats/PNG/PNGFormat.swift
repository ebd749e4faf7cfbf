/// One-shot PNG decoding, row by row from libspng straight into the output: at full size, or
/// shrunk while the rows arrive (by the largest whole factor that still covers the target, through
/// ``BoxShrinker``, then to exactly the covering size through ``AreaResampler``), so that a huge PNG
/// never needs a bitmap of its full size (interlaced PNGs excepted: their rows are complete only
/// after the last pass).
package enum PNGFormat: ImageFormatDecoder {
    /// Reads the header of a PNG.
    package static func info(_ bytes: UnsafeRawBufferPointer) throws -> ImageInfo {
        try PNGRowPipeline(bytes: bytes, maximumPixelCount: Int(Int32.max), strict: true).info
    }

    /// The sizes a decode goes through: after the whole-factor shrink, and in the end.
    static func sizes(for info: ImageInfo, target: PixelSize?) -> (
        factor: Int, shrunk: (width: Int, height: Int), output: (width: Int, height: Int)
    ) {
        let factor = TargetScale.wholeFactor(for: info, target: target, limit: BoxShrinker.maximumFactor)
        let shrunk = ((info.width + factor - 1) / factor, (info.height + factor - 1) / factor)
        guard max(shrunk.0, shrunk.1) <= AreaResampler.maximumSourceSide else { return (factor, shrunk, shrunk) }  // extreme strips
        return (factor, shrunk, TargetScale.coveringSize(for: info, target: target, within: shrunk))
    }

    /// Decodes a PNG into premultiplied BGRA (with alpha) or BGRX, covering `options.targetSize`.
    package static func decode(_ bytes: UnsafeRawBufferPointer, options: DecodingOptions) throws -> DecodedImage {
        let pipeline = try PNGRowPipeline(bytes: bytes, maximumPixelCount: options.maximumPixelCount, strict: !options.allowCorruptData)
        return try decode(pipeline, options: options)
    }

    /// Decodes the PNG `pipeline` reads.
    static func decode(_ pipeline: PNGRowPipeline, options: DecodingOptions) throws -> DecodedImage {
        let info = pipeline.info
        try PixelLimits.check(width: info.width, height: info.height, maximumPixelCount: options.maximumPixelCount, format: "PNG")
        let (factor, shrunk, size) = sizes(for: info, target: options.targetSize)
        let image = try DecodedImage(
            decoding: info, width: size.width, height: size.height,
            pixelFormat: info.hasAlpha ? .bgra32Premultiplied : .bgrx32, options: options,
            scaleDenominator: TargetScale.denominator(for: info, size: size), zeroFilled: false  // every row is written
        )
        let rowPixels = image.bytesPerRow / 4
        let pixels = image.baseAddress.assumingMemoryBound(to: UInt32.self)
        let resample = size != shrunk
        let scratch = try LargeBufferPool.allocate(byteCount: (info.width + shrunk.width) * 4, zeroed: false)
        let sourceRow = scratch.base.assumingMemoryBound(to: UInt32.self)
        let shrunkRow = sourceRow + info.width
        switch (factor > 1, resample) {
        case (false, false):
            try pipeline.decodeRows(destination: { pixels + $0 * rowPixels }, completed: { _, _ in })
        case (false, true):
            var resampler = AreaResampler(
                sourceWidth: info.width, sourceHeight: info.height, outputWidth: size.width, outputHeight: size.height)
            try pipeline.decodeRows(
                destination: { _ in sourceRow },
                completed: { _, row in
                    resampler.add(row) { pixels + $0 * rowPixels }
                })
        case (true, false):
            var shrinker = BoxShrinker(sourceWidth: info.width, sourceHeight: info.height, factor: factor)
            try pipeline.decodeRows(
                destination: { _ in sourceRow },
                completed: { _, row in
                    _ = shrinker.add(row) { pixels + $0 * rowPixels }
                })
        case (true, true):
            var shrinker = BoxShrinker(sourceWidth: info.width, sourceHeight: info.height, factor: factor)
            var resampler = AreaResampler(
                sourceWidth: shrunk.width, sourceHeight: shrunk.height, outputWidth: size.width, outputHeight: size.height)
            try pipeline.decodeRows(
                destination: { _ in sourceRow },
                completed: { _, row in
                    if shrinker.add(row, output: { _ in shrunkRow }) != nil {
                        resampler.add(shrunkRow) { pixels + $0 * rowPixels }
                    }
                })
        }
        if !options.allowCorruptData {
            try pipeline.checkTrailingChunks()
        }
        image.addWarnings(pipeline.warnings)
        return try image.uprightIfAsked(options)
    }
}

extension PNGFormat {
    /// PNG.
    package static let format = ImageFileFormat.png

    /// libspng: rows shrunk by a whole factor as they are inflated; rows as bytes arrive.
    package static let capabilities = DecoderCapabilities(
        reducedDecode: "none in the codec; rows are shrunk by a whole factor as they are inflated",
        streamsRows: true, maximumDimension: Int(Int32.max))

    /// The eight-byte PNG signature.
    package static func sniff(_ prefix: UnsafeRawBufferPointer) -> SniffResult {
        Signature.check(prefix, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    }

    /// Rows as bytes arrive, decoded on a thread of their own (libspng pulls its input).
    package static func makeRowDecoder(sink: any RowSink, options: RowDecodingOptions) throws -> any RowDecoder {
        try PNGStreamDecoder.make(sink: sink, options: options)
    }

    /// What a decode needs in memory at its peak, from the header alone.
    package static func estimatedMemory(_ data: UnsafeRawBufferPointer, options: DecodingOptions) throws -> DecodeMemoryEstimate {
        // The IHDR chunk: length 13, "IHDR", width, height, depth, color type, …, interlace.
        guard data.count >= 33 else {
            throw ImageCacheError(
                .truncated, "The PNG data ends before its header does. The file was cut short; download or copy it again.")
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
        let size = PNGFormat.sizes(for: info, target: options.targetSize).output
        // The orientation (eXIf) is not read here: assume the upright copy.
        let output = MemoryEstimator.bitmap(size.width, size.height, orientation: options.applyOrientation ? .right : .up, options: options)
        let rowBytes = MemoryEstimator.add(MemoryEstimator.multiply(MemoryEstimator.multiply(width, channels), max(depth, 1)) / 8, 1)
        var working = MemoryEstimator.add(
            MemoryEstimator.fixedOverhead, MemoryEstimator.add(MemoryEstimator.multiply(rowBytes, 3), MemoryEstimator.multiply(width, 48)))
        if interlaced { working = MemoryEstimator.add(working, MemoryEstimator.multiply(rowBytes, height)) }
        return DecodeMemoryEstimate(info: info, outputBytes: output, workingBytes: working, encodedBytes: 0)
    }
}
