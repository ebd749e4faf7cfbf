#if Loader
import FICCore
import FastImageCache
import Foundation
import TiledImage

/// A remote tiled image — a Deep Zoom `.dzi` or a IIIF Image API `info.json` — whose tiles are
/// fetched only when asked for and kept, decoded, in a `TileTable` (TiledImage): the table a local pyramid's
/// tiles are kept in too, so that a tile is shown one way whatever its pyramid's place. A tile
/// shown once is, in this run or the next, a zero-copy hit with no network and no decode; the
/// table is bounded, least recently used tiles going first.
///
/// Tiles go through the cache's lanes: ``tile(level:column:row:priority:)`` on the fast lane for
/// what is on screen, ``prefetch(level:column:row:priority:)`` on the slow lane for the ring around
/// it, ``deprioritize(level:column:row:)`` and ``cancel(level:column:row:)`` as the view moves.
/// Concurrent requests for one tile share one fetch and one decode.
public final class RemoteTiledImage: Sendable {
    /// The descriptor's URL.
    public let url: URL
    /// What the descriptor says: sizes, levels, tile URLs.
    public let descriptor: TileServiceDescriptor
    /// The decoded tiles: the table, its lanes and its grid.
    public let tiles: TileTable

    /// The cache that holds the decoded tiles (one format, `TileTable.formatName`), in its own namespace.
    public var cache: ImageCache { tiles.cache }
    /// Pixels a tile may extend beyond its grid cell on each side (a Deep Zoom overlap), else 0.
    public var overlap: Int { tiles.overlap }

    /// Fetches and checks the descriptor at `url` with `loader`, and opens the tiles' table in
    /// `directory` (namespace `remote-` and a hash of the URL), keeping at most `maximumTiles`.
    ///
    /// - Throws: `ImageCacheError`: the descriptor's fetch or check (`.corruptData`,
    ///   `.dimensionsTooLarge`), or the cache's opening (`.inUse` when another process shows it).
    public static func open(_ url: URL, loader: OriginalsLoader, directory: String, maximumTiles: Int = 4096) async throws
        -> RemoteTiledImage
    {
        let descriptor = try TileServiceDescriptor.parse(try await loader.data(for: url), from: url)
        var overlap = 0
        if case .deepZoom(_, _, let o) = descriptor.service { overlap = o }
        let version = SHA256Hex.digest(
            of:
                "\(url.absoluteString) \(descriptor.width)x\(descriptor.height) \(descriptor.tileWidth)x\(descriptor.tileHeight) \(overlap)",
            length: 12)
        let tiles = try TileTable(
            directory: directory, namespace: "remote-" + SHA256Hex.digest(of: url.absoluteString, length: 12), grid: TileGrid(descriptor),
            overlap: overlap, version: version, maximumTiles: maximumTiles, provider: loader, logger: loader.logger
        ) { level, column, row in descriptor.tileURL(level: level, column: column, row: row) }
        return RemoteTiledImage(url: url, descriptor: descriptor, tiles: tiles)
    }

    private init(url: URL, descriptor: TileServiceDescriptor, tiles: TileTable) {
        self.url = url
        self.descriptor = descriptor
        self.tiles = tiles
    }

    /// The stored tile (`column`, `row`) of `level` (0 = full resolution) now, or nil: the frame
    /// path. Its pixels start at the slot's top-left; ``tileSize(level:column:row:)`` says how
    /// many of them the tile has.
    public func cachedTile(level: Int, column: Int, row: Int) -> CachedImage? {
        tiles.cachedTile(level: level, column: column, row: row)
    }

    /// The tile, fetched and decoded if it is not stored; on the fast lane by default.
    ///
    /// - Throws: `ImageCacheError` `.invalidArgument` for a tile outside the grid, or what the
    ///   fetch, the decode or the cache report (a 404 names the URL).
    public func tile(level: Int, column: Int, row: Int, priority: RequestPriority = .high) async throws -> CachedImage {
        do {
            return try await tiles.tile(level: level, column: column, row: row, priority: priority)
        } catch var error as ImageCacheError where error.code == .invalidArgument && error.path == nil {
            error.path = url.absoluteString
            throw error
        }
    }

    /// Asks for the tile in the background (the slow lane by default), for the ring around the view.
    public func prefetch(level: Int, column: Int, row: Int, priority: RequestPriority = .low) {
        tiles.prefetch(level: level, column: column, row: row, priority: priority)
    }

    /// Moves the tile's requests behind everything on screen (it left the view).
    public func deprioritize(level: Int, column: Int, row: Int) {
        tiles.deprioritize(level: level, column: column, row: row)
    }

    /// Cancels the tile's requests (it went far from the view).
    public func cancel(level: Int, column: Int, row: Int) {
        tiles.cancel(level: level, column: column, row: row)
    }

    /// The pixels tile (`column`, `row`) of `level` has: its grid cell, plus the overlap on the
    /// sides that have a neighbour.
    public func tileSize(level: Int, column: Int, row: Int) -> (width: Int, height: Int)? {
        tiles.tileSize(level: level, column: column, row: row)
    }

    /// Flushes and closes the tiles' cache (optional, as for any cache).
    public func close() {
        tiles.close()
    }
}
#endif
