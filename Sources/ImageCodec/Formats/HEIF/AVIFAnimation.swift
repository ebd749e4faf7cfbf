#if HEIF
import CAvif

extension HEIFFormat {
    /// An AVIF sequence: its `ftyp` brands make it one as libavif decides (the major brand `avis`,
    /// or `avis` compatible under a major brand other than `avif`). A HEIC or a still AVIF is not.
    package static func mayBeAnimated(_ bytes: UnsafeRawBufferPointer) -> Bool {
        HEIFBoxes.brands(bytes)?.isAVIFSequence == true
    }

    /// A sequence's track through libavif; a still image (HEIC or AVIF) through libheif, as one frame.
    package static func frameSource(_ bytes: ImageBytes, options: DecodingOptions) throws -> any AnimationFrameSource {
        let sequence = bytes.withUnsafeBytes { mayBeAnimated($0) }
        return sequence ? try AVIFAnimation(bytes, options: options) : try StillAnimation(bytes, options: options)
    }
}

/// An AVIF image sequence's frames (an AV1 track, brand `avis`), decoded one at a time by
/// libavif 0.11 with dav1d: libheif 1.15 reads such a file only as its still image. Every frame
/// is a whole picture (a sequence has no disposal or blending), turned into the package's pixels
/// by libavif's YUV → RGB (its matrix and range, 10- and 12-bit samples as 16-bit ones, alpha
/// straight) and then ``SamplePipeline`` (the track's ICC profile or nclx code points to sRGB,
/// premultiplied), cropped to the track's clean aperture (`clap`) and turned upright by its
/// `irot` and `imir`, as libheif does for a still image.
///
/// libavif 0.11 reads no repetition count (an edit list), so ``AnimationInfo/loopCount`` is 0:
/// browsers play such sequences forever.
///
/// Limits: libavif's own, set from ``DecodingOptions`` (`imageSizeLimit` and
/// `imageDimensionLimit` from the pixel limit, `imageCountLimit` from ``DecodingOptions/maximumFrames``,
/// strict checks unless corrupt data is allowed), refuse a track too large or with too many
/// samples while its header is parsed; then ``AnimationLimits`` before any frame is decoded, and
/// the work libavif's timing lookups take (``checkTimingWork(frames:entries:pixels:options:)``).
///
/// A file cut short: libavif reads each frame's sample when it decodes it, so the frames whose
/// samples lie before the cut are delivered, then `.truncated` is thrown.
///
/// A still AVIF (``init(_:options:still:)`` with `still`) is the same thing with one frame: its
/// primary item, decoded by ``decodeStill(covering:)`` without a full-size RGB copy.
final class AVIFAnimation: AnimationFrameSource {
    let info: AnimationInfo
    /// "AVIF sequence" or "AVIF image", for messages.
    let noun: String
    private(set) var warnings: [String] = []
    /// The bytes libavif reads in place (it never copies them): alive as long as the decoder.
    private let bytes: ImageBytes
    let decoder: LibavifDecoder
    /// The part of each coded frame shown (the clean aperture), nil for the whole frame.
    let crop: avifCropRect?
    /// The size of the picture before it is turned upright: the crop's, or the coded frame's.
    let stored: (width: Int, height: Int)
    let orientation: ImageOrientation
    let pipeline: SamplePipeline
    /// What every frame's bitmap says it was decoded from.
    let source: ImageInfo
    /// libavif's RGB samples of a frame, when they cannot be written into the output bitmap itself
    /// (16-bit samples), and the converted frame before it is turned upright; made once, reused.
    private var samples: LargeBufferPool.Storage?
    private var turned: LargeBufferPool.Storage?
    private var index = 0
    /// Set once a frame failed: the animation ends there.
    private var finished = false

    /// libavif's decoder, and the view of a frame cropped to the clean aperture, freed together.
    final class LibavifDecoder {
        let pointer: UnsafeMutablePointer<avifDecoder>
        let view: UnsafeMutablePointer<avifImage>

        init(noun: String) throws {
            guard let pointer = avifLibrary.avifDecoderCreate() else {
                throw ImageCacheError(.overMemoryBudget, "libavif could not allocate a decoder to read the \(noun).")
            }
            guard let view = avifLibrary.avifImageCreateEmpty() else {
                avifLibrary.avifDecoderDestroy(pointer)
                throw ImageCacheError(.overMemoryBudget, "libavif could not allocate an image to read the \(noun).")
            }
            self.pointer = pointer
            self.view = view
        }

        deinit {
            // The view borrows the decoder's planes (it owns none): free it first.
            avifLibrary.avifImageDestroy(view)
            avifLibrary.avifDecoderDestroy(pointer)
        }

