import FICCore
import SystemPackage

#if TIFF
extension TIFFFormat: ImageFormatDecoder {
    /// libtiff: pyramid levels, rows shrunk as read; files read in any order.
    package static let capabilities = DecoderCapabilities(
        reducedDecode:
            "the smallest reduced-resolution level of a pyramidal TIFF (directory chain or SubIFDs) that covers the target, then rows shrunk as strips and tiles are read",
        streamsRows: true, maximumDimension: Int(UInt32.max), readsFilesInAnyOrder: true)

    /// Reads the first page's directory (usually at the end of the file: `bytes` must reach it).
    package static func info(_ bytes: UnsafeRawBufferPointer) throws -> ImageInfo {
        try TIFFContents(TIFFFile(bytes: bytes)).info
    }

    /// Decodes the first page, from the smallest level that covers `options.targetSize`.
    package static func decode(_ bytes: UnsafeRawBufferPointer, options: DecodingOptions) throws -> DecodedImage {
        let file = try TIFFFile(bytes: bytes)
        let contents = try TIFFContents(file)
        let info = contents.info
        try PixelLimits.check(width: info.width, height: info.height, maximumPixelCount: options.maximumPixelCount, format: "TIFF")
        let page = try selectPage(contents, file: file, target: options.targetSize)
        let reader = try TIFFBandReader(file: file, page: page, allowCorruptData: options.allowCorruptData)
        let pageInfo = ImageInfo(
            format: .tiff, width: page.width, height: page.height, orientation: info.orientation, hasAlpha: info.hasAlpha)
        let (factor, shrunk, size) = sizes(for: pageInfo, target: options.targetSize)
        let image = try DecodedImage(
            decoding: info, width: size.width, height: size.height, pixelFormat: reader.pixelFormat, options: options,
            scaleDenominator: TargetScale.denominator(for: info, size: size), zeroFilled: false  // every row is written
        )
        try readRows(reader, into: image, factor: factor, shrunk: shrunk)
        image.addWarnings(reader.warnings)
        return try image.uprightIfAsked(options)
    }

    /// The page a decode at `target` reads: the smallest reduced-resolution level that covers
    /// the target (made current), or the first page. A level that cannot be read is passed over.
    static func selectPage(_ contents: TIFFContents, file: TIFFFile, target: PixelSize?) throws -> TIFFPage {
        let main = contents.main
        guard target != nil, let level = contents.smallestLevel(covering: TargetScale.coveringSize(for: contents.info, target: target))
        else {
            return main
        }
        do {
            switch level.location {
            case .directory(let index): try file.select(directory: index)
            case .subIFD(let offset): try file.select(subIFD: offset)
            }
            var page = TIFFPage(file)
            guard page.width == level.width, page.height == level.height, (try? TIFFBandLayout(page)) != nil else {
                throw ImageCacheError(.corruptData, "the level is not what its directory said")
            }
            // The level's pixels are the first page's: its orientation and colours.
            page.orientation = main.orientation
            if case .untagged = page.color { page.color = main.color }
            return page
        } catch {
            try file.select(directory: 0)
            return main
        }
    }

    /// The sizes a decode of a page goes through: after the whole-factor shrink, and in the end.
    static func sizes(for info: ImageInfo, target: PixelSize?) -> (
        factor: Int, shrunk: (width: Int, height: Int), output: (width: Int, height: Int)
    ) {
        let factor = TargetScale.wholeFactor(for: info, target: target, limit: BoxShrinker.maximumFactor)
        let shrunk = ((info.width + factor - 1) / factor, (info.height + factor - 1) / factor)
        guard max(shrunk.0, shrunk.1) <= AreaResampler.maximumSourceSide else { return (factor, shrunk, shrunk) }
        return (factor, shrunk, TargetScale.coveringSize(for: info, target: target, within: shrunk))
    }

