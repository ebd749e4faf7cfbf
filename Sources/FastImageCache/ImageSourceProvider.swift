import Foundation

/// A source image as a provider hands it to the cache.
public enum SourceImage: Sendable {
    /// Encoded bytes (JPEG, PNG or WebP). The cache decodes them once per family, at the
    /// largest size the family needs, off the calling task.
    case encoded([UInt8])
    /// An image that is already decoded.
    case decoded(DecodedImage)
}

/// Supplies source images to the cache when an image is missing (the delegate of the original).
public protocol ImageSourceProvider: Sendable {
    /// Fetches the source image at `url` for `entity`. Called once for all concurrent requests of
    /// the same URL. Cancellation of the calling task means every waiter has gone.
    func sourceImage(at url: URL, for entity: any ImageEntity) async throws -> SourceImage
    /// Whether the formats of `family` that lack an image of `entity` should be drawn from a
    /// source fetched for another format of the family. Defaults to true.
    func shouldDrawFamily(_ family: String, for entity: any ImageEntity) -> Bool
    /// Called when the last waiter for `url` has gone (cancelled) before the image was made.
    func didCancelRequest(at url: URL, for entity: any ImageEntity)
}

extension ImageSourceProvider {
    /// Returns true.
    public func shouldDrawFamily(_ family: String, for entity: any ImageEntity) -> Bool { true }
    /// Does nothing.
    public func didCancelRequest(at url: URL, for entity: any ImageEntity) {}
}

/// Reads source images from `file://` URLs.
public struct FileSourceProvider: ImageSourceProvider {
    /// Creates a provider.
    public init() {}

    /// Reads the file at `url`.
    public func sourceImage(at url: URL, for entity: any ImageEntity) async throws -> SourceImage {
        guard url.isFileURL else {
            throw ImageCacheError(.sourceUnavailable, "only file URLs can be read by FileSourceProvider, not \(url.absoluteString)")
        }
        do {
            let data = try Data(contentsOf: url)
            return .encoded([UInt8](data))
        } catch {
            throw ImageCacheError(.sourceUnavailable, "cannot read the source image", path: url.path, underlying: error)
        }
    }
}