        /// libavif's explanation of its last error, or "".
        var diagnostic: String {
            withUnsafeBytes(of: pointer.pointee.diag.error) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
        }
    }

    /// Reads the structure of the AVIF sequence in `bytes` (its track's header, sample table and
    /// colour, not its frames) and checks the limits; with `still`, of its primary item instead.
    init(_ bytes: ImageBytes, options: DecodingOptions, still: Bool = false) throws {
        noun = still ? "AVIF image" : "AVIF sequence"
        _ = try CodecLibraries.requireAVIF()
        guard options.maximumPixelCount > 0 else {
            throw ImageCacheError(.invalidArgument, "maximumPixelCount must be positive, not \(options.maximumPixelCount).")
        }
        self.bytes = bytes
        decoder = try LibavifDecoder(noun: noun)
        let d = decoder.pointer
        // A sequence: one thread, as frames are small next to photos and callers decode several
        // files at once. A photo: dav1d's tile and row threads, as libheif would use.
        d.pointee.maxThreads = still ? Int32(min(8, MachineResources.processorCount)) : 1
        d.pointee.imageSizeLimit = UInt32(min(options.maximumPixelCount, Int(fic_avif_maximum_image_size_limit)))
        // A side longer than the pixel limit is over it whatever the other side.
        d.pointee.imageDimensionLimit = UInt32(min(options.maximumPixelCount, Int(fic_avif_maximum_image_dimension)))
        // 0 would mean no limit: at least 1, and AnimationLimits refuses what is over maximumFrames.
        d.pointee.imageCountLimit = UInt32(clamping: max(1, options.maximumFrames))
        d.pointee.strictFlags = options.allowCorruptData ? AVIF_STRICT_DISABLED.rawValue : AVIF_STRICT_ENABLED.rawValue
        // Exif and XMP items are not needed (a sequence turns by `irot`/`imir`), and reading them
        // allocates what their declared extents claim.
        d.pointee.ignoreExif = 1
        d.pointee.ignoreXMP = 1
        try Self.check(
            bytes.withUnsafeBytes { avifLibrary.avifDecoderSetIOMemory(d, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), $0.count) },
            decoder, noun, "could not be opened")
        // libavif 0.11 refuses, while parsing, a sample table that reaches past the size hint (the
        // size of the bytes), which would leave a file cut short with no frame at all. Without the
        // hint each sample is read when its frame is decoded and a missing one is reported then
        // (TRUNCATED_DATA). Reads stay within the bytes (the memory reader clamps them), nothing
        // is copied (the reader's memory is persistent), and the one allocation the hint bounds
        // for a track, an Exif or XMP item's extents, is not made (ignored above).
        d.pointee.io.pointee.sizeHint = 0
        try Self.check(
            avifLibrary.avifDecoderSetSource(d, still ? AVIF_DECODER_SOURCE_PRIMARY_ITEM : AVIF_DECODER_SOURCE_TRACKS), decoder, noun,
            "could not be opened")
        try Self.check(avifLibrary.avifDecoderParse(d), decoder, noun, "could not be read")

        guard let image = d.pointee.image?.pointee, d.pointee.imageCount > 0 else {
            throw ImageCacheError(.corruptData, "The \(noun) has no frames. The file is damaged.")
        }
        let coded = (width: Int(image.width), height: Int(image.height))
        try PixelLimits.check(width: coded.width, height: coded.height, maximumPixelCount: options.maximumPixelCount, format: "AVIF")
        (crop, warnings) = try Self.cleanAperture(image, strict: !options.allowCorruptData, noun: noun)
        stored = crop.map { (Int($0.width), Int($0.height)) } ?? coded
        orientation = Self.orientation(image)
        let width = orientation.swapsDimensions ? stored.height : stored.width
        let height = orientation.swapsDimensions ? stored.width : stored.height
        let frames = Int(d.pointee.imageCount)
        // Each frame decodes its coded size, larger than the canvas when cropped.
        try AnimationLimits.check(
            width: width, height: height, frames: frames,
            framePixels: crop == nil ? [] : Array(repeating: coded.width * coded.height, count: frames),
            options: options, format: "AVIF")
        try Self.checkTimingWork(
            frames: frames, entries: bytes.withUnsafeBytes { HEIFBoxes.timeToSampleEntryCount($0) },
            pixels: frames * max(width * height, coded.width * coded.height), options: options)

