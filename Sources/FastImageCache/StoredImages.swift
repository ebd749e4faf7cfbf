/// What ``ImageCache/storeImages(from:for:family:releasingPages:)`` stored: the image of each
/// format, and what the decode behind them said, so that a caller (an import reporting on each
/// file) needs no decoder of its own.
public struct StoredImages: Sendable {
    /// The image of each format of the family, by format name.
    public var images: [String: CachedImage]
    /// Whether the source was decoded: false when every format held an up-to-date image already
    /// (or another process or thread made them while this one waited for it).
    public var decoded: Bool
    /// Recoverable damage the decode went past (an APNG shown as its default image, a JPEG cut
    /// short of its last rows when corrupt data is allowed, a frame after the first that failed
    /// and ended the animation there), in the decoder's words; empty when nothing was decoded.
    public var warnings: [String]

    /// The image of the format `name`, if the family has it.
    public subscript(_ name: String) -> CachedImage? { images[name] }

    /// A result as given.
    public init(images: [String: CachedImage], decoded: Bool, warnings: [String] = []) {
        self.images = images
        self.decoded = decoded
        self.warnings = warnings
    }
}
