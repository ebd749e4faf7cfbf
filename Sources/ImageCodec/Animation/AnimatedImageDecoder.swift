#if canImport(FoundationEssentials)
import FoundationEssentials  // ContiguousBytes
#else
import Foundation
#endif

/// Decodes every frame of an animated image — GIF, animated WebP, APNG, AVIF sequence —
/// composited on its canvas as browsers show it, one frame at a time: at most one canvas and one saved canvas exist
/// while it works, never all frames. A still image, of any format ``ImageDecoder`` reads, is an
/// animation of one frame.
///
/// The structure (``info``: canvas, frame count, loop count, durations) is read when the decoder
/// is made, and the limits are checked then, before any frame is decoded:
/// ``DecodingOptions/maximumPixelCount`` (the canvas), ``DecodingOptions/maximumFrames`` and
/// ``DecodingOptions/maximumAnimationPixels``, each refused with
/// `ImageCacheError.Code.dimensionsTooLarge`. A file cut short delivers the frames before the
/// cut, then throws `ImageCacheError.Code.truncated`. The format is sniffed from the bytes.
///
/// With ``DecodingOptions/targetSize``, each frame is handed out shrunk to the smallest size
/// that covers the target, as a still decode is, so that whoever draws it at the target's size
/// scales it by less than 2. An animated WebP is composited at that size, each frame scaled by
/// libwebp while it decodes (as libvips does); the other formats composite at full size (their
/// frames' rectangles and disposal are in canvas pixels) and each canvas is shrunk: a box filter
/// by the largest whole factor, then an area resample.
///
/// An instance has one owner and is not thread-safe; each frame it hands out is a bitmap of its
/// own, which may go anywhere.
public final class AnimatedImageDecoder {
    /// The animation's structure.
    public let info: AnimationInfo
    private let source: any AnimationFrameSource
    private let path: String?
    /// The size frames are shrunk to cover, if any.
    private let target: PixelSize?
    /// Whether frames are decoded ahead (``DecodingOptions/decodesFramesAhead``).
    private let decodesAhead: Bool
    /// The thread decoding ahead, once the first frame was asked for; the source is then its alone.
    private var ahead: FramesAhead?
    /// The source's warnings as of the last frame the thread handed over.
    private var warningsAhead: [String] = []
    private var index = 0

    /// Opens the image in `bytes` (read from a file: errors and warnings carry its path).
    ///
    /// - Throws: `ImageCacheError`: the data is not an image, its structure is damaged, or it is
    ///   over a limit of `options`.
    public init(_ bytes: ImageBytes, options: DecodingOptions = .init()) throws {
        path = bytes.path
        target = options.targetSize
        decodesAhead = options.decodesFramesAhead
        do {
            source = try Self.source(bytes, options: options)
        } catch let error as ImageCacheError {
            throw error.adding(path: bytes.path)
        }
        info = source.info
    }

    /// Opens the image in `bytes`, copied.
    public convenience init(_ bytes: some ContiguousBytes, options: DecodingOptions = .init()) throws {
        try self.init(try ImageBytes(copying: bytes), options: options)
    }

    /// Reads the file at `path` (see ``ImageBytes``) and opens it.
    public convenience init(contentsOf path: String, options: DecodingOptions = .init()) throws {
        do {
            try self.init(try ImageBytes(contentsOf: path), options: options)
        } catch let error as ImageCacheError {
            throw error.adding(path: path)
        }
    }