        var durations: [Int] = []
        durations.reserveCapacity(frames)
        for frame in 0..<frames {
            var timing = avifImageTiming()
            try Self.check(avifLibrary.avifDecoderNthImageTiming(d, UInt32(frame), &timing), decoder, noun, "has a damaged timing table")
            durations.append(Self.milliseconds(timing.durationInTimescales, timescale: timing.timescale))
        }

        let color = Self.color(image)
        let alpha = d.pointee.alphaPresent != 0
        let wide = image.depth > 8
        let layout: SamplePipeline.Layout = wide ? (alpha ? .rgba16 : .rgb16) : (alpha ? .bgra8 : .bgrx8)
        pipeline = SamplePipeline(layout: layout, color: color, warnings: &warnings)
        info = AnimationInfo(format: .avif, width: width, height: height, loopCount: 0, durations: durations)
        source = ImageInfo(
            format: .avif, width: width, height: height, hasAlpha: alpha, color: color,
            bitsPerSample: Int(image.depth), frameCount: frames)
    }

    func nextFrame() throws -> DecodedImage? {
        guard !finished, index < info.frameCount else { return nil }
        do {
            let image = try decodeFrame()
            index += 1
            return image
        } catch {
            finished = true
            throw error
        }
    }

    /// The frame being decoded, for messages: the image itself when it is a still one.
    var subject: String { info.frameCount == 1 && noun == "AVIF image" ? "The AVIF image" : "The \(noun)'s frame \(index + 1)" }

    /// Decodes frame `index` into a bitmap of its own.
    private func decodeFrame() throws -> DecodedImage {
        let d = decoder.pointer
        let result = avifLibrary.avifDecoderNextImage(d)
        guard result == AVIF_RESULT_OK else {
            throw Self.error(result, decoder, noun: noun, frame: index)
        }
        guard let frame = d.pointee.image, let picture = try view(of: frame) else {
            throw ImageCacheError(
                .corruptData, "\(subject) is not the size its track declares. The file is damaged.")
        }
        let width = stored.width, height = stored.height
        let output = try DecodedImage(
            allocating: info.width, height: info.height, pixelFormat: .bgra32Premultiplied, source: source,
            isOrientationApplied: true, zeroFilled: false)  // every pixel is written
        // The converted frame in its stored orientation: the output itself when it is upright.
        let upright = orientation == .up
        if !upright && turned == nil { turned = try LargeBufferPool.allocate(byteCount: width * height * 4, zeroed: false) }
        let converted = upright ? output.baseAddress : turned!.base
        let convertedRow = upright ? output.bytesPerRow : width * 4

        var rgb = avifRGBImage()
        avifLibrary.avifRGBImageSetDefaults(&rgb, picture)
        rgb.alphaPremultiplied = 0  // straight: the pipeline converts colour, then premultiplies
        let layout = pipeline.layout
        if layout.isSixteenBit {
            // 16-bit samples (10 and 12 bits scaled to the full range), converted to 8 by the pipeline.
            let rowBytes = width * layout.bytesPerPixel
            if samples == nil { samples = try LargeBufferPool.allocate(byteCount: rowBytes * height, zeroed: false) }
            rgb.depth = 16
            rgb.format = layout.hasAlpha ? AVIF_RGB_FORMAT_RGBA : AVIF_RGB_FORMAT_RGB
            rgb.pixels = samples!.base.assumingMemoryBound(to: UInt8.self)
            rgb.rowBytes = UInt32(rowBytes)
            try convert(picture, &rgb)
            for y in 0..<height {
                pipeline.convert(samples!.base + y * rowBytes, to: converted + y * convertedRow, count: width)
            }
        } else {
            // 8-bit BGRA straight into the bitmap (opaque when there is no alpha), converted in place.
            rgb.depth = 8
            rgb.format = AVIF_RGB_FORMAT_BGRA
            rgb.pixels = converted.assumingMemoryBound(to: UInt8.self)
            rgb.rowBytes = UInt32(convertedRow)
            try convert(picture, &rgb)
            for y in 0..<height {
                pipeline.convert(converted + y * convertedRow, to: converted + y * convertedRow, count: width)
            }
        }
        if !upright {
            OrientationTransform.copy(
                converted, width: width, height: height, bytesPerRow: convertedRow, orientation: orientation,
                into: output.baseAddress, bytesPerRow: output.bytesPerRow)
        }
        return output
    }

    /// The decoded `frame` cropped to the clean aperture (libavif's view, sharing its planes), or
    /// the frame itself; nil when its coded size is not the track's.
    private func view(of frame: UnsafeMutablePointer<avifImage>) throws -> UnsafeMutablePointer<avifImage>? {
        guard var crop else {
            return (Int(frame.pointee.width), Int(frame.pointee.height)) == stored ? frame : nil
        }
        guard avifLibrary.avifImageSetViewRect(decoder.view, frame, &crop) == AVIF_RESULT_OK else {
            throw ImageCacheError(
                .corruptData,
                "\(subject) (\(frame.pointee.width)×\(frame.pointee.height)) does not hold its clean aperture (\(crop.width)×\(crop.height) at \(crop.x),\(crop.y)). The file is damaged."
            )
        }
        return decoder.view
    }

    /// libavif's YUV → RGB of `picture` into `rgb`.
    private func convert(_ picture: UnsafeMutablePointer<avifImage>, _ rgb: inout avifRGBImage) throws {
        let result = avifLibrary.avifImageYUVToRGB(picture, &rgb)
        guard result == AVIF_RESULT_OK else {
            throw ImageCacheError(
                .corruptData,
                "\(subject) could not be converted to RGB (libavif: \(Self.describe(result))). The file is damaged."
            )
        }
    }
}

