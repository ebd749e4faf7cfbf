import CSpng

extension PNGFormat {
    /// An APNG: an `acTL` chunk before the first `IDAT`.
    package static func mayBeAnimated(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var chunks = PNGChunks(bytes)
        while let chunk = chunks.nextHeader() {
            if chunk.type == PNGChunk.acTL { return true }
            if chunk.type == PNGChunk.IDAT { return false }
        }
        return false
    }

    /// An APNG's frames; a plain PNG, or an APNG whose animation chunks are damaged (with a
    /// warning saying so), as a still image.
    package static func frameSource(_ bytes: ImageBytes, options: DecodingOptions) throws -> any AnimationFrameSource {
        let (animation, reason) = try APNGAnimation.open(bytes, options: options)
        return try animation ?? StillAnimation(bytes, options: options, warnings: reason.map { [$0] } ?? [])
    }
}

/// An APNG's frames (see ``APNGStructure``), each frame's rectangle decoded by the package's PNG
/// machinery (``PNGImageData`` inflates and unfilters its `fdAT` or `IDAT` payloads,
/// ``PNGRowConverter`` makes pixels of its samples with the file's palette and transparency) and
/// composited here with its dispose and blend operations on one ``AnimationCanvas``.
///
/// Interlaced frames are not decoded (the row inflater reads stored rows in order): such a file
/// shows its default image, with a warning. A file cut inside a frame delivers the frames before
/// it, then throws `.truncated`.
final class APNGAnimation: AnimationFrameSource {
    let info: AnimationInfo
    private(set) var warnings: [String] = []
    /// The file's bytes, kept alive for the pipeline's libspng context, which reads them.
    private let bytes: ImageBytes
    private let structure: APNGStructure
    private let pipeline: PNGRowPipeline
    private let palette: spng_plte?
    private let transparency: spng_trns?
    private let canvas: AnimationCanvas
    private let source: ImageInfo
    private let strict: Bool
    private var disposal: (FrameDisposal, FrameRect)?
    private var index = 0

    /// The animation in the PNG `bytes`, or nil when it is to be shown as a still image (with the
    /// reason, when its animation chunks are damaged).
    static func open(_ bytes: ImageBytes, options: DecodingOptions) throws -> (animation: APNGAnimation?, reason: String?) {
        // ImageBytes never moves its memory, and the animation keeps it alive as long as the pipeline.
        let pipeline = try bytes.withUnsafeBytes {
            try PNGRowPipeline(bytes: $0, maximumPixelCount: options.maximumPixelCount, strict: !options.allowCorruptData)
        }
        let walk = try bytes.withUnsafeBytes {
            try APNGStructure.walk($0, width: pipeline.info.width, height: pipeline.info.height, options: options)
        }
        guard case .animation(let structure) = walk else {
            if case .still(let reason) = walk { return (nil, reason) }
            return (nil, nil)
        }
        guard !pipeline.isInterlaced else {
            return (nil, "The APNG's frames are interlaced, which is not decoded here; its default image is shown.")
        }
        return (try APNGAnimation(bytes, structure: structure, pipeline: pipeline, options: options), nil)
    }

    private init(_ bytes: ImageBytes, structure: APNGStructure, pipeline: PNGRowPipeline, options: DecodingOptions) throws {
        self.bytes = bytes
        self.structure = structure
        self.pipeline = pipeline
        strict = !options.allowCorruptData
        let width = pipeline.info.width, height = pipeline.info.height
        try AnimationLimits.check(width: width, height: height, frames: structure.frames.count, options: options, format: "APNG")
        var palette = spng_plte(), transparency = spng_trns()
        self.palette = spng_get_plte(pipeline.context.pointer, &palette) == 0 ? palette : nil
        self.transparency = spng_get_trns(pipeline.context.pointer, &transparency) == 0 ? transparency : nil
        info = AnimationInfo(
            format: .png, width: width, height: height, loopCount: structure.loopCount,
            durations: structure.frames.map(\.durationMs))
        source = ImageInfo(
            format: .png, width: width, height: height, hasAlpha: true, color: pipeline.info.color,
            bitsPerSample: pipeline.info.bitsPerSample, frameCount: info.frameCount)
        canvas = try AnimationCanvas(width: width, height: height)
    }

