import FICCore
import FastImageCache
import Foundation
import ImageCodec
import Logging

extension TilePyramid {
    /// A table in `directory` that keeps this pyramid's tiles decoded, at most `maximumTiles` of
    /// them: a tile read once (a JPEG tile decoded, a raw one copied) is then a zero-copy hit, in
    /// this run or the next, for a viewer (``TileTable/cachedTile(level:column:row:)``) and for the
    /// region reader (``PyramidRegionReader/init(_:tiles:)``). Each slot is a whole 256 × 256 tile
    /// (zero beyond the image's edge).
    ///
    /// The table's namespace is named after the pyramid's file (`pyramid-` and a hash of its path),
    /// so that one file keeps one table (the throwaway pyramids of unnamed files share
    /// `pyramid-unnamed`); its version is the pyramid's ``buildIdentity``, so that the tiles of a
    /// file built again, or replaced, are never shown.
    ///
    /// - Throws: what opening an `ImageCache` throws (`.inUse` when another process keeps the
    ///   namespace to itself).
    public func tileTable(directory: String, maximumTiles: Int = 4096, logger: Logger = Logger(label: "TiledImage")) throws -> TileTable {
        try tileTable(directory: directory, maximumTiles: maximumTiles, logger: logger, readDelay: .zero)
    }

    /// The same table, whose reads each end with a pause of `readDelay` (the viewer's tests use it
    /// to see coarser tiles stand in while the sharp ones load).
    package func tileTable(directory: String, maximumTiles: Int = 4096, logger: Logger, readDelay: Duration) throws -> TileTable {
        // A pyramid without a file (a throwaway build) shares one namespace with the others:
        // a new one each time would leave a table behind every run.
        let namespace = path.map { "pyramid-" + SHA256Hex.digest(of: $0, length: 12) } ?? "pyramid-unnamed"
        let base = URL(fileURLWithPath: path ?? "/pyramid-\(buildIdentity)")
        return try TileTable(
            directory: directory, namespace: namespace, grid: TileGrid(geometry), overlap: 0,
            version: buildIdentity, maximumTiles: maximumTiles, provider: PyramidTileProvider(pyramid: self, readDelay: readDelay),
            logger: logger,
            sourcesFillSlots: true
        ) { level, column, row in TileTable.tileURL(in: base, level: level, column: column, row: row) }
    }
}

extension TileTable {
    /// Whether this is `pyramid`'s table: made by ``TilePyramid/tileTable(directory:maximumTiles:logger:)``
    /// for this build of it.
    func holdsTiles(of pyramid: TilePyramid) -> Bool {
        sourcesFillSlots && version == pyramid.buildIdentity && grid == TileGrid(pyramid.geometry)
    }

    /// Calls `body` with tile (`column`, `row`) of `level` of `pyramid` (whose table this is) and
    /// its bytes per row: the stored slot, in place; or, for a tile not stored, the tile read now
    /// on the calling thread and stored for the next time (when the table takes it: a read-only
    /// table gives the bitmap read).
    func withPyramidTile<R>(of pyramid: TilePyramid, level: Int, column: Int, row: Int, _ body: (UnsafeRawPointer, Int) throws -> R)
        throws -> R
    {
        if let stored = cachedTile(level: level, column: column, row: row) {
            return try stored.withUnsafeBytes { try body($0.baseAddress!, stored.bytesPerRow) }
        }
        let image = try PyramidTileProvider.bitmap(of: pyramid, level: level, column: column, row: row)
        if let tile = entity(level, column, row), let stored = try? cache.setImage(image, for: tile, format: Self.formatName) {
            return try stored.withUnsafeBytes { try body($0.baseAddress!, stored.bytesPerRow) }
        }
        return try image.withUnsafeBytes { try body($0.baseAddress!, image.bytesPerRow) }
    }
}

/// Reads a local pyramid's tiles for its ``TileTable``: each decoded (or, raw, copied) straight
/// into a bitmap of a whole tile, on the package's I/O threads (never blocking Swift's
/// cooperative pool).
struct PyramidTileProvider: ImageSourceProvider {
    let pyramid: TilePyramid
    /// A pause after each read (zero but in tests).
    var readDelay: Duration = .zero

    func sourceImage(at url: URL, for entity: any ImageEntity) async throws -> SourceImage {
        guard let tile = TileTable.tile(of: entity) else {
            throw ImageCacheError(.invalidArgument, "a pyramid's table reads only its own tiles, not \(entity.entityID)")
        }
        let pyramid = self.pyramid
        let image = try await WorkerThreads.blockingIO.run {
            try Self.bitmap(of: pyramid, level: tile.level, column: tile.column, row: tile.row)
        }
        if readDelay > .zero { try await Task.sleep(for: readDelay) }
        return .decoded(image)
    }

    /// Tile (`column`, `row`) of `level` read into a bitmap of a whole 256 × 256 tile.
    static func bitmap(of pyramid: TilePyramid, level: Int, column: Int, row: Int) throws -> DecodedImage {
        let side = PyramidGeometry.tileSide
        let image = try DecodedImage(
            allocating: side, height: side, pixelFormat: .bgra32Premultiplied,
            source: ImageInfo(format: .tiff, width: side, height: side, hasAlpha: pyramid.hasAlpha), isOrientationApplied: true,
            zeroFilled: false)
        // A whole tile, rows of `tileRowStride` bytes: the bitmap's own layout.
        try pyramid.readTile(
            level: level, column: column, row: row,
            into: UnsafeMutableRawBufferPointer(start: image.baseAddress, count: side * image.bytesPerRow))
        return image
    }
}
