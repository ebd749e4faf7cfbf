/// One-shot PNG decoding, row by row from libspng straight into the output: at full size, or
/// shrunk by a whole factor through ``BoxShrinker`` so that a huge PNG never needs a bitmap of its
/// full size (interlaced PNGs excepted: their rows are complete only after the last pass).
enum PNGImageDecoder {
    /// Reads the header of a PNG.
    static func info(_ bytes: UnsafeRawBufferPointer) throws -> ImageInfo {
        try PNGRowPipeline(bytes: bytes, maximumPixelCount: Int(Int32.max), strict: true).info
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
        let factor = TargetScale.wholeFactor(for: info, target: options.targetSize, limit: BoxShrinker.maximumFactor)
        let applyOrientation = options.applyOrientation && info.orientation != .up
        let image = try DecodedImage(
            allocating: (info.width + factor - 1) / factor, height: (info.height + factor - 1) / factor,
            pixelFormat: info.hasAlpha ? .bgra32Premultiplied : .bgrx32, source: info,
            isOrientationApplied: options.applyOrientation && !applyOrientation,
            scaleDenominator: factor, zeroFilled: false  // every row is written
        )
        let rowPixels = image.bytesPerRow / 4
        let pixels = image.baseAddress.assumingMemoryBound(to: UInt32.self)
        if factor == 1 {
            try pipeline.decodeRows(destination: { pixels + $0 * rowPixels }, completed: { _, _ in })
        } else {
            var shrinker = BoxShrinker(sourceWidth: info.width, sourceHeight: info.height, factor: factor)
            let scratch = try LargeBufferPool.allocate(byteCount: info.width * 4, zeroed: false)
            let row = scratch.base.assumingMemoryBound(to: UInt32.self)
            try pipeline.decodeRows(destination: { _ in row }, completed: { _, full in
                _ = shrinker.add(full) { pixels + $0 * rowPixels }
            })
        }
        if !options.allowCorruptData {
            try pipeline.checkTrailingChunks()
        }
        return applyOrientation ? try OrientationTransform.apply(info.orientation, to: image) : image
    }
}