extension AVIFAnimation {
    /// The clean aperture of a track whose `clap` property is set, as a crop rectangle (nil when
    /// there is none, or it is the whole frame), and a warning when a lenient decode shows an
    /// invalid one uncropped.
    static func cleanAperture(_ image: avifImage, strict: Bool, noun: String) throws -> (avifCropRect?, [String]) {
        guard image.transformFlags & AVIF_TRANSFORM_CLAP.rawValue != 0 else { return (nil, []) }
        var clap = image.clap
        var rect = avifCropRect()
        var diagnostics = avifDiagnostics()
        guard avifLibrary.avifCropRectConvertCleanApertureBox(&rect, &clap, image.width, image.height, image.yuvFormat, &diagnostics) != 0
        else {
            let reason = withUnsafeBytes(of: diagnostics.error) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if strict {
                throw ImageCacheError(
                    .corruptData, "The \(noun)'s clean aperture (clap) is invalid (libavif: \(reason)). The file is damaged.")
            }
            return (nil, ["the clean aperture (clap) is invalid (libavif: \(reason)); the whole frame is shown"])
        }
        return rect.x == 0 && rect.y == 0 && rect.width == image.width && rect.height == image.height ? (nil, []) : (rect, [])
    }

    /// How the track's `irot` (quarter turns anticlockwise) and then `imir` (0: top and bottom
    /// exchanged, 1: left and right) turn the stored picture, as an EXIF orientation.
    static func orientation(_ image: avifImage) -> ImageOrientation {
        let turns = image.transformFlags & AVIF_TRANSFORM_IROT.rawValue != 0 ? Int(image.irot.angle & 3) : 0
        let mirror: Int? = image.transformFlags & AVIF_TRANSFORM_IMIR.rawValue != 0 ? Int(image.imir.mode & 1) : nil
        // Rows: no turn, a quarter anticlockwise, a half, three quarters; columns: no mirror, imir 0, imir 1.
        let table: [[ImageOrientation]] = [
            [.up, .downMirrored, .upMirrored],
            [.left, .leftMirrored, .rightMirrored],
            [.down, .upMirrored, .downMirrored],
            [.right, .rightMirrored, .leftMirrored]
        ]
        return table[turns][mirror.map { $0 + 1 } ?? 0]
    }

    /// The colours the track declares: its ICC profile when it has one (a `colr` box of type
    /// `prof`), else its code points (an nclx `colr` box, else the AV1 sequence header's, else
    /// "unspecified", which the colour engine takes as sRGB).
    static func color(_ image: avifImage) -> ColorDescription {
        if image.icc.size > 0, let data = image.icc.data {
            return .iccProfile(Array(UnsafeBufferPointer(start: data, count: image.icc.size)))
        }
        return .codePoints(
            primaries: Int(image.colorPrimaries), transfer: Int(image.transferCharacteristics),
            matrix: Int(image.matrixCoefficients), fullRange: image.yuvRange == AVIF_RANGE_FULL)
    }

