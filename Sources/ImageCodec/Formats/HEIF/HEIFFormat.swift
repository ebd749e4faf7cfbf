import CImageCodecSupport

#if HEIF
extension HEIFFormat: ImageFormatDecoder {
    /// Reads the header of a HEIF or AVIF file (all of it: libheif checks that the data of every
    /// item lies within the bytes).
    package static func info(_ bytes: UnsafeRawBufferPointer) throws -> ImageInfo {
        try HEIFFile(bytes, maximumPixelCount: Int.max).info()
    }

    /// Decodes the primary image (or a thumbnail that covers the target) into premultiplied BGRA
    /// or BGRX, covering `options.targetSize`.
    package static func decode(_ bytes: UnsafeRawBufferPointer, options: DecodingOptions) throws -> DecodedImage {
        // libheif and its codecs allocate a decode's planes (tens of megabytes) with malloc. glibc
        // keeps what they free in its heaps (its mmap threshold rises to the size of the first
        // plane freed), so a process that decodes one photo after another would hold the largest
        // decode's memory, fragmented, for good (182 MB against 107 MB over 40 HEICs of 12
        // megapixels): give it back once everything of this decode has been freed.
        defer { fic_release_free_heap_memory() }
        return try decodeFile(bytes, options: options)
    }

    /// ``decode(_:options:)``; everything libheif allocated for it is freed when it returns.
    private static func decodeFile(_ bytes: UnsafeRawBufferPointer, options: DecodingOptions) throws -> DecodedImage {
        let file = try HEIFFile(bytes, maximumPixelCount: options.maximumPixelCount)
        let info = file.info()
        try file.checkPixelLimit(options.maximumPixelCount)
        let strict = !options.allowCorruptData
        var warnings: [String] = []
        if let target = options.targetSize {
            let cover = TargetScale.coveringSize(for: info, target: target)
            if cover != (info.width, info.height), let thumbnail = file.thumbnail(covering: cover) {
                do {
                    let picture = try HEIFPicture(thumbnail, alpha: info.hasAlpha, strict: strict, file: file)
                    // The thumbnail's colour when it declares one, else its image's.
                    let declared = thumbnail.color
                    let color = declared == .untagged ? info.color : declared
                    let size = (width: min(cover.width, picture.width), height: min(cover.height, picture.height))
                    return try write(picture, size: size, source: info, color: color, options: options, warnings: warnings)
                } catch let error as ImageCacheError where !strict && error.code != .overMemoryBudget {
                    warnings.append("the embedded thumbnail could not be decoded (\(error.message)); the full image was decoded instead")
                }
            }
        }
        if info.format == .avif, (try? CodecLibraries.requireAVIF()) != nil {
            return try decodeAVIF(bytes, info: info, options: options, warnings: warnings)
        }
        let picture = try HEIFPicture(file.primary, alpha: info.hasAlpha, strict: strict, file: file)
        // The decoded size is the authority: libheif 1.15's handle may disagree for some files.
        var source = info
        source.width = picture.width
        source.height = picture.height
        try PixelLimits.check(
            width: source.width, height: source.height, maximumPixelCount: options.maximumPixelCount, format: file.formatName)
        let size = TargetScale.coveringSize(for: source, target: options.targetSize)
        return try write(picture, size: size, source: source, color: info.color, options: options, warnings: warnings)
    }

    /// A still AVIF's primary image through libavif and dav1d, as an AVIF sequence's frames are:
    /// libheif 1.15 holds three full-size copies of a picture at once (242 MB at the peak of an
    /// ingest of one 5120 × 2880 photo, against 60 MB for `avifdec`), and converts it more slowly.
    private static func decodeAVIF(_ bytes: UnsafeRawBufferPointer, info: ImageInfo, options: DecodingOptions, warnings: [String]) throws
        -> DecodedImage
    {
        // libavif reads the bytes in place for as long as its decoder lives: a copy of its own.
        let still = try AVIFAnimation(try ImageBytes(copying: bytes), options: options, still: true)
        var source = info
        (source.width, source.height) = (still.info.width, still.info.height)
        source.hasAlpha = still.source.hasAlpha
        let image = try still.decodeStill(covering: options.targetSize, source: source)
        image.addWarnings(warnings + still.warnings)
        return image
    }

