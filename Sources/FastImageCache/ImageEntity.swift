import Foundation

/// A model object whose image the cache stores: a user's avatar, a photo in a grid.
///
/// An entity names its image (``entityID``), says which version of the source it is
/// (``sourceImageID``), where the source comes from for each format, and how to draw it.
public protocol ImageEntity: Sendable {
    /// A stable identifier of the entity, unique within the cache.
    var entityID: String { get }
    /// Identifies the source image's version. When it changes, stored images of the entity are
    /// stale: they are no longer returned and are redrawn on the next request.
    var sourceImageID: String { get }
    /// Where the source image for `format` comes from; nil when there is none.
    func sourceImageURL(for format: ImageFormat) -> URL?
    /// Draws the image for `format` from the decoded `source` into `canvas` (already cleared,
    /// `format.size` points). The default draws the source aspect-filled into the whole canvas.
    func draw(_ source: DecodedImage, format: ImageFormat, canvas: ImageCanvas) throws
}

extension ImageEntity {
    /// Draws `source` aspect-filled into the whole canvas.
    public func draw(_ source: DecodedImage, format: ImageFormat, canvas: ImageCanvas) throws {
        canvas.draw(source, in: CGRect(origin: .zero, size: format.size), contentMode: .aspectFill)
    }
}
