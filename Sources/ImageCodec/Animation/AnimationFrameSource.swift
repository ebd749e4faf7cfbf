/// One format's frame-by-frame decoder behind ``AnimatedImageDecoder``, made by the format's
/// ``ImageFormatDecoder/frameSource(_:options:)``: it has read the file's structure (``info``)
/// when made, and composites one frame per ``nextFrame()`` call on a canvas it keeps (at most one
/// canvas and one saved canvas at a time, never all frames). A still image is a source of one
/// frame (``StillAnimation``).
package protocol AnimationFrameSource: AnyObject {
    /// The structure, read when the source was made.
    var info: AnimationInfo { get }
    /// Recoverable damage met so far, in the decoder's words.
    var warnings: [String] { get }
    /// The canvas after the next frame, or nil after the last; errors (`.truncated` for a file cut
    /// in the middle of a frame) come after the frames before them were delivered.
    func nextFrame() throws -> DecodedImage?
    /// Calls `body` with the canvas after the next frame, lent for the call only (a source that
    /// composites in place lends its own canvas, saving a copy), or returns nil after the last.
    /// Errors as ``nextFrame()``.
    func withNextCanvas<R>(_ body: (LentCanvas) throws -> R) throws -> R?
}

extension AnimationFrameSource {
    /// Lends the bitmap ``nextFrame()`` makes.
    package func withNextCanvas<R>(_ body: (LentCanvas) throws -> R) throws -> R? {
        guard let image = try nextFrame() else { return nil }
        return try withExtendedLifetime(image) {
            try body(
                LentCanvas(
                    base: UnsafeRawPointer(image.baseAddress), bytesPerRow: image.bytesPerRow, width: image.width, height: image.height,
                    pixelFormat: image.pixelFormat, source: image.source))
        }
    }
}

/// A composited canvas lent by an ``AnimationFrameSource`` for the length of one call: 32-bit
/// pixels of ``pixelFormat``, rows ``bytesPerRow`` apart.
package struct LentCanvas {
    /// The first pixel; valid only inside the call it was lent to.
    package let base: UnsafeRawPointer
    /// The distance between rows, in bytes.
    package let bytesPerRow: Int
    /// The width, in pixels.
    package let width: Int
    /// The height, in pixels.
    package let height: Int
    /// The pixels' layout.
    package let pixelFormat: PixelFormat
    /// What the file says of the image.
    package let source: ImageInfo
    /// How many times smaller than the file's canvas this one is (1 at full size): a source
    /// that composites at a reduced size says so.
    package var scaleDenominator = 1

    /// The canvas at `base`, as described.
    package init(
        base: UnsafeRawPointer, bytesPerRow: Int, width: Int, height: Int, pixelFormat: PixelFormat, source: ImageInfo,
        scaleDenominator: Int = 1
    ) {
        self.base = base
        self.bytesPerRow = bytesPerRow
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        self.source = source
        self.scaleDenominator = scaleDenominator
    }

    /// A bitmap of its own holding a copy of the canvas.
    package func copy() throws -> DecodedImage {
        let image = try DecodedImage(
            allocating: width, height: height, pixelFormat: pixelFormat, source: source, isOrientationApplied: true,
            scaleDenominator: scaleDenominator, zeroFilled: false)
        for y in 0..<height {
            (image.baseAddress + y * image.bytesPerRow).copyMemory(from: base + y * bytesPerRow, byteCount: width * 4)
        }
        return image
    }
}

/// The sizes checked before an animation decodes, shared by every format.
enum AnimationLimits {
    /// Throws unless the canvas is within ``DecodingOptions/maximumPixelCount``, there are at most
    /// ``DecodingOptions/maximumFrames`` frames, and decoding them all stays within
    /// ``DecodingOptions/maximumAnimationPixels`` (each frame counts its canvas, or its own
    /// rectangle's pixels when larger, from `framePixels`).
    static func check(width: Int, height: Int, frames: Int, framePixels: [Int] = [], options: DecodingOptions, format: String) throws {
        try PixelLimits.check(width: width, height: height, maximumPixelCount: options.maximumPixelCount, format: format)
        try checkFrameCount(frames, options: options, format: format)
        let canvas = width * height  // fits: PixelLimits checked it
        var total = 0
        for index in 0..<frames {
            let (sum, overflow) = total.addingReportingOverflow(max(canvas, index < framePixels.count ? framePixels[index] : 0))
            guard !overflow, sum <= options.maximumAnimationPixels else {
                throw ImageCacheError(
                    .dimensionsTooLarge,
                    "The \(format) animation's \(frames) frames of \(width)×\(height) pixels need more than \(options.maximumAnimationPixels) pixels decoded; it was refused before decoding. Raise DecodingOptions.maximumAnimationPixels if such animations are expected."
                )
            }
            total = sum
        }
    }

    /// Throws when `frames` is over ``DecodingOptions/maximumFrames``.
    static func checkFrameCount(_ frames: Int, options: DecodingOptions, format: String) throws {
        guard frames <= options.maximumFrames else {
            throw ImageCacheError(
                .dimensionsTooLarge,
                "The \(format) animation has more than \(options.maximumFrames) frames; it was refused before decoding. Raise DecodingOptions.maximumFrames if such animations are expected."
            )
        }
    }
}