    /// Throws unless decoding `frames` frames of `pixels` pixels in all, plus the steps libavif
    /// takes through time-to-sample tables of `entries` entries (one a pixel), stays within
    /// ``DecodingOptions/maximumAnimationPixels``. libavif 0.11 finds a frame's timing by walking
    /// the table from its start for the frame and every frame before it, when it decodes the frame
    /// and when ``AnimationInfo/durations`` are read: about frames² × entries / 6 steps, a few for
    /// most files, but 88 s for a crafted one of 160 KB (10,000 frames, as many entries).
    static func checkTimingWork(frames: Int, entries: Int, pixels: Int, options: DecodingOptions) throws {
        // Sample i is found after at most as many steps as its entry's place, by every frame from i on.
        var steps = 0.0
        for sample in 0..<frames { steps += Double(min(sample + 1, max(entries, 1))) * Double(frames - sample) }
        guard Double(pixels) + steps <= Double(options.maximumAnimationPixels) else {
            throw ImageCacheError(
                .dimensionsTooLarge,
                "The AVIF sequence's \(frames) frames and \(entries) timing entries need about \(Int(min(steps, 1e18))) steps of libavif's timing lookups besides \(pixels) pixels decoded, more than DecodingOptions.maximumAnimationPixels (\(options.maximumAnimationPixels)) allows; it was refused before decoding. Raise it if such animations are expected."
            )
        }
    }

    /// `duration` units of `timescale` per second, in milliseconds, rounded (0 without a timescale;
    /// at most `Int32.max`: over 24 days).
    static func milliseconds(_ duration: UInt64, timescale: UInt64) -> Int {
        guard timescale > 0 else { return 0 }
        return Int(min((Double(duration) * 1000 / Double(timescale)).rounded(), Double(Int32.max)))
    }

    /// libavif's name for `result`.
    static func describe(_ result: avifResult) -> String {
        avifLibrary.avifResultToString(result).map { String(cString: $0) } ?? "error \(result.rawValue)"
    }

    /// Throws the error for `result`, met while the file's structure was read, unless it is OK.
    static func check(_ result: avifResult, _ decoder: LibavifDecoder, _ noun: String, _ what: String) throws {
        guard result != AVIF_RESULT_OK else { return }
        throw error(result, decoder, noun: noun, frame: nil, what: what)
    }

    /// The package's error for a libavif result: while the structure was read (`frame` nil), or
    /// while frame `frame` (from 0) was decoded, with libavif's own words.
    static func error(_ result: avifResult, _ decoder: LibavifDecoder, noun: String, frame: Int?, what: String = "") -> ImageCacheError {
        let diagnostic = decoder.diagnostic
        let libavif = "libavif: \(describe(result))" + (diagnostic.isEmpty ? "" : ", \(diagnostic)")
        let subject = frame.map { "The \(noun)'s frame \($0 + 1)" } ?? "The \(noun)"
        switch result {
        case AVIF_RESULT_TRUNCATED_DATA, AVIF_RESULT_IO_ERROR:
            // IO_ERROR: the memory reader was asked for bytes wholly past the end of the data.
            let before = frame.map { "; the \($0) frames before it were decoded" } ?? ""
            return ImageCacheError(
                .truncated,
                "\(subject)'s data ends before it does (\(libavif))\(before). The file was cut short; download or copy it again.")
        case AVIF_RESULT_BMFF_PARSE_FAILED where diagnostic.contains("imageCountLimit"):
            return ImageCacheError(
                .dimensionsTooLarge,
                "The \(noun) has more frames than DecodingOptions.maximumFrames allows (\(libavif)); it was refused before decoding. Raise DecodingOptions.maximumFrames if such animations are expected."
            )
        case AVIF_RESULT_BMFF_PARSE_FAILED where diagnostic.contains("too large"):
            return ImageCacheError(
                .dimensionsTooLarge,
                "The \(noun)'s frames are larger than DecodingOptions.maximumPixelCount allows (\(libavif)); it was refused before decoding. Raise DecodingOptions.maximumPixelCount if such images are expected."
            )
        case AVIF_RESULT_OUT_OF_MEMORY:
            return ImageCacheError(.overMemoryBudget, "Decoding the \(subject.dropFirst(4)) ran out of memory (\(libavif)).")
        case AVIF_RESULT_NO_CODEC_AVAILABLE, AVIF_RESULT_NOT_IMPLEMENTED, AVIF_RESULT_UNSUPPORTED_DEPTH:
            let version = avifLibrary.avifVersion().map { String(cString: $0) } ?? ""
            return ImageCacheError(.unsupportedFormat, "\(subject) uses something libavif \(version) cannot decode (\(libavif)).")
        case AVIF_RESULT_DECODE_COLOR_FAILED, AVIF_RESULT_DECODE_ALPHA_FAILED:
            return ImageCacheError(
                .corruptData, "\(subject)'s compressed data could not be decoded (\(libavif)). The file is damaged; re-export the image.")
        default:
            let verb = what.isEmpty ? "is damaged" : what
            return ImageCacheError(.corruptData, "\(subject) \(verb) (\(libavif)). The file is damaged; re-export the image.")
        }
    }
}
#endif
