#if Tool
import TiledImage

/// The tile grids of an image's levels, whatever serves them: a local pyramid (256-pixel tiles)
/// or a remote tile service (Deep Zoom, IIIF: any tile size). What ``TilePlan`` needs to choose
/// tiles, and the drawing to place them.
struct TileGrid: Equatable {
    /// One level's size in pixels and tiles (level `k` is the full resolution halved `k` times).
    struct Level: Equatable {
        let width: Int
        let height: Int
        let columns: Int
        let rows: Int
    }

    /// Tile width and height in pixels (a remote tile's overlap not counted).
    let tileWidth: Int
    let tileHeight: Int
    /// Full resolution first.
    let levels: [Level]

    /// A grid of these levels.
    init(tileWidth: Int, tileHeight: Int, levels: [Level]) {
        self.tileWidth = tileWidth
        self.tileHeight = tileHeight
        self.levels = levels
    }

    /// A local pyramid's grid.
    init(_ geometry: PyramidGeometry) {
        tileWidth = PyramidGeometry.tileSide
        tileHeight = PyramidGeometry.tileSide
        levels = geometry.levels.map { Level(width: $0.width, height: $0.height, columns: $0.columns, rows: $0.rows) }
    }

    /// A remote tile service's grid.
    init(_ descriptor: TileServiceDescriptor) {
        tileWidth = descriptor.tileWidth
        tileHeight = descriptor.tileHeight
        levels = descriptor.levels.map { Level(width: $0.width, height: $0.height, columns: $0.columns, rows: $0.rows) }
    }

    /// The pixels of tile (`column`, `row`) of `level` inside the image: its grid cell, smaller
    /// on the right and bottom edges.
    func cellSize(level: Int, column: Int, row: Int) -> (width: Int, height: Int) {
        let info = levels[level]
        return (min(tileWidth, info.width - column * tileWidth), min(tileHeight, info.height - row * tileHeight))
    }
}

extension TileGrid {
    /// The levels down to the first that is a single tile: coarser ones (a Deep Zoom image goes
    /// down to 1 × 1 pixel) are smaller single tiles, no better as stand-ins and never the best
    /// level for a window larger than a tile.
    var trimmedToOneTile: TileGrid {
        guard let first = levels.firstIndex(where: { $0.columns == 1 && $0.rows == 1 }) else { return self }
        return TileGrid(tileWidth: tileWidth, tileHeight: tileHeight, levels: Array(levels[...first]))
    }
}
#endif
