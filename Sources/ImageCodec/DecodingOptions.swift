/// How ``ImageDecoder`` decodes an image.
public struct DecodingOptions: Sendable, Hashable {
    /// The largest `width × height` (as stored in the header) that will be decoded. Checked before
    /// any pixel buffer is allocated; larger images fail with
    /// `ImageCacheError.Code.dimensionsTooLarge`.
    public var maximumPixelCount: Int = 100_000_000
    /// The largest size the caller needs, in display orientation. The decoder then makes the
    /// smallest bitmap it can that still covers it in both dimensions (keeping the aspect ratio),
    /// without ever holding the full-size one: JPEGs at the smallest DCT scale (1/2, 1/4 or 1/8)
    /// that covers it, progressive JPEGs at 1/8 from only the scans that scale needs; PNGs shrunk
    /// by the largest whole factor that covers it, row by row as they are inflated; WebPs scaled
    /// by libwebp while decoding to exactly the covering size; HEIC and AVIF from their embedded
    /// thumbnail when it covers it, else decoded whole and shrunk row by row; JPEG XLs from their
    /// frame's DC (the image at 1/8) when the target is at most an eighth of the image, else
    /// decoded at full size, then shrunk row by row; GIFs shrunk row by row
    /// as they are decoded; TIFFs from a pyramidal file's smallest covering level, shrunk row by
    /// row. `nil` decodes at full size.
    public var targetSize: PixelSize? = nil
    /// Whether to transform the pixels so that they are upright. `false` keeps the stored orientation.
    public var applyOrientation: Bool = true
    /// Whether damaged data is decoded past, as browsers show it: what the codec recovers is
    /// kept and the rest stays grey (a JPEG whose entropy-coded data is corrupt or ends early),
    /// damaged ancillary PNG chunks are skipped, a GIF whose image data is damaged shows the rows
    /// before the damage, and what was wrong is listed in
    /// ``DecodedImage/warnings`` (and logged). The default. `false` is strict: any damage is an
    /// error. Either way a PNG whose critical chunks are damaged is refused, so is a GIF whose first
    /// frame's image data ends with the file (it was cut short), and damage that
    /// leaves the picture whole (extraneous bytes before a JPEG marker, junk before its start) is
    /// decoded past and reported.
    public var allowCorruptData: Bool = true
    /// The most frames ``AnimatedImageDecoder`` accepts in one animation, counted from the
    /// file's structure before any frame is decoded; more fail with
    /// `ImageCacheError.Code.dimensionsTooLarge`. Still decodes ignore it.
    public var maximumFrames: Int = 10_000
    /// The most pixels ``AnimatedImageDecoder`` decodes for one animation: every frame's canvas
    /// (``maximumPixelCount`` bounds one canvas), or the frame's own rectangle when a GIF frame is
    /// larger than its canvas; for an AVIF sequence also the steps libavif 0.11 takes through
    /// its timing table, one a pixel. Checked before any frame is decoded; more fail with
    /// `ImageCacheError.Code.dimensionsTooLarge`, so a small file cannot make a decode run for
    /// minutes. Still decodes ignore it.
    public var maximumAnimationPixels: Int = 2_000_000_000
    /// Whether ``AnimatedImageDecoder`` decodes the next frame on a thread of its own while the
    /// caller handles the current one (at most two frames wait): for callers that do real work
    /// with each frame, such as storing it, on machines with a core to spare. Still decodes
    /// ignore it.
    public var decodesFramesAhead: Bool = false

    /// Creates options; every parameter has the default described on its property.
    public init(
        maximumPixelCount: Int = 100_000_000,
        targetSize: PixelSize? = nil,
        applyOrientation: Bool = true,
        allowCorruptData: Bool = true,
        maximumFrames: Int = 10_000,
        maximumAnimationPixels: Int = 2_000_000_000,
        decodesFramesAhead: Bool = false
    ) {
        self.maximumPixelCount = maximumPixelCount
        self.targetSize = targetSize
        self.applyOrientation = applyOrientation
        self.allowCorruptData = allowCorruptData
        self.maximumFrames = maximumFrames
        self.maximumAnimationPixels = maximumAnimationPixels
        self.decodesFramesAhead = decodesFramesAhead
    }
}