    /// `picture` at `size` (at most its own), described by `source`.
    private static func write(
        _ picture: HEIFPicture, size: (width: Int, height: Int), source: ImageInfo, color: ColorDescription,
        options: DecodingOptions, warnings: [String]
    ) throws -> DecodedImage {
        var warnings = warnings + picture.warnings
        let pipeline = SamplePipeline(layout: picture.layout, color: color, warnings: &warnings)
        let image = try DecodedImage(
            allocating: size.width, height: size.height, pixelFormat: pipeline.pixelFormat, source: source,
            isOrientationApplied: options.applyOrientation,
            scaleDenominator: TargetScale.denominator(for: source, size: size), zeroFilled: false  // every row is written
        )
        try picture.write(into: image, pipeline: pipeline)
        image.addWarnings(warnings)
        return image
    }
}

extension HEIFFormat {
    /// libheif: no reduced decode but an embedded thumbnail; decoded whole.
    package static let capabilities = DecoderCapabilities(
        reducedDecode: "none in libheif 1.15; the embedded thumbnail when it covers the target, else the full image shrunk row by row",
        streamsRows: false, maximumDimension: HEIFFile.libraryMaximumDimension)

    /// What a decode needs in memory at its peak, from the header alone (of the thumbnail that
    /// would be decoded instead, when one covers the target).
    package static func estimatedMemory(_ data: UnsafeRawBufferPointer, options: DecodingOptions) throws -> DecodeMemoryEstimate {
        let file = try HEIFFile(data, maximumPixelCount: Int.max)
        let info = file.info()
        let size = TargetScale.coveringSize(for: info, target: options.targetSize)
        let decoded = size != (info.width, info.height) ? file.thumbnail(covering: size) ?? file.primary : file.primary
        let pixels = MemoryEstimator.multiply(MemoryEstimator.multiply(decoded.width, decoded.height), decoded.bitsPerSample > 8 ? 2 : 1)
        let working = MemoryEstimator.add(
            MemoryEstimator.fixedOverhead,
            MemoryEstimator.multiply(
                pixels, bytesPerPixel(avif: info.format == .avif, alpha: info.hasAlpha, libavif: (try? CodecLibraries.requireAVIF()) != nil)
            ) / 2)
        let output = MemoryEstimator.bitmap(size.width, size.height, orientation: .up, options: options)
        return DecodeMemoryEstimate(info: info, outputBytes: output, workingBytes: working, encodedBytes: 0)
    }

    /// Bytes a pixel (of 8-bit samples), times 2, that a decode holds at its peak. HEIC, measured
    /// with libheif 1.15 on 12-megapixel photos: libde265's picture (4:2:0), libheif's copy of it
    /// and the RGB planes it converts that copy into, alive together, about 6. AVIF, decoded by
    /// libavif in bands: dav1d's picture (4:4:4 at most, 3) and its own state, 3.75 measured on a
    /// 5120 × 2880 photo (55 MB over the process's own), counted as 4.5; through libheif when
    /// libavif is missing, about 14.5 (dav1d's frame-threading state and libheif's copies). Alpha
    /// is a second, monochrome picture.
    static func bytesPerPixel(avif: Bool, alpha: Bool, libavif: Bool) -> Int {
        switch (avif, libavif) {
        case (true, true): 9 + (alpha ? 3 : 0)
        case (true, false): 29 + (alpha ? 5 : 0)
        case (false, _): 12 + (alpha ? 5 : 0)
        }
    }
}
#endif
