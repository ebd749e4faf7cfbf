/// How ``ImageDecoder`` decodes an image.
public struct DecodingOptions: Sendable, Hashable {
    /// The largest `width × height` (as stored in the header) that will be decoded. Checked before
    /// any pixel buffer is allocated; larger images fail with
    /// ``ImageCacheError/Code/dimensionsTooLarge``.
    public var maximumPixelCount: Int = 100_000_000
    /// The largest size the caller needs, in display orientation. The decoder then makes the
    /// smallest bitmap it can that still covers it in both dimensions (keeping the aspect ratio),
    /// without ever holding the full-size one: JPEGs at the smallest DCT scale (1/2, 1/4 or 1/8)
    /// that covers it, progressive JPEGs at 1/8 from only the scans that scale needs; PNGs shrunk
    /// by the largest whole factor that covers it, row by row as they are inflated; WebPs scaled
    /// by libwebp while decoding to exactly the covering size. `nil` decodes at full size.
    public var targetSize: PixelSize? = nil
    /// Whether to transform the pixels so that they are upright. `false` keeps the stored orientation.
    public var applyOrientation: Bool = true
    /// Whether to accept damaged data (corrupt or missing JPEG data, bad ancillary PNG CRCs) and
    /// return what could be decoded. The default is strict: such input is an error. Damage that
    /// leaves the picture whole (extraneous bytes before a JPEG marker, junk before its start) is
    /// decoded either way, and reported in ``DecodedImage/warnings``.
    public var allowCorruptData: Bool = false

    /// Creates options; every parameter has the default described on its property.
    public init(
        maximumPixelCount: Int = 100_000_000,
        targetSize: PixelSize? = nil,
        applyOrientation: Bool = true,
        allowCorruptData: Bool = false
    ) {
        self.maximumPixelCount = maximumPixelCount
        self.targetSize = targetSize
        self.applyOrientation = applyOrientation
        self.allowCorruptData = allowCorruptData
    }
}
