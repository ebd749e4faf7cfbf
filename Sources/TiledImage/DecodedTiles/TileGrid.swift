/// The tile grids of an image's levels, whatever serves them: a local pyramid (256-pixel tiles)
/// or a remote tile service (Deep Zoom, IIIF: any tile size). What a viewer needs to choose the
/// tiles of a view and place them, and what a ``TileTable`` checks a tile's address against.
public struct TileGrid: Sendable, Hashable {
    /// One level's size in pixels and tiles (level `k` is the full resolution halved `k` times).
    public struct Level: Sendable, Hashable {
        /// Width in pixels.
        public let width: Int
        /// Height in pixels.
        public let height: Int
        /// Tiles across.
        public let columns: Int
        /// Tiles down.
        public let rows: Int

        /// A level of `width × height` pixels in `columns × rows` tiles.
        public init(width: Int, height: Int, columns: Int, rows: Int) {
            self.width = width
            self.height = height
            self.columns = columns
            self.rows = rows
        }
    }

    /// Tile width and height in pixels (a remote tile's overlap not counted).
    public let tileWidth: Int
    /// Tile height in pixels.
    public let tileHeight: Int
    /// Full resolution first.
    public let levels: [Level]

    /// A grid of these levels.
    public init(tileWidth: Int, tileHeight: Int, levels: [Level]) {
        self.tileWidth = tileWidth
        self.tileHeight = tileHeight
        self.levels = levels
    }

    /// A local pyramid's grid.
    public init(_ geometry: PyramidGeometry) {
        tileWidth = PyramidGeometry.tileSide
        tileHeight = PyramidGeometry.tileSide
        levels = geometry.levels.map { Level(width: $0.width, height: $0.height, columns: $0.columns, rows: $0.rows) }
    }

    /// A remote tile service's grid.
    public init(_ descriptor: TileServiceDescriptor) {
        tileWidth = descriptor.tileWidth
        tileHeight = descriptor.tileHeight
        levels = descriptor.levels.map { Level(width: $0.width, height: $0.height, columns: $0.columns, rows: $0.rows) }
    }

    /// Whether (`column`, `row`) of `level` is a tile of the grid.
    public func contains(level: Int, column: Int, row: Int) -> Bool {
        level >= 0 && level < levels.count && column >= 0 && column < levels[level].columns && row >= 0 && row < levels[level].rows
    }

    /// The pixels of tile (`column`, `row`) of `level` inside the image: its grid cell, smaller
    /// on the right and bottom edges.
    ///
    /// - Precondition: the grid ``contains(level:column:row:)`` the tile.
    public func cellSize(level: Int, column: Int, row: Int) -> (width: Int, height: Int) {
        let info = levels[level]
        return (min(tileWidth, info.width - column * tileWidth), min(tileHeight, info.height - row * tileHeight))
    }

    /// The levels down to the first that is a single tile: coarser ones (a Deep Zoom image goes
    /// down to 1 × 1 pixel) are smaller single tiles, no better as stand-ins and never the best
    /// level for a window larger than a tile.
    public var trimmedToOneTile: TileGrid {
        guard let first = levels.firstIndex(where: { $0.columns == 1 && $0.rows == 1 }) else { return self }
        return TileGrid(tileWidth: tileWidth, tileHeight: tileHeight, levels: Array(levels[...first]))
    }
}
