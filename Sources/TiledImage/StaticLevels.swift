import ImageCodec

/// The levels a static tile tree needs, full resolution first, down to 1 × 1: the pyramid's own
/// levels, then (below its smallest, which fits in one tile or in the view it was built for)
/// levels halved in memory from that smallest one, as the pyramid halves its own (2 × 2 boxes of
/// premultiplied pixels, odd sizes rounded up, an edge box averaging the pixels it has).
package struct StaticLevels: Sendable {
    /// One level's pixels: tiles of the pyramid, or a bitmap in memory.
    package enum Source: Sendable {
        case pyramid(TileLevel)
        case memory(width: Int, height: Int, pixels: [UInt8])
    }

    /// The levels, full resolution first, the last 1 × 1.
    package let levels: [Source]
    private let pyramid: TilePyramid
    /// Where the pyramid's tiles are kept decoded, if anywhere: hits are read from it, misses
    /// stored in it.
    private let tiles: TileTable?

    /// The levels of `pyramid`, whose tiles are kept decoded in `tiles` when given.
    package init(_ pyramid: TilePyramid, tiles: TileTable? = nil) throws {
        if let tiles, !tiles.holdsTiles(of: pyramid) {
            throw ImageCacheError(
                .invalidArgument, "the tile table given is not this pyramid's (TilePyramid.tileTable(directory:))", path: pyramid.path)
        }
        self.pyramid = pyramid
        self.tiles = tiles
        var levels = pyramid.geometry.levels.map(Source.pyramid)
        guard let smallest = pyramid.geometry.levels.last else {
            throw ImageCacheError(.damagedPyramid, "the pyramid has no levels", path: pyramid.path)
        }
        var (width, height, pixels) = try Self.assemble(smallest, of: pyramid)
        while width > 1 || height > 1 {
            (width, height, pixels) = Self.halve(width: width, height: height, pixels)
            levels.append(.memory(width: width, height: height, pixels: pixels))
        }
        self.levels = levels
    }

    /// The size of `level`.
    package func size(of level: Int) -> (width: Int, height: Int) {
        switch levels[level] {
        case .pyramid(let info): (info.width, info.height)
        case .memory(let width, let height, _): (width, height)
        }
    }

    /// Tile (`column`, `row`) of `level` as the JPEG file the pyramid stores for it, when it is a
    /// level of the pyramid (not one made in memory below it) opened from a pyramidal TIFF of
    /// whole 256 × 256 JPEG tiles (``TilePyramid/storedJPEGTile(level:column:row:)``); else nil.
    package func storedJPEG(level: Int, column: Int, row: Int) throws -> [UInt8]? {
        guard case .pyramid(let info) = levels[level] else { return nil }
        return try pyramid.storedJPEGTile(level: info.index, column: column, row: row)
    }

    /// Calls `body` with tile (`column`, `row`) of `level`: its top-left pixel, its bytes per row
    /// and its size within the image (edge tiles are smaller than 256 × 256). A pyramid's tile is
    /// read into `buffer` (one `pread`): mapping levels of gigabytes would count every page read
    /// in the process's resident memory. With a tile table, a stored tile is read from it in
    /// place, and a tile read is stored in it for the next time.
    package func withTile<R>(level: Int, column: Int, row: Int, buffer: TileBuffer, _ body: (UnsafeRawPointer, Int, Int, Int) throws -> R)
        throws -> R
    {
        let side = PyramidGeometry.tileSide
        switch levels[level] {
        case .pyramid(let info):
            let (width, height) = info.validSize(column: column, row: row)
            if let tiles {
                return try tiles.withPyramidTile(of: pyramid, level: info.index, column: column, row: row) { tile, bytesPerRow in
                    try body(tile, bytesPerRow, width, height)
                }
            }
            try pyramid.readTile(level: info.index, column: column, row: row, into: buffer)
            return try buffer.withUnsafeBytes { tile in
                try body(tile.baseAddress!, PyramidGeometry.tileRowStride, width, height)
            }
        case .memory(let levelWidth, let levelHeight, let pixels):
            let width = min(side, levelWidth - column * side), height = min(side, levelHeight - row * side)
            return try pixels.withUnsafeBytes { raw in
                try body(raw.baseAddress! + (row * side * levelWidth + column * side) * 4, levelWidth * 4, width, height)
            }
        }
    }

    /// The pyramid's `level` as one bitmap (4 bytes a pixel, rows `width × 4` apart).
    private static func assemble(_ level: TileLevel, of pyramid: TilePyramid) throws -> (Int, Int, [UInt8]) {
        let side = PyramidGeometry.tileSide
        var pixels = [UInt8](repeating: 0, count: level.width * level.height * 4)
        try pixels.withUnsafeMutableBytes { out in
            for row in 0..<level.rows {
                for column in 0..<level.columns {
                    let (width, height) = level.validSize(column: column, row: row)
                    try pyramid.withMappedTile(level: level.index, column: column, row: row) { tile in
                        for y in 0..<height {
                            let to = out.baseAddress! + ((row * side + y) * level.width + column * side) * 4
                            to.copyMemory(from: tile.baseAddress! + y * PyramidGeometry.tileRowStride, byteCount: width * 4)
                        }
                    }
                }
            }
        }
        return (level.width, level.height, pixels)
    }

    /// `pixels` (`width × height`) halved, odd sizes rounded up.
    private static func halve(width: Int, height: Int, _ pixels: [UInt8]) -> (Int, Int, [UInt8]) {
        let halfWidth = (width + 1) / 2, halfHeight = (height + 1) / 2
        var out = [UInt8](repeating: 0, count: halfWidth * halfHeight * 4)
        for y in 0..<halfHeight {
            for x in 0..<halfWidth {
                let xs = [2 * x, 2 * x + 1].filter { $0 < width }, ys = [2 * y, 2 * y + 1].filter { $0 < height }
                for channel in 0..<4 {
                    var sum = 0
                    for sy in ys { for sx in xs { sum += Int(pixels[(sy * width + sx) * 4 + channel]) } }
                    let count = xs.count * ys.count
                    out[(y * halfWidth + x) * 4 + channel] = UInt8((sum + count / 2) / count)
                }
            }
        }
        return (halfWidth, halfHeight, out)
    }
}
