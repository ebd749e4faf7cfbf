import FICCore
import FastImageCache
import Foundation
import ImageCodec
import Logging

/// The decoded tiles of one tiled image, kept in an image table of tile-sized slots: Fast Image
/// Cache's own idea applied to tiles, whatever the pyramid's place. A local pyramidal TIFF
/// (``TilePyramid/tileTable(directory:maximumTiles:logger:)``) and a remote Deep Zoom or IIIF
/// service (`ImageLoader`'s `RemoteTiledImage`) show their tiles the same way: a tile is decoded
/// once, then, in this run or the next, is a zero-copy hit; the table is bounded, least recently
/// used tiles going first.
///
/// Tiles go through the cache's lanes: ``tile(level:column:row:priority:)`` on the fast lane for
/// what is on screen, ``prefetch(level:column:row:priority:)`` on the slow lane for the ring around
/// it, ``deprioritize(level:column:row:)`` and ``cancel(level:column:row:)`` as the view moves.
/// Concurrent requests for one tile share one read and one decode. ``cachedTile(level:column:row:)``
/// is the frame path: it never waits.
public final class TileTable: Sendable {
    /// The cache that holds the tiles (one format, ``formatName``), in a namespace of its own.
    public let cache: ImageCache
    /// The levels and their tiles.
    public let grid: TileGrid
    /// Pixels a tile may extend beyond its grid cell on each side (a Deep Zoom overlap), else 0.
    public let overlap: Int
    /// Names the image's version: tiles stored for another are stale, never shown.
    public let version: String
    /// Where each tile's source is (what the provider is asked for).
    private let tileURL: @Sendable (_ level: Int, _ column: Int, _ row: Int) -> URL
    /// Whether a tile's source is a whole slot (a local pyramid's 256 × 256 tile, zero beyond the
    /// image) rather than exactly the tile's pixels (a remote tile).
    let sourcesFillSlots: Bool

    /// The name of the tiles' format in ``cache``.
    public static let formatName = "tile"

    /// Opens the table of a tiled image in `directory`, namespace `namespace`, holding at most
    /// `maximumTiles` tiles: each slot a tile of `grid` with `overlap` pixels on each side. Tiles
    /// missing are asked of `provider` at `tileURL(level, column, row)`; each must be exactly
    /// ``tileSize(level:column:row:)`` (a remote tile of another size is refused as corrupt).
    ///
    /// - Throws: `ImageCacheError`: `.invalidArgument` for an empty grid or a negative overlap,
    ///   what opening the cache throws (`.inUse` when another process keeps the namespace to itself).
    public convenience init(
        directory: String, namespace: String, grid: TileGrid, overlap: Int = 0, version: String, maximumTiles: Int = 4096,
        provider: any ImageSourceProvider, logger: Logger = Logger(label: "TiledImage"),
        tileURL: @escaping @Sendable (_ level: Int, _ column: Int, _ row: Int) -> URL
    ) throws {
        try self.init(
            directory: directory, namespace: namespace, grid: grid, overlap: overlap, version: version, maximumTiles: maximumTiles,
            provider: provider, logger: logger, sourcesFillSlots: false, tileURL: tileURL)
    }

    init(
        directory: String, namespace: String, grid: TileGrid, overlap: Int, version: String, maximumTiles: Int,
        provider: any ImageSourceProvider, logger: Logger, sourcesFillSlots: Bool,
        tileURL: @escaping @Sendable (_ level: Int, _ column: Int, _ row: Int) -> URL
    ) throws {
        guard !grid.levels.isEmpty, grid.tileWidth > 0, grid.tileHeight > 0, overlap >= 0 else {
            throw ImageCacheError(.invalidArgument, "a tile table needs levels, positive tile sides and an overlap of 0 or more")
        }
        let format = try ImageFormat(
            name: Self.formatName, size: CGSize(width: grid.tileWidth + 2 * overlap, height: grid.tileHeight + 2 * overlap),
            scale: 1, style: .bgra32Premultiplied, maximumCount: max(16, maximumTiles))
        cache = try ImageCache(directory: directory, namespace: namespace, formats: [format], provider: provider, logger: logger)
        self.grid = grid
        self.overlap = overlap
        self.version = version
        self.tileURL = tileURL
        self.sourcesFillSlots = sourcesFillSlots
    }