    /// A quick look at the first bytes, decoding nothing, asked of the format's decoder (the one
    /// interface every format implements): a GIF, an APNG (an `acTL` chunk before the
    /// first `IDAT`), a WebP whose extended header says it is animated, or an AVIF whose `ftyp`
    /// brands make it a sequence. Everything else is a still image (a GIF, or a sequence, may
    /// still turn out to have one frame).
    public static func mayBeAnimated(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let (decoder, offset) = try? ImageFormats.sniff(bytes, final: true) else { return false }
        return decoder.mayBeAnimated(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
    }

    /// Recoverable damage met so far (an APNG shown as its default image, a GIF frame's damaged
    /// data), in the decoder's words.
    public var warnings: [String] { decodesAhead ? warningsAhead : source.warnings }

    /// The next frame, composited, or nil after the last.
    ///
    /// - Throws: `ImageCacheError`: `.truncated` when the data ends inside this frame (the frames
    ///   before it were delivered), `.corruptData` when it is damaged.
    public func nextFrame() throws -> AnimationFrame? {
        let image: DecodedImage?
        do {
            image = decodesAhead ? try frameDecodedAhead() : try Self.frame(of: source, target: target)
        } catch let error as ImageCacheError {
            throw error.adding(path: path)
        }
        guard let image else { return nil }
        defer { index += 1 }
        let duration = index < info.durations.count ? info.durations[index] : 0
        return AnimationFrame(index: index, durationMs: duration, image: image)
    }

    /// The next frame of `source`, shrunk to cover `target` when there is one.
    private static func frame(of source: any AnimationFrameSource, target: PixelSize?) throws -> DecodedImage? {
        guard let target else { return try source.nextFrame() }
        return try source.withNextCanvas { try shrink($0, toCover: target) }
    }

    /// The next frame from the thread decoding ahead, which starts at the first call.
    private func frameDecodedAhead() throws -> DecodedImage? {
        if ahead == nil {
            let target = self.target
            ahead = try FramesAhead(source) { try Self.frame(of: $0, target: target) }
        }
        switch ahead!.next() {
        case .frame(let image, let warnings):
            warningsAhead = warnings
            return image
        case .end(let warnings):
            if !warnings.isEmpty { warningsAhead = warnings }
            return nil
        case .failure(let error, let warnings):
            warningsAhead = warnings
            throw error
        }
    }

    /// `canvas` shrunk to the smallest size of its aspect ratio that covers `target` (a copy of
    /// it when that is its own size), through the rows machinery the still decoders use.
    private static func shrink(_ canvas: LentCanvas, toCover target: PixelSize) throws -> DecodedImage {
        let info = ImageInfo(
            format: canvas.source.format, width: canvas.width, height: canvas.height, hasAlpha: canvas.pixelFormat == .bgra32Premultiplied)
        let (factor, shrunk, size) = ShrinkingRows.sizes(for: info, target: target)
        guard size.width < canvas.width || size.height < canvas.height else { return try canvas.copy() }
        let image = try DecodedImage(
            allocating: size.width, height: size.height, pixelFormat: canvas.pixelFormat, source: canvas.source,
            isOrientationApplied: true, scaleDenominator: TargetScale.denominator(for: info, size: size) * canvas.scaleDenominator,
            zeroFilled: false)
        try ShrinkingRows.write(into: image, sourceWidth: canvas.width, sourceHeight: canvas.height, factor: factor, shrunk: shrunk) {
            _, completed in
            // The canvas's rows are already whole: each is handed over where it lies.
            for y in 0..<canvas.height {
                completed((canvas.base + y * canvas.bytesPerRow).assumingMemoryBound(to: UInt32.self))
            }
        }
        return image
    }

    /// Calls `body` with every frame in order (the rest of them, when some were taken with
    /// ``nextFrame()``).
    public func forEachFrame(_ body: (AnimationFrame) throws -> Void) throws {
        while let frame = try nextFrame() { try body(frame) }
    }

    /// The frame source of the format of `bytes`, which its decoder makes
    /// (``ImageFormatDecoder/frameSource(_:options:)``).
    private static func source(_ bytes: ImageBytes, options: DecodingOptions) throws -> any AnimationFrameSource {
        if let target = options.targetSize, target.width <= 0 || target.height <= 0 {
            throw ImageCacheError(.invalidArgument, "targetSize must be positive in both dimensions, not \(target).")
        }
        let decoder = try bytes.withUnsafeBytes { try ImageFormats.locate($0).decoder }
        return try decoder.frameSource(bytes, options: options)
    }
}
