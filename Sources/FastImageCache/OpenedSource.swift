import ImageCodec

/// A source opened for storing, the one way images reach the formats (``FamilyPolicy/open(_:target:format:)``):
/// its first frame, decoded once to cover the size the families need, and, for an animation of
/// more than one frame, its structure and the decoder positioned after that frame. A still image
/// is an animation of one frame: it has no structure to record and nothing after its first frame.
///
/// One owner at a time: the decoder of the frames after the first goes, with them, to whoever
/// stores them (``takeFrames()``); the first frame stays, for more formats to be drawn from it.
final class OpenedSource {
    /// The first frame: the whole image of a still one.
    let first: DecodedImage
    /// The size the first frame was decoded to cover.
    let target: PixelSize
    /// The structure of an animation of more than one frame; nil for a still image.
    let animation: AnimationInfo?
    /// The decoder of the frames after the first, until ``takeFrames()`` hands it over.
    private var frames: AnimatedImageDecoder?

    /// A still image, decoded to cover `target`.
    init(still image: DecodedImage, target: PixelSize) {
        first = image
        self.target = target
        animation = nil
    }

    /// An animation whose first frame `decoder` has decoded (to cover `target`).
    init(first image: DecodedImage, target: PixelSize, frames decoder: AnimatedImageDecoder) {
        first = image
        self.target = target
        animation = decoder.info
        frames = decoder
    }

    /// The number of frames: 1 for a still image.
    var frameCount: Int { animation?.frameCount ?? 1 }

    /// Whether the frames after the first can still be stored from this source: always for a
    /// still image (it has none), for an animation until ``takeFrames()`` handed them over.
    var hasFramesToStore: Bool { animation == nil || frames != nil }

    /// Whether a request that needs `needed` pixels can be drawn from the first frame: it is at
    /// full size, or was decoded to cover as much.
    func covers(_ needed: PixelSize) -> Bool {
        first.scaleDenominator == 1 || (needed.width <= target.width && needed.height <= target.height)
    }

    /// The decoder of the frames after the first, taken: nil for a still image, or when it was
    /// taken before.
    func takeFrames() -> AnimatedImageDecoder? {
        defer { frames = nil }
        return frames
    }

    /// The decode's warnings so far (an animation's until its frames were taken: those after go
    /// with them, ``RemainingFrames/warnings``).
    var warnings: [String] { frames?.warnings ?? first.warnings }
}
