#if Tool
import FICCommandLine
import FICCore
import FastImageCache
import Foundation
import ImageLoader
import TiledImage

/// A remote tiled image opened for the viewer: its descriptor fetched and checked, its tiles'
/// cache (an image table in the cache folder, one namespace per descriptor URL) open, and the
/// HTTP loader that fills it. Opened before the window, so that a descriptor that fails is an
/// error message and a non-zero exit, not a window.
final class RemoteTileSource: TableTileSource {
    /// The image: its descriptor and its tiles' cache.
    let image: RemoteTiledImage
    /// The HTTP client that fetches the descriptor and the tiles (no originals cache: the decoded
    /// tiles are what is kept).
    let loader: OriginalsLoader

    private init(image: RemoteTiledImage, loader: OriginalsLoader) {
        self.image = image
        self.loader = loader
    }

    /// Fetches the descriptor at `url` and opens the tiles' cache in `cacheFolder` (created if
    /// missing). Waits for the fetch: called before the window opens.
    ///
    /// - Throws: ``CLIError`` naming the URL and why (an HTTP status, a descriptor that is not one,
    ///   a cache another viewer holds).
    static func open(_ url: URL, cacheFolder: String) throws -> RemoteTileSource {
        do {
            try FileManager.default.createDirectory(atPath: cacheFolder, withIntermediateDirectories: true)
        } catch {
            throw CLIError("cannot make the cache folder \(cacheFolder): \(error.localizedDescription)")
        }
        let loader = OriginalsLoader(originals: nil, logger: CacheOpener.quietLogger)
        let result = waitForTask { try await RemoteTiledImage.open(url, loader: loader, directory: cacheFolder) }
        switch result {
        case .success(let image):
            return RemoteTileSource(image: image, loader: loader)
        case .failure(let error):
            waitForTask { try? await loader.shutdown() }
            throw CLIError("cannot open the remote tiled image \(url.absoluteString): \(error)")
        }
    }

    /// Flushes the tiles' cache and shuts the HTTP client down.
    func close() {
        image.close()
        let loader = self.loader
        waitForTask { try? await loader.shutdown() }
    }

    var tiles: TileTable { image.tiles }
    var name: String { image.url.absoluteString }

    var overlayFigures: String {
        let cache = image.cache.statistics
        return "fetched \(cache.sourceFetches), decoded \(cache.sourceDecodes)"
    }

    /// Network responses, the descriptor's included.
    var statistics: [String: StatValue] {
        ["remote": .int(1), "network_requests": .int(loader.statistics.downloads)]
    }
}
#endif
