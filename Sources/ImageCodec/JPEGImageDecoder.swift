/// One-shot JPEG decoding straight into a ``DecodedImage``.
enum JPEGImageDecoder {
    /// Reads the header of a complete JPEG stream.
    static func info(_ bytes: UnsafeRawBufferPointer) throws -> ImageInfo {
        let decompressor = try JPEGDecompressor(strict: true)
        decompressor.setInput(bytes)
        guard let header = try decompressor.readHeader() else { throw endedEarly() }
        return header.info
    }

    /// Decodes a complete JPEG stream.
    static func decode(_ bytes: UnsafeRawBufferPointer, options: DecodingOptions) throws -> DecodedImage {
        let decompressor = try JPEGDecompressor(strict: !options.allowCorruptData)
        decompressor.setInput(bytes)
        guard let header = try decompressor.readHeader() else { throw endedEarly() }
        let info = header.info
        try PixelLimits.check(width: info.width, height: info.height, maximumPixelCount: options.maximumPixelCount, format: "JPEG")
        let denominator = options.targetSize.map { ImageDecoder.jpegScaleDenominator(for: info, target: $0) } ?? 1
        let size = try decompressor.configure(scaleDenominator: denominator)
        try PixelLimits.check(width: size.width, height: size.height, maximumPixelCount: options.maximumPixelCount, format: "JPEG")
        let applyOrientation = options.applyOrientation && info.orientation != .up
        guard try decompressor.start() == .done else { throw endedEarly() }
        let stored = DecodedImage(
            width: size.width, height: size.height, pixelFormat: .bgrx32, source: info,
            isOrientationApplied: options.applyOrientation && !applyOrientation,
            scaleDenominator: denominator, zeroFilled: false  // libjpeg writes every byte
        )
        let (rows, _) = try decompressor.readRows(into: stored.baseAddress, bytesPerRow: stored.bytesPerRow, maxRows: size.height)
        guard rows == size.height else { throw endedEarly() }
        guard try decompressor.finish() == .done else { throw endedEarly() }
        return applyOrientation ? OrientationTransform.apply(info.orientation, to: stored) : stored
    }

    private static func endedEarly() -> ImageCacheError {
        ImageCacheError(.truncated, "The JPEG data ends before the image does. The file was cut short; download or copy it again.")
    }
}