    /// Reads every band into `image`: straight into its rows at full size, else through a
    /// whole-factor shrink and an exact resample, a row at a time.
    private static func readRows(_ reader: TIFFBandReader, into image: DecodedImage, factor: Int, shrunk: (width: Int, height: Int)) throws
    {
        let rowPixels = image.bytesPerRow / 4
        let pixels = image.baseAddress.assumingMemoryBound(to: UInt32.self)
        let resample = image.width != shrunk.width || image.height != shrunk.height
        let width = reader.width, height = reader.height
        if factor == 1 && !resample {
            try reader.readBands {
                for i in 0..<reader.bandRows { reader.convert(row: i, into: pixels + (reader.bandStart + i) * rowPixels) }
            }
            return
        }
        if factor > 1 && !reader.plan.layout.hasAlpha {
            try readRowsShrinkingSamples(reader, into: image, factor: factor, shrunk: shrunk)
            return
        }
        let scratch = try LargeBufferPool.allocate(byteCount: (width + shrunk.width) * 4, zeroed: false)
        let sourceRow = scratch.base.assumingMemoryBound(to: UInt32.self)
        let shrunkRow = sourceRow + width
        switch (factor > 1, resample) {
        case (true, false):
            var shrinker = BoxShrinker(sourceWidth: width, sourceHeight: height, factor: factor)
            try reader.readBands {
                for i in 0..<reader.bandRows {
                    reader.convert(row: i, into: sourceRow)
                    _ = shrinker.add(sourceRow) { pixels + $0 * rowPixels }
                }
            }
        case (true, true):
            var shrinker = BoxShrinker(sourceWidth: width, sourceHeight: height, factor: factor)
            var resampler = AreaResampler(
                sourceWidth: shrunk.width, sourceHeight: shrunk.height, outputWidth: image.width, outputHeight: image.height)
            try reader.readBands {
                for i in 0..<reader.bandRows {
                    reader.convert(row: i, into: sourceRow)
                    if shrinker.add(sourceRow, output: { _ in shrunkRow }) != nil {
                        resampler.add(shrunkRow) { pixels + $0 * rowPixels }
                    }
                }
            }
        default:
            var resampler = AreaResampler(sourceWidth: width, sourceHeight: height, outputWidth: image.width, outputHeight: image.height)
            try reader.readBands {
                for i in 0..<reader.bandRows {
                    reader.convert(row: i, into: sourceRow)
                    resampler.add(sourceRow) { pixels + $0 * rowPixels }
                }
            }
        }
    }

    /// The shrink of opaque samples: by the whole factor before SamplePipeline, which then
    /// converts one pixel of every `factor²` (its colour transform is most of a conversion's
    /// cost), then to the exact size. Alpha is shrunk after premultiplying instead (above).
    private static func readRowsShrinkingSamples(
        _ reader: TIFFBandReader, into image: DecodedImage, factor: Int, shrunk: (width: Int, height: Int)
    ) throws {
        let layout = reader.plan.layout, pipeline = reader.pipeline
        let rowPixels = image.bytesPerRow / 4
        let pixels = image.baseAddress.assumingMemoryBound(to: UInt32.self)
        let size = layout.bytesPerPixel
        let scratch = try LargeBufferPool.allocate(byteCount: reader.width * size + shrunk.width * (size + 4), zeroed: false)
        let samples = scratch.base, shrunkSamples = scratch.base + reader.width * size
        let shrunkRow = (shrunkSamples + shrunk.width * size).assumingMemoryBound(to: UInt32.self)
        var shrinker = SampleBoxShrinker(sourceWidth: reader.width, sourceHeight: reader.height, factor: factor, layout: layout)
        if image.width == shrunk.width && image.height == shrunk.height {
            try reader.readBands {
                for i in 0..<reader.bandRows {
                    reader.samples(row: i, into: samples)
                    if let row = shrinker.add(samples, output: { _ in shrunkSamples }) {
                        pipeline.convert(shrunkSamples, to: pixels + row * rowPixels, count: shrunk.width)
                    }
                }
            }
            return
        }
        var resampler = AreaResampler(
            sourceWidth: shrunk.width, sourceHeight: shrunk.height, outputWidth: image.width, outputHeight: image.height)
        try reader.readBands {
            for i in 0..<reader.bandRows {
                reader.samples(row: i, into: samples)
                if shrinker.add(samples, output: { _ in shrunkSamples }) != nil {
                    pipeline.convert(shrunkSamples, to: shrunkRow, count: shrunk.width)
                    resampler.add(shrunkRow) { pixels + $0 * rowPixels }
                }
            }
        }
    }

    /// What a decode needs in memory at its peak: the output (twice when turned upright) and the
    /// band of stored samples of the page it reads. The directory is usually at the end of the
    /// file, so `data` must be all of it.
    package static func estimatedMemory(_ data: UnsafeRawBufferPointer, options: DecodingOptions) throws -> DecodeMemoryEstimate {
        let file = try TIFFFile(bytes: data)
        let contents = try TIFFContents(file)
        let info = contents.info
        try PixelLimits.check(width: info.width, height: info.height, maximumPixelCount: Int.max / 8, format: "TIFF")
        let page = try selectPage(contents, file: file, target: options.targetSize)
        let pageInfo = ImageInfo(
            format: .tiff, width: page.width, height: page.height, orientation: info.orientation, hasAlpha: info.hasAlpha)
        let (_, shrunk, size) = sizes(for: pageInfo, target: options.targetSize)
        let output = MemoryEstimator.bitmap(size.width, size.height, orientation: info.orientation, options: options)
        let layout = try TIFFBandLayout(page)
        var working = MemoryEstimator.add(MemoryEstimator.fixedOverhead, MemoryEstimator.add(layout.bandBytes, layout.workingBytes))
        if size != (page.width, page.height) {
            // A row, the shrinkers' sums.
            working = MemoryEstimator.add(working, MemoryEstimator.multiply(page.width + shrunk.width, 4 + 32))
        }
        return DecodeMemoryEstimate(info: info, outputBytes: output, workingBytes: working, encodedBytes: 0)
    }
}
#endif
