/// One-shot JPEG decoding straight into a ``DecodedImage``.
package enum JPEGFormat: ImageFormatDecoder {
    /// The point transform (low bits not yet sent) tolerated in the coefficients of a progressive
    /// JPEG decoded from its first scans: at most 1, an error of under one grey level at scale 1/8.
    static let partialPointTransform = 1

    /// Reads the header of a complete JPEG stream.
    package static func info(_ bytes: UnsafeRawBufferPointer) throws -> ImageInfo {
        try header(bytes).info
    }

    /// The header of a JPEG stream (which may be only the start of the file).
    static func header(_ bytes: UnsafeRawBufferPointer) throws -> JPEGDecompressor.Header {
        let decompressor = try JPEGDecompressor(strict: true)
        decompressor.setInput(bytes)
        guard let header = try decompressor.readHeader() else { throw endedEarly() }
        return header
    }

    /// The sizes a decode goes through: the DCT scale and its output, and the final size (smaller
    /// when the DCT-scaled image is larger than what covers the target).
    static func sizes(for info: ImageInfo, target: PixelSize?) -> (denominator: Int, output: (width: Int, height: Int)) {
        let denominator = target.map { ImageDecoder.jpegScaleDenominator(for: info, target: $0) } ?? 1
        let scaled = ((info.width + denominator - 1) / denominator, (info.height + denominator - 1) / denominator)
        return (denominator, TargetScale.coveringSize(for: info, target: target, within: scaled))
    }

    /// Decodes a complete JPEG stream at the smallest DCT scale that covers `options.targetSize`,
    /// then (row strip by row strip, never holding the DCT-scaled image) to exactly the size that
    /// covers it.
    ///
    /// A progressive JPEG decoded at 1/8 needs only its DC coefficients: ``JPEGDCImage`` reads them
    /// without libjpeg's whole coefficient array. The files it leaves to libjpeg (damaged, CMYK,
    /// arithmetic-coded) are read only up to the scans that scale needs (see
    /// `fic_jpeg_start_partial`); the rest of the file is then only checked to end with an
    /// end-of-image marker, so that an incomplete download is still refused.
    package static func decode(_ bytes: UnsafeRawBufferPointer, options: DecodingOptions) throws -> DecodedImage {
        let decompressor = try JPEGDecompressor(strict: !options.allowCorruptData)
        decompressor.setInput(bytes)
        guard let header = try decompressor.readHeader() else { throw endedEarly() }
        let info = header.info
        try PixelLimits.check(width: info.width, height: info.height, maximumPixelCount: options.maximumPixelCount, format: "JPEG")
        let (denominator, planned) = sizes(for: info, target: options.targetSize)
        let scaled = try decompressor.configure(scaleDenominator: denominator, header: header)
        try PixelLimits.check(width: scaled.width, height: scaled.height, maximumPixelCount: options.maximumPixelCount, format: "JPEG")
        let size = (width: min(planned.width, scaled.width), height: min(planned.height, scaled.height))
        let resample = size.width != scaled.width || size.height != scaled.height
        let dc =
            JPEGDCImage.applies(to: header.raw, denominator: denominator)
            ? JPEGDCImage.decode(bytes, header: header.raw).flatMap { $0.width == scaled.width && $0.height == scaled.height ? $0 : nil }
            : nil
        let partial = dc == nil && header.raw.progressive != 0 && denominator == 8
        var readEveryScan = true
        if partial {
            readEveryScan = try decompressor.startPartial(maximumPointTransform: partialPointTransform).allScans
        } else if dc == nil {
            guard try decompressor.start() == .done else { throw endedEarly() }
        }
        let stored = try DecodedImage(
            decoding: info, width: size.width, height: size.height, pixelFormat: .bgrx32, options: options,
            scaleDenominator: resample ? TargetScale.denominator(for: info, size: size) : denominator,
            zeroFilled: false  // every byte is written
        )
        var y = 0
        try read(scaled: scaled, resample: resample, into: stored) { destination, bytesPerRow, maxRows in
            guard let dc else { return try decompressor.readRows(into: destination, bytesPerRow: bytesPerRow, maxRows: maxRows).rows }
            let rows = min(maxRows, dc.height - y)
            for row in 0..<rows {
                let pixels = destination + row * bytesPerRow
                dc.writeRow(y + row, into: pixels.assumingMemoryBound(to: UInt32.self))
                decompressor.rowColor?.convert(pixels)  // as readRows converts libjpeg's rows
            }
            y += rows
            return rows
        }
        if partial {
            try decompressor.finishPartial()
            if !readEveryScan {  // a file cut short is refused in every mode, even where its last scans go unread
                var scanner = JPEGEndScanner()
                scanner.scan(decompressor.bufferedBytes)
                guard scanner.foundEnd else {
                    throw ImageCacheError(
                        .truncated, "The JPEG data ends before its end-of-image marker. The file was cut short; download or copy it again.")
                }
            }
        } else if dc == nil {
            guard try decompressor.finish() == .done else { throw endedEarly() }
        }
        AllocationProbe.current?.recordLibraryPeak(decompressor.peakMappedBytes)
        stored.addWarnings(decompressor.warnings)
        return try stored.uprightIfAsked(options)
    }

    /// Fills `image` from the DCT-scaled rows `next` gives (`next(destination, bytesPerRow,
    /// maxRows)` returns how many it wrote): straight into the image, or, when `resample`, a strip
    /// at a time through an ``AreaResampler`` (never holding the DCT-scaled image).
    private static func read(
        scaled: PixelSize, resample: Bool, into image: DecodedImage, next: (UnsafeMutableRawPointer, Int, Int) throws -> Int
    ) throws {
        guard resample else {
            guard try next(image.baseAddress, image.bytesPerRow, image.height) == image.height else { throw endedEarly() }
            return
        }
        let stripRows = 16
        let strip = try LargeBufferPool.allocate(byteCount: scaled.width * 4 * stripRows, zeroed: false)
        var resampler = AreaResampler(
            sourceWidth: scaled.width, sourceHeight: scaled.height, outputWidth: image.width, outputHeight: image.height)
        let output = image.baseAddress.assumingMemoryBound(to: UInt32.self)
        let rowPixels = image.bytesPerRow / 4
        var done = 0
        while done < scaled.height {
            let rows = try next(strip.base, scaled.width * 4, min(stripRows, scaled.height - done))
            guard rows > 0 else { throw endedEarly() }
            for row in 0..<rows {
                resampler.add((strip.base + row * scaled.width * 4).assumingMemoryBound(to: UInt32.self)) { output + $0 * rowPixels }
            }
            done += rows
        }
    }

    private static func endedEarly() -> ImageCacheError {
        ImageCacheError(.truncated, "The JPEG data ends before the image does. The file was cut short; download or copy it again.")
    }
}

