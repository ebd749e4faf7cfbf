import Foundation
import ImageCodec

/// A source image as a provider hands it to the cache.
public enum SourceImage: Sendable {
    /// Encoded bytes (JPEG, PNG, WebP, HEIC, AVIF, JPEG XL, GIF or TIFF). The cache decodes them once per family, at the
    /// largest size the family needs, off the calling task.
    case encoded([UInt8])
    /// Encoded bytes in memory of their own (`ImageBytes`: a file read with one `pread`, or a
    /// download gathered with `ImageBytesBuilder`), never in `malloc`'s heap. The cache decodes
    /// them as it does ``encoded(_:)``.
    case bytes(ImageBytes)
    /// An image that is already decoded.
    case decoded(DecodedImage)
}

/// Supplies source images to the cache when an image is missing (the delegate of the original).
public protocol ImageSourceProvider: Sendable {
    /// Fetches the source image at `url` for `entity`. Called once for all concurrent requests of
    /// the same URL, on a fetch slot of the cache's lanes (at most a few at once), on Swift's
    /// cooperative pool: wait with `await`, and do blocking I/O elsewhere (the cache's own file
    /// provider reads on dedicated threads). Cancellation of the calling task means every waiter
    /// has gone.
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

/// Reads source images from `file://` URLs, on the package's I/O threads (never blocking
/// Swift's cooperative pool).
public struct FileSourceProvider: ImageSourceProvider {
    /// Creates a provider.
    public init() {}

    /// Reads the file at `url`.
    public func sourceImage(at url: URL, for entity: any ImageEntity) async throws -> SourceImage {
        guard url.isFileURL else {
            throw ImageCacheError(.sourceUnavailable, "only file URLs can be read by FileSourceProvider, not \(url.absoluteString)")
        }
        return try await WorkerThreads.blockingIO.run {
            do {
                return .bytes(try ImageBytes(contentsOf: url.path(percentEncoded: false)))
            } catch {
                throw ImageCacheError(.sourceUnavailable, "cannot read the source image", path: url.path, underlying: error)
            }
        }
    }
}