    /// The stored tile (`column`, `row`) of `level` (0 = full resolution) now, or nil: the frame
    /// path, never waiting. Its pixels start at the slot's top-left; ``tileSize(level:column:row:)``
    /// says how many of them the tile has.
    public func cachedTile(level: Int, column: Int, row: Int) -> CachedImage? {
        guard let tile = entity(level, column, row) else { return nil }
        return cache.cachedImage(for: tile, format: Self.formatName)
    }

    /// The tile, read and decoded if it is not stored; on the fast lane by default.
    ///
    /// - Throws: `ImageCacheError` `.invalidArgument` for a tile outside the grid, or what the
    ///   provider, the decode or the cache report.
    public func tile(level: Int, column: Int, row: Int, priority: RequestPriority = .high) async throws -> CachedImage {
        guard let tile = entity(level, column, row) else {
            throw ImageCacheError(.invalidArgument, "the image has no tile (\(column), \(row)) at level \(level)")
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
    /// sides that have a neighbour; nil outside the grid.
    public func tileSize(level: Int, column: Int, row: Int) -> (width: Int, height: Int)? {
        guard grid.contains(level: level, column: column, row: row) else { return nil }
        let info = grid.levels[level]
        let cell = grid.cellSize(level: level, column: column, row: row)
        let width = cell.width + (column > 0 ? overlap : 0) + (column < info.columns - 1 ? overlap : 0)
        let height = cell.height + (row > 0 ? overlap : 0) + (row < info.rows - 1 ? overlap : 0)
        return (width, height)
    }

    /// Where the tile's grid cell starts in its pixels: after the overlap on the sides that have a
    /// neighbour.
    public func cellOrigin(column: Int, row: Int) -> (x: Int, y: Int) {
        (column > 0 ? overlap : 0, row > 0 ? overlap : 0)
    }

    /// The tile a provider of a table is asked for: the entity a ``TileTable`` hands it (nil for
    /// any other entity).
    public static func tile(of entity: any ImageEntity) -> (level: Int, column: Int, row: Int)? {
        (entity as? TableTile).map { ($0.level, $0.column, $0.row) }
    }

    /// `file` with the tile in its fragment: a tile's URL for a table whose tiles all lie in one
    /// file (one URL a tile, since the cache shares a source between the requests of one URL).
    public static func tileURL(in file: URL, level: Int, column: Int, row: Int) -> URL {
        var components = URLComponents(url: file, resolvingAgainstBaseURL: false)!
        components.fragment = "tile=\(level)/\(column)/\(row)"
        return components.url!
    }

    /// Flushes and closes the tiles' cache (optional, as for any cache).
    public func close() {
        cache.close()
    }

    /// The cache's entity for a tile inside the grid.
    func entity(_ level: Int, _ column: Int, _ row: Int) -> TableTile? {
        guard let size = tileSize(level: level, column: column, row: row) else { return nil }
        let source = sourcesFillSlots ? (grid.tileWidth, grid.tileHeight) : size
        return TableTile(
            entityID: "\(level)/\(column)/\(row)", sourceImageID: version, url: tileURL(level, column, row), level: level, column: column,
            row: row, width: source.0, height: source.1)
    }
}

/// One tile as the cache's entity: its source drawn as it is, at the slot's top-left, unscaled.
struct TableTile: ImageEntity {
    let entityID: String
    let sourceImageID: String
    let url: URL
    let level: Int
    let column: Int
    let row: Int
    /// The source's size: anything else is refused (a remote tile that does not match its descriptor).
    let width: Int
    let height: Int

    func sourceImageURL(for format: ImageFormat) -> URL? { url }

    func draw(_ source: DecodedImage, format: ImageFormat, canvas: ImageCanvas) throws {
        guard source.width == width, source.height == height else {
            throw ImageCacheError(
                .corruptData,
                "the tile at \(url.absoluteString) is \(source.width)×\(source.height) pixels where its image says \(width)×\(height)")
        }
        canvas.draw(source, in: CGRect(x: 0, y: 0, width: width, height: height), contentMode: .stretch)
    }
}