extension JPEGFormat {
    /// JPEG.
    package static let format = ImageFileFormat.jpeg

    /// libjpeg-turbo: DCT scaling, rows as bytes arrive (progressive ones through a coefficient file).
    package static let capabilities = DecoderCapabilities(
        reducedDecode: "DCT scaling to 1/2, 1/4 or 1/8 (a progressive JPEG at 1/8 from its DC coefficients alone)",
        streamsRows: true, maximumDimension: 65_500)

    /// `FF D8 FF` at the start (junk before it is found by ``ImageFormats/locate(_:)``).
    package static func sniff(_ prefix: UnsafeRawBufferPointer) -> SniffResult {
        Signature.check(prefix, [0xFF, 0xD8, 0xFF])
    }

    /// Rows as bytes arrive, through libjpeg's suspending source.
    package static func makeRowDecoder(sink: any RowSink, options: RowDecodingOptions) throws -> any RowDecoder {
        try JPEGStreamDecoder(sink: sink, options: options)
    }

    /// What a decode needs in memory at its peak, from the header alone.
    package static func estimatedMemory(_ data: UnsafeRawBufferPointer, options: DecodingOptions) throws -> DecodeMemoryEstimate {
        let header = try JPEGFormat.header(data)
        let info = header.info
        let (d, size) = JPEGFormat.sizes(for: info, target: options.targetSize)
        let output = MemoryEstimator.bitmap(size.width, size.height, orientation: info.orientation, options: options)
        // Strips: a few full-width rows per component, and the DCT-scaled strip being resampled.
        var working = MemoryEstimator.add(
            MemoryEstimator.fixedOverhead,
            MemoryEstimator.add(MemoryEstimator.multiply(info.width, 48), MemoryEstimator.multiply((info.width + d - 1) / d, 64 + 16)))
        if header.raw.multiple_scans != 0 {
            // libjpeg's coefficients (128 bytes a block), or only the DC ones (2 bytes a block) when
            // JPEGDCImage takes the file, as it takes every undamaged file it applies to.
            let blocks = Int(clamping: header.raw.coefficient_bytes)
            let coefficients = JPEGDCImage.applies(to: header.raw, denominator: d) ? blocks / 64 : blocks
            working = MemoryEstimator.add(working, MemoryEstimator.add(coefficients, coefficients / 32))  // blocks rounded up to whole MCUs
        }
        return DecodeMemoryEstimate(info: info, outputBytes: output, workingBytes: working, encodedBytes: 0)
    }
}
