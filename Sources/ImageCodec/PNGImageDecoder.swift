/// One-shot PNG decoding, row by row from libspng straight into the output: at full size, or
/// shrunk while the rows arrive (by the largest whole factor that still covers the target, through
/// ``BoxShrinker``, then to exactly the covering size through ``AreaResampler``), so that a huge PNG
/// never needs a bitmap of its full size (interlaced PNGs excepted: their rows are complete only
/// after the last pass).
enum PNGImageDecoder {
    /// Reads the header of a PNG.
    static func info(_ bytes: UnsafeRawBufferPointer) throws -> ImageInfo {
        try PNGRowPipeline(bytes: bytes, maximumPixelCount: Int(Int32.max), strict: true).info
    }

    /// The sizes a decode goes through: after the whole-factor shrink, and in the end.
    static func sizes(for info: ImageInfo, target: PixelSize?) -> (factor: Int, shrunk: (width: Int, height: Int), output: (width: Int, height: Int)) {
        let factor = TargetScale.wholeFactor(for: info, target: target, limit: BoxShrinker.maximumFactor)
        let shrunk = ((info.width + factor - 1) / factor, (info.height + factor - 1) / factor)
        guard max(shrunk.0, shrunk.1) <= AreaResampler.maximumSourceSide else { return (factor, shrunk, shrunk) }  // extreme strips
        return (factor, shrunk, TargetScale.coveringSize(for: info, target: target, within: shrunk))
    }

    /// Decodes a PNG into premultiplied BGRA (with alpha) or BGRX, covering `options.targetSize`.
    static func decode(_ bytes: UnsafeRawBufferPointer, options: DecodingOptions) throws -> DecodedImage {
        let pipeline = try PNGRowPipeline(bytes: bytes, maximumPixelCount: options.maximumPixelCount, strict: !options.allowCorruptData)
        return try decode(pipeline, options: options)
    }

    /// Decodes the PNG `pipeline` reads.
    static func decode(_ pipeline: PNGRowPipeline, options: DecodingOptions) throws -> DecodedImage {
        let info = pipeline.info
        try PixelLimits.check(width: info.width, height: info.height, maximumPixelCount: options.maximumPixelCount, format: "PNG")
        let (factor, shrunk, size) = sizes(for: info, target: options.targetSize)
        let applyOrientation = options.applyOrientation && info.orientation != .up
        let image = try DecodedImage(
            allocating: size.width, height: size.height,
            pixelFormat: info.hasAlpha ? .bgra32Premultiplied : .bgrx32, source: info,
            isOrientationApplied: options.applyOrientation && !applyOrientation,
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
            var resampler = AreaResampler(sourceWidth: info.width, sourceHeight: info.height, outputWidth: size.width, outputHeight: size.height)
            try pipeline.decodeRows(destination: { _ in sourceRow }, completed: { _, row in
                resampler.add(row) { pixels + $0 * rowPixels }
            })
        case (true, false):
            var shrinker = BoxShrinker(sourceWidth: info.width, sourceHeight: info.height, factor: factor)
            try pipeline.decodeRows(destination: { _ in sourceRow }, completed: { _, row in
                _ = shrinker.add(row) { pixels + $0 * rowPixels }
            })
        case (true, true):
            var shrinker = BoxShrinker(sourceWidth: info.width, sourceHeight: info.height, factor: factor)
            var resampler = AreaResampler(sourceWidth: shrunk.width, sourceHeight: shrunk.height, outputWidth: size.width, outputHeight: size.height)
            try pipeline.decodeRows(destination: { _ in sourceRow }, completed: { _, row in
                if shrinker.add(row, output: { _ in shrunkRow }) != nil {
                    resampler.add(shrunkRow) { pixels + $0 * rowPixels }
                }
            })
        }
        if !options.allowCorruptData {
            try pipeline.checkTrailingChunks()
        }
        return applyOrientation ? try OrientationTransform.apply(info.orientation, to: image) : image
    }
}
