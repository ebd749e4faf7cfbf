#if Tool
import FICCore
import Foundation
import ImageLoader
import TiledImage

/// A tile pyramid built from an http(s) URL while it downloads: the download's chunks go
/// straight into a `TilePyramidBuilder` (no copy of the file on disk, no full bitmap). The one
/// place in `fic` that wires the loader to the pyramid builder; `fic tile URL` and
/// `fic view photo URL` both use it.
///
/// Failures are `ImageCacheError`s: from the loader (`.httpStatus`, `.network`, `.timedOut`,
/// `.truncated`, `.bodyTooLarge`, …) or from the builder (`.stalled`, `.interrupted`,
/// `.unsupportedFormat` for a body that is not an image, `.truncated`, …). A failure once the
/// body has started removes every file of the build, as a failing file input does; a failure
/// before the body (an HTTP error, no connection) touches nothing.
enum PyramidDownload {
    /// What a finished download built.
    struct Result: Sendable {
        /// The finished pyramid.
        let pyramid: TilePyramid
        /// Body bytes received from the network.
        let bytesDownloaded: Int
    }

    /// The loader's limits for pyramids: no body-size limit of its own (the builder's pixel
    /// limit, checked at the image's header, bounds what is built), an hour for the whole
    /// download, `idleTimeout` without a byte for a stalled body (the loader's default, 15 s,
    /// unless given), and no back-off memory (each run is one download).
    static func configuration(idleTimeout: Duration?) -> LoaderConfiguration {
        LoaderConfiguration(
            maximumBodyBytes: Int.max, idleTimeout: idleTimeout ?? LoaderConfiguration().idleTimeout,
            totalTimeout: .seconds(3600), failureBackoff: .zero)
    }

    /// Whether `text` is an http(s) URL rather than a file.
    static func isURL(_ text: String) -> Bool {
        let lower = text.lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }

    /// Downloads `url` into a pyramid at `destination`. `started` is called once the body
    /// begins, with its announced length (nil when unknown); `received` after each chunk with
    /// that chunk's size; `building` with the builder, before its first byte (to read its tiles
    /// during the build). `idleTimeout` (default 15 s) is how long the server may send nothing.
    /// Cancelling the calling task stops the download and removes the build.
    static func build(
        _ url: String, destination: TilePyramidDestination, options: TilePyramidOptions, idleTimeout: Duration? = nil,
        started: @escaping @Sendable (Int?) -> Void = { _ in },
        received: @escaping @Sendable (Int) -> Void = { _ in },
        building: @escaping @Sendable (TilePyramidBuilder) -> Void = { _ in }
    ) async throws -> Result {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), scheme == "http" || scheme == "https",
            parsed.host?.isEmpty == false
        else {
            throw ImageCacheError(
                .unsupportedURL,
                "'\(url)' is not an http(s) URL with a host; give an image file or a URL such as https://example.org/photo.jpg", path: url)
        }
        let loader = OriginalsLoader(configuration: configuration(idleTimeout: idleTimeout), originals: nil)
        do {
            let download = try await loader.download(parsed)
            started(download.expectedLength)
            let chunks = download.chunks.map { @Sendable (chunk: [UInt8]) -> [UInt8] in
                received(chunk.count)
                return chunk
            }
            let builder = try TilePyramidBuilder(destination: destination, options: options)
            building(builder)
            let pyramid = try await builder.build(from: chunks)
            let bytes = loader.statistics.bytesDownloaded
            try? await loader.shutdown()
            return Result(pyramid: pyramid, bytesDownloaded: bytes)
        } catch {
            try? await loader.shutdown()
            throw error
        }
    }
}
#endif
