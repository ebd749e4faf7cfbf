/// HEIC (HEVC in HEIF, as phones write it) and AVIF (AV1 in HEIF) with libheif: the primary
/// image, upright (libheif applies the file's `irot`, `imir` and `clap`), grids assembled by
/// libheif on several threads, alpha (straight or premultiplied), 10- and 12-bit samples at full
/// precision into ``SamplePipeline``.
///
/// libheif 1.15 cannot decode at a reduced scale; a smaller size comes from the file's embedded
/// thumbnail when one covers it (as `vipsthumbnail` does), else from the full image shrunk by an
/// ``AreaResampler``. It decodes whole images only, so tile pyramids get them whole too
/// (``WholeImageRowDecoder``).
package enum HEIFFormat: ImageFormatDecoder {
    /// Reads the header of a HEIF or AVIF file (all of it: libheif checks that the data of every
    /// item lies within the bytes).
    package static func info(_ bytes: UnsafeRawBufferPointer) throws -> ImageInfo {
        try HEIFFile(bytes, maximumPixelCount: Int.max).info()
    }

    /// Decodes the primary image (or a thumbnail that covers the target) into premultiplied BGRA
    /// or BGRX, covering `options.targetSize`.
    package static func decode(_ bytes: UnsafeRawBufferPointer, options: DecodingOptions) throws -> DecodedImage {
        let file = try HEIFFile(bytes, maximumPixelCount: options.maximumPixelCount)
        let info = file.info()
        try file.checkPixelLimit(options.maximumPixelCount)
        let strict = !options.allowCorruptData
        var warnings: [String] = []
        if let target = options.targetSize {
            let cover = TargetScale.coveringSize(for: info, target: target)
            if cover != (info.width, info.height), let thumbnail = file.thumbnail(covering: cover) {
                do {
                    let picture = try HEIFPicture(thumbnail, alpha: info.hasAlpha, highBitDepth: thumbnail.bitsPerSample > 8, strict: strict, file: file)
                    // The thumbnail's colour when it declares one, else its image's.
                    let color = thumbnail.color == .untagged ? info.color : thumbnail.color
                    let size = (width: min(cover.width, picture.width), height: min(cover.height, picture.height))
                    return try write(picture, size: size, source: info, color: color, options: options, warnings: warnings)
                } catch let error as ImageCacheError where !strict && error.code != .overMemoryBudget {
                    warnings.append("the embedded thumbnail could not be decoded (\(error.message)); the full image was decoded instead")
                }
            }
        }
        let picture = try HEIFPicture(file.primary, alpha: info.hasAlpha, highBitDepth: info.bitsPerSample > 8, strict: strict, file: file)
        // The decoded size is the authority: libheif 1.15's handle may disagree for some files.
        var source = info
        source.width = picture.width
        source.height = picture.height
        try PixelLimits.check(width: source.width, height: source.height, maximumPixelCount: options.maximumPixelCount, format: file.formatName)
        let size = TargetScale.coveringSize(for: source, target: options.targetSize)
        return try write(picture, size: size, source: source, color: info.color, options: options, warnings: warnings)
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
    /// HEIF; AVIF files are told apart by their brands (``format(of:)``).
    package static let format = ImageFileFormat.heif

    /// HEIF and AVIF.
    package static let formats: [ImageFileFormat] = [.heif, .avif]

    /// libheif: no reduced decode but an embedded thumbnail; decoded whole.
    package static let capabilities = DecoderCapabilities(
        reducedDecode: "none in libheif 1.15; the embedded thumbnail when it covers the target, else the full image shrunk row by row",
        streamsRows: false, maximumDimension: HEIFFile.libraryMaximumDimension)

    /// An `ftyp` box with a HEIF or AVIF brand (heic, heix, hevc, heim, heis, hevm, hevs, mif1,
    /// msf1, avif, avis) as the major brand or a compatible one.
    package static func sniff(_ prefix: UnsafeRawBufferPointer) -> SniffResult {
        HEIFBoxes.sniff(prefix)
    }

    /// AVIF when the brands say AV1, else HEIF.
    package static func format(of prefix: UnsafeRawBufferPointer) -> ImageFileFormat {
        HEIFBoxes.brands(prefix)?.isAVIF == true ? .avif : .heif
    }

    /// What a decode needs in memory at its peak, from the header alone: the codec's planes,
    /// libheif's copy of them and its interleaved RGB(A) image exist together while it converts.
    package static func estimatedMemory(_ data: UnsafeRawBufferPointer, options: DecodingOptions) throws -> DecodeMemoryEstimate {
        let file = try HEIFFile(data, maximumPixelCount: Int.max)
        let info = file.info()
        var width = info.width, height = info.height
        var bytesPerSample = info.bitsPerSample > 8 ? 2 : 1
        let size = TargetScale.coveringSize(for: info, target: options.targetSize)
        if size != (info.width, info.height), let thumbnail = file.thumbnail(covering: size) {
            (width, height, bytesPerSample) = (thumbnail.width, thumbnail.height, thumbnail.bitsPerSample > 8 ? 2 : 1)
        }
        let pixels = MemoryEstimator.multiply(MemoryEstimator.multiply(width, height), bytesPerSample)
        let planes = MemoryEstimator.multiply(pixels, info.hasAlpha ? 4 : 3)  // 4:4:4 at worst, and alpha
        let interleaved = MemoryEstimator.multiply(pixels, info.hasAlpha ? 4 : 3)
        let working = MemoryEstimator.add(MemoryEstimator.fixedOverhead, MemoryEstimator.add(MemoryEstimator.multiply(planes, 2), interleaved))
        let output = MemoryEstimator.bitmap(size.width, size.height, orientation: .up, options: options)
        return DecodeMemoryEstimate(info: info, outputBytes: output, workingBytes: working, encodedBytes: 0)
    }
}
