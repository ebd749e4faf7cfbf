/// One format's frame-by-frame decoder behind ``AnimatedImageDecoder``: it has read the file's
/// structure (``info``) when made, and composites one frame per ``nextFrame()`` call on a canvas
/// it keeps (at most one canvas and one saved canvas at a time, never all frames).
protocol AnimationFrameSource: AnyObject {
    /// The structure, read when the source was made.
    var info: AnimationInfo { get }
    /// Recoverable damage met so far, in the decoder's words.
    var warnings: [String] { get }
    /// The canvas after the next frame, or nil after the last; errors (`.truncated` for a file cut
    /// in the middle of a frame) come after the frames before them were delivered.
    func nextFrame() throws -> DecodedImage?
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
                throw ImageCacheError(.dimensionsTooLarge,
                    "The \(format) animation's \(frames) frames of \(width)×\(height) pixels need more than \(options.maximumAnimationPixels) pixels decoded; it was refused before decoding. Raise DecodingOptions.maximumAnimationPixels if such animations are expected.")
            }
            total = sum
        }
    }

    /// Throws when `frames` is over ``DecodingOptions/maximumFrames``.
    static func checkFrameCount(_ frames: Int, options: DecodingOptions, format: String) throws {
        guard frames <= options.maximumFrames else {
            throw ImageCacheError(.dimensionsTooLarge,
                "The \(format) animation has more than \(options.maximumFrames) frames; it was refused before decoding. Raise DecodingOptions.maximumFrames if such animations are expected.")
        }
    }
}
