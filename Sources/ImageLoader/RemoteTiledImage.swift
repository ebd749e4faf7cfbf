#if Loader
import FICCore
import FastImageCache
import Foundation
import TiledImage

/// A remote tiled image — a Deep Zoom `.dzi` or a IIIF Image API `info.json` — whose tiles are
/// fetched only when asked for and kept, decoded, in an image table: Fast Image Cache's own idea
/// applied to tiles. A tile shown once is, in this run or the next, a zero-copy hit with no network
/// and no decode; the table is bounded, least recently used tiles going first.
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
    /// The cache that holds the decoded tiles (one format, `tile`), in its own namespace.
    public let cache: ImageCache
    /// Pixels a tile may extend beyond its grid cell on each side (a Deep Zoom overlap), else 0.
    public let overlap: Int
    /// Identifies the remote image's version: tiles stored for another are stale.
    private let version: String

    /// The name of the tiles' format in ``cache``.
    public static let formatName = "tile"

    /// Fetches and checks the descriptor at `url` with `loader`, and opens the tiles' cache in
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
        let format = try ImageFormat(
            name: formatName, size: CGSize(width: descriptor.tileWidth + 2 * overlap, height: descriptor.tileHeight + 2 * overlap),
            scale: 1, style: .bgra32Premultiplied, maximumCount: max(16, maximumTiles))
        let namespace = "remote-" + SHA256Hex.digest(of: url.absoluteString, length: 12)
        let cache = try ImageCache(directory: directory, namespace: namespace, formats: [format], provider: loader)
        let version = SHA256Hex.digest(
            of:
                "\(url.absoluteString) \(descriptor.width)x\(descriptor.height) \(descriptor.tileWidth)x\(descriptor.tileHeight) \(overlap)",
            length: 12)
        return RemoteTiledImage(url: url, descriptor: descriptor, cache: cache, overlap: overlap, version: version)
    }

    private init(url: URL, descriptor: TileServiceDescriptor, cache: ImageCache, overlap: Int, version: String) {
        self.url = url
        self.descriptor = descriptor
        self.cache = cache
        self.overlap = overlap
        self.version = version
    }

    /// The stored tile (`column`, `row`) of `level` (0 = full resolution) now, or nil: the frame
    /// path. Its pixels start at the slot's top-left; ``tileSize(level:column:row:)`` says how
    /// many of them the tile has.
    public func cachedTile(level: Int, column: Int, row: Int) -> CachedImage? {
        guard let tile = entity(level, column, row) else { return nil }
        return cache.cachedImage(for: tile, format: Self.formatName)
    }

    /// The tile, fetched and decoded if it is not stored; on the fast lane by default.
    ///
    /// - Throws: `ImageCacheError` `.invalidArgument` for a tile outside the grid, or what the
    ///   fetch, the decode or the cache report (a 404 names the URL).
    public func tile(level: Int, column: Int, row: Int, priority: RequestPriority = .high) async throws -> CachedImage {
        guard let tile = entity(level, column, row) else {
            throw ImageCacheError(.invalidArgument, "the image has no tile (\(column), \(row)) at level \(level)", path: url.absoluteString)
        }
        return try await cache.image(for: tile, format: Self.formatName, priority: priority)
    }

    /// Asks for the tile in the background (the slow lane by default), for the ring around the view.
    public func prefetch(level: Int, column: Int, row: Int, priority: RequestPriority = .low) {
        if let tile = entity(level, column, row) { cache.prefetch(tile, format: Self.formatName, priority: priority) }
    }

    /// Moves the tile's requests behind everything on screen (it left the view).
    public func deprioritize(level: Int, column: Int, row: Int) {
        if let tile = entity(level, column, row) { cache.deprioritize(tile, format: Self.formatName) }
    }

    /// Cancels the tile's requests (it went far from the view).
    public func cancel(level: Int, column: Int, row: Int) {
        if let tile = entity(level, column, row) { cache.cancelRequest(for: tile, format: Self.formatName) }
    }

    /// The pixels tile (`column`, `row`) of `level` has: its grid cell, plus the overlap on the
    /// sides that have a neighbour.
    public func tileSize(level: Int, column: Int, row: Int) -> (width: Int, height: Int)? {
        guard level >= 0, level < descriptor.levels.count else { return nil }
        let grid = descriptor.levels[level]
        guard column >= 0, column < grid.columns, row >= 0, row < grid.rows else { return nil }
        let width =
            min(descriptor.tileWidth, grid.width - column * descriptor.tileWidth)
            + (column > 0 ? overlap : 0) + (column < grid.columns - 1 ? overlap : 0)
        let height =
            min(descriptor.tileHeight, grid.height - row * descriptor.tileHeight)
            + (row > 0 ? overlap : 0) + (row < grid.rows - 1 ? overlap : 0)
        return (width, height)
    }

    /// Flushes and closes the tiles' cache (optional, as for any cache).
    public func close() {
        cache.close()
    }

    /// The cache's entity for a tile inside the grid.
    private func entity(_ level: Int, _ column: Int, _ row: Int) -> RemoteTile? {
        guard let size = tileSize(level: level, column: column, row: row) else { return nil }
        return RemoteTile(
            entityID: "\(level)/\(column)/\(row)", sourceImageID: version,
            url: descriptor.tileURL(level: level, column: column, row: row), width: size.width, height: size.height)
    }
}

/// One tile as the cache's entity: drawn as it is, at the slot's top-left, without scaling.
struct RemoteTile: ImageEntity {
    let entityID: String
    let sourceImageID: String
    let url: URL
    let width: Int
    let height: Int

    func sourceImageURL(for format: ImageFormat) -> URL? { url }

    func draw(_ source: DecodedImage, format: ImageFormat, canvas: ImageCanvas) throws {
        guard source.width == width, source.height == height else {
            throw ImageCacheError(
                .corruptData,
                "the tile at \(url.absoluteString) is \(source.width)×\(source.height) pixels where the descriptor says \(width)×\(height)")
        }
        canvas.draw(source, in: CGRect(x: 0, y: 0, width: width, height: height), contentMode: .stretch)
    }
}
#endif
