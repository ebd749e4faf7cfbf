#if Tool
import FICCommandLine
import FICCore
import FastImageCache
import Foundation
import ImageLoader
import TiledImage

/// A remote tiled image opened for the viewer — a Deep Zoom or IIIF service's descriptor, or a
/// pyramidal TIFF read by ranges — checked, its tiles' table (in the cache folder, one namespace
/// per URL) open, and the HTTP loader that fills it. Opened before the window, so that a URL that
/// fails is an error message and a non-zero exit, not a window.
final class RemoteTileSource: TableTileSource {
    let tiles: TileTable
    /// The URL given.
    let name: String
    /// The HTTP client that fetches the descriptor or header and the tiles (no originals cache:
    /// the decoded tiles are what is kept).
    let loader: OriginalsLoader
    /// A pyramidal TIFF's levels (their tiles' stored sizes); nil for a tile service.
    let levels: [PyramidTIFFLevel]?
    /// The bytes the descriptor or the TIFF's header and IFDs took.
    let openingBytes: Int

    private init(tiles: TileTable, name: String, loader: OriginalsLoader, levels: [PyramidTIFFLevel]?) {
        self.tiles = tiles
        self.name = name
        self.loader = loader
        self.levels = levels
        openingBytes = loader.statistics.bytesDownloaded
    }

    /// Fetches the descriptor at `url` and opens the tiles' table in `cacheFolder` (created if
    /// missing). Waits for the fetch: called before the window opens.
    ///
    /// - Throws: ``CLIError`` naming the URL and why (an HTTP status, a descriptor that is not one,
    ///   a cache another viewer holds).
    static func open(_ url: URL, cacheFolder: String) throws -> RemoteTileSource {
        try open(url, cacheFolder: cacheFolder, what: "the remote tiled image") { loader, folder in
            (try await RemoteTiledImage.open(url, loader: loader, directory: folder).tiles, nil)
        }
    }

    /// Reads the header and IFDs of the pyramidal TIFF at `url` by ranges and opens its tiles'
    /// table in `cacheFolder`.
    ///
    /// - Throws: ``CLIError`` naming the URL and why (a server that ignores `Range`, a file that is
    ///   not a tiled pyramid).
    static func openTIFF(_ url: URL, cacheFolder: String) throws -> RemoteTileSource {
        try open(url, cacheFolder: cacheFolder, what: "the remote pyramidal TIFF") { loader, folder in
            let tiff = try await RemotePyramidTIFF.open(url, loader: loader, directory: folder)
            return (tiff.tiles, tiff.levels)
        }
    }

    private static func open(
        _ url: URL, cacheFolder: String, what: String,
        _ opening: @escaping @Sendable (OriginalsLoader, String) async throws -> (TileTable, [PyramidTIFFLevel]?)
    ) throws -> RemoteTileSource {
        do {
            try FileManager.default.createDirectory(atPath: cacheFolder, withIntermediateDirectories: true)
        } catch {
            throw CLIError("cannot make the cache folder \(cacheFolder): \(error.localizedDescription)")
        }
        let loader = OriginalsLoader(originals: nil, logger: CacheOpener.quietLogger)
        switch waitForTask({ try await opening(loader, cacheFolder) }) {
        case .success(let (tiles, levels)):
            return RemoteTileSource(tiles: tiles, name: url.absoluteString, loader: loader, levels: levels)
        case .failure(let error):
            waitForTask { try? await loader.shutdown() }
            throw CLIError("cannot open \(what) \(url.absoluteString): \(error)")
        }
    }

    /// Flushes the tiles' table and shuts the HTTP client down.
    func close() {
        tiles.close()
        let loader = self.loader
        waitForTask { try? await loader.shutdown() }
    }

    var overlayFigures: String {
        let cache = tiles.cache.statistics
        return "fetched \(cache.sourceFetches), decoded \(cache.sourceDecodes)"
    }

    /// Network responses, the descriptor's or header's included, and their bytes.
    var statistics: [String: StatValue] {
        let network = loader.statistics
        return [
            "remote": .int(1), "network_requests": .int(network.downloads), "network_bytes": .int(network.bytesDownloaded),
            "opening_bytes": .int(openingBytes)
        ]
    }

    func storedBytes(level: Int, column: Int, row: Int) -> Int? {
        guard let levels, levels.indices.contains(level) else { return nil }
        return levels[level].storedRange(column: column, row: row)?.count
    }
}
#endif