    func nextFrame() throws -> DecodedImage? {
        guard index < structure.frames.count else {
            if structure.cut && (index < structure.declared || strict) {
                throw ImageCacheError(
                    .truncated,
                    "The APNG data ends after \(index) of its \(structure.declared) frames. The file was cut short; download or copy it again."
                )
            }
            return nil
        }
        let frame = structure.frames[index]
        if let (previous, rect) = disposal {
            switch previous {
            case .none: break
            case .background: canvas.clear(rect)
            case .previous: canvas.restore(rect)
            }
        }
        if frame.dispose == .previous { try canvas.save(frame.rect) }
        disposal = (frame.dispose, frame.rect)
        try draw(frame)
        index += 1
        return try canvas.snapshot(source: source)
    }

    /// Decodes the frame's rectangle and composites it row by row.
    private func draw(_ frame: APNGStructure.Frame) throws {
        var ihdr = pipeline.ihdr
        ihdr.width = UInt32(frame.rect.width)
        ihdr.height = UInt32(frame.rect.height)
        var converter = try PNGRowConverter(ihdr: ihdr, palette: palette, transparency: transparency)
        converter.bigEndianSamples = true  // as stored: the rows come from the file's own bytes
        let isGrey =
            ihdr.color_type == UInt8(SPNG_COLOR_TYPE_GRAYSCALE.rawValue)
            || ihdr.color_type == UInt8(SPNG_COLOR_TYPE_GRAYSCALE_ALPHA.rawValue)
        let color = RowColorStep(
            color: pipeline.info.color, rows: converter.hasAlpha ? .premultipliedBGRA : .bgrx,
            isGrey: isGrey, width: frame.rect.width, warnings: &warnings)
        let channels = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][Int(ihdr.color_type)] ?? 4
        let line = try LargeBufferPool.allocate(byteCount: frame.rect.width * 4, zeroed: false)
        let pixels = line.base.assumingMemoryBound(to: UInt32.self)
        let rect = frame.rect
        let (rows, beyondLastRow) = try bytes.withUnsafeBytes { file in
            try PNGImageData.inflateRows(
                shape: (rect.width, rect.height, Int(ihdr.bit_depth), channels),
                payloads: { feed in try Self.payloads(of: frame, in: file, feed) },
                row: { y, samples in
                    converter.convert(samples, into: pixels)
                    color?.convert(pixels)
                    canvas.withRow(rect.y + y) { row in
                        let out = row + rect.x
                        if frame.blendsOver {
                            for x in 0..<rect.width { out[x] = AnimationCanvas.over(pixels[x], out[x]) }
                        } else {
                            out.update(from: pixels, count: rect.width)
                        }
                    }
                })
        }
        guard rows == rect.height else {
            if structure.cut && index == structure.frames.count - 1 {
                throw ImageCacheError(
                    .truncated,
                    "The APNG data ends inside frame \(index + 1) of \(structure.declared); the frames before it were decoded. The file was cut short; download or copy it again."
                )
            }
            throw ImageCacheError(
                .corruptData,
                "The APNG's frame \(index + 1) has \(rows) of its \(rect.height) rows of data. The file is damaged; re-export it.")
        }
        // The APNG test suite's "fdAT too large": an error, as for too little data (Chromium
        // shows the frame's first rows; the suite and the specification call the file invalid).
        guard !beyondLastRow else {
            throw ImageCacheError(
                .corruptData,
                "The APNG's frame \(index + 1) has more image data than its \(rect.height) rows. The file is damaged; re-export it.")
        }
    }

    /// Hands the frame's zlib data to `feed`: the `IDAT` payloads, or the `fdAT` payloads after
    /// their sequence numbers, up to the next frame's `fcTL` or `IEND`.
    private static func payloads(
        of frame: APNGStructure.Frame, in bytes: UnsafeRawBufferPointer, _ feed: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        var chunks = PNGChunks(bytes, from: frame.dataOffset)
        while let chunk = chunks.next() {  // until the bytes end (cut short), or:
            switch chunk.type {
            case PNGChunk.fcTL, PNGChunk.IEND: return
            case PNGChunk.IDAT where frame.usesImageData:
                try feed(chunks.data(chunk))
            case PNGChunk.fdAT where !frame.usesImageData:
                try feed(UnsafeRawBufferPointer(rebasing: chunks.data(chunk).dropFirst(4)))  // after the sequence number
            default: break
            }
        }
    }
}
