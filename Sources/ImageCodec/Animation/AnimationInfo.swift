/// What an animation's structure says, read before any frame is decoded (see
/// ``AnimatedImageDecoder``). A still image is an animation of one frame that plays once.
public struct AnimationInfo: Sendable, Hashable {
    /// The file's format.
    public var format: ImageFileFormat
    /// The canvas every frame is composited on, in pixels: the size of each delivered frame.
    public var width: Int
    /// The canvas height.
    public var height: Int
    /// How many times the animation plays, 0 meaning forever. APNG's `num_plays` and WebP's loop
    /// count are such a number as stored; a GIF's NETSCAPE count says how often the animation
    /// repeats after its first play, so it is reported plus one (as browsers play it), and a GIF
    /// without one plays once. An AVIF sequence plays forever (0), as browsers play it: libavif
    /// 0.11 reads no repetition count.
    public var loopCount: Int
    /// Each frame's duration in milliseconds, in order, as stored in the file (a GIF's
    /// hundredths, an APNG's fraction of a second and an AVIF sample's duration in its track's
    /// timescale rounded to the millisecond), before any rule a player applies to zero or tiny
    /// delays.
    public var durations: [Int]

    /// The number of frames.
    public var frameCount: Int { durations.count }

    /// Creates an info value.
    public init(format: ImageFileFormat, width: Int, height: Int, loopCount: Int, durations: [Int]) {
        self.format = format
        self.width = width
        self.height = height
        self.loopCount = loopCount
        self.durations = durations
    }
}

/// One composited frame of an animation.
public struct AnimationFrame: Sendable {
    /// Its place in the animation, from 0.
    public let index: Int
    /// How long it shows, in milliseconds, as stored (see ``AnimationInfo/durations``).
    public let durationMs: Int
    /// The whole canvas after this frame was drawn on it, in premultiplied BGRA (a still image's
    /// one frame is BGRX when it is opaque), shrunk to cover ``DecodingOptions/targetSize`` when
    /// one was given: a bitmap of its own, which the caller keeps or drops.
    public let image: DecodedImage
}
