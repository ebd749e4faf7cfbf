/// A still image as an animation of one frame that plays once, decoded by its format's
/// ``ImageFormatDecoder`` at full size, upright (so a JPEG, a plain PNG or WebP, a HEIC, and an
/// APNG whose animation chunks are damaged, shown as its default image).
final class StillAnimation: AnimationFrameSource {
    let info: AnimationInfo
    private(set) var warnings: [String]
    private let bytes: ImageBytes
    private let options: DecodingOptions
    private var done = false

    /// The still image in `bytes`; `warnings` say why an animation is shown as one.
    init(_ bytes: ImageBytes, options: DecodingOptions, warnings: [String] = []) throws {
        self.bytes = bytes
        self.warnings = warnings
        var options = options
        options.targetSize = nil
        options.applyOrientation = true
        self.options = options
        let stored = try ImageDecoder.info(bytes)
        try AnimationLimits.check(
            width: stored.displayWidth, height: stored.displayHeight, frames: 1, options: options, format: stored.format.rawValue)
        info = AnimationInfo(format: stored.format, width: stored.displayWidth, height: stored.displayHeight, loopCount: 1, durations: [0])
    }

    func nextFrame() throws -> DecodedImage? {
        guard !done else { return nil }
        done = true
        let image = try ImageDecoder.decode(bytes, options: options)
        warnings += image.warnings
        return image
    }
}
