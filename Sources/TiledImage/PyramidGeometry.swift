/// The size of one zoom level of a tile pyramid.
public struct TileLevel: Sendable, Hashable {
    /// The level's index: 0 is full resolution, each next level is half the one before.
    public let index: Int
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int

    /// Tiles across.
    public var columns: Int { (width + PyramidGeometry.tileSide - 1) / PyramidGeometry.tileSide }
    /// Tiles down.
    public var rows: Int { (height + PyramidGeometry.tileSide - 1) / PyramidGeometry.tileSide }
    /// Tiles in the level.
    public var tileCount: Int { columns * rows }
    /// Bytes of the level's file: every tile, edge tiles padded.
    public var byteCount: Int { tileCount * PyramidGeometry.tileBytes }
    /// Bytes of one row of tiles, the unit written at a time.
    public var tileRowBytes: Int { columns * PyramidGeometry.tileBytes }

    /// The pixel size of tile (`column`, `row`) without its padding.
    public func validSize(column: Int, row: Int) -> (width: Int, height: Int) {
        let side = PyramidGeometry.tileSide
        return (min(side, width - column * side), min(side, height - row * side))
    }
}

/// The levels of a tile pyramid: 256 × 256 tiles of 4 bytes a pixel (BGRA, premultiplied alpha;
/// opaque images have alpha 255, so their tiles are also valid BGRX), each tile stored contiguously
/// (row after row, 1024 bytes a row) in row-major tile order, one file per level. Tiles on the
/// right and bottom edges are padded with zero bytes (transparent black).
///
/// Each level is half the one above, odd sizes rounded up, down to the first level that fits in
/// the view size given, or into a single tile.
public struct PyramidGeometry: Sendable, Hashable {
    /// The side of a tile in pixels.
    public static let tileSide = 256
    /// Bytes per pixel.
    public static let bytesPerPixel = 4
    /// Bytes per tile row.
    public static let tileRowStride = tileSide * bytesPerPixel
    /// Bytes per tile.
    public static let tileBytes = tileSide * tileSide * bytesPerPixel
    /// The largest side accepted (JPEG's own limit).
    public static let maximumSide = 65_535

    /// Full-resolution width (upright).
    public let width: Int
    /// Full-resolution height (upright).
    public let height: Int
    /// The levels, full resolution first.
    public let levels: [TileLevel]

    /// The levels of an upright `width × height` image, down to the first level that fits in
    /// `viewSize` (or in one tile when `viewSize` is nil).
    public init(width: Int, height: Int, viewSize: (width: Int, height: Int)? = nil) throws {
        try Self.checkTileable(width: width, height: height)
        let fitWidth = max(1, viewSize?.width ?? Self.tileSide)
        let fitHeight = max(1, viewSize?.height ?? Self.tileSide)
        var levels = [TileLevel(index: 0, width: width, height: height)]
        while let last = levels.last, last.width > fitWidth || last.height > fitHeight, last.width > 1 || last.height > 1 {
            levels.append(TileLevel(index: levels.count, width: (last.width + 1) / 2, height: (last.height + 1) / 2))
        }
        self.width = width
        self.height = height
        self.levels = levels
    }

    /// The levels of a pyramid whose sizes another tool chose (a pyramidal TIFF's reduced
    /// images, which ``PyramidTIFFReader`` has checked are each half the one before, rounded down
    /// as libvips does or up as this package does), full resolution first.
    ///
    /// - Throws: `.dimensionsTooLarge` for a side beyond ``maximumSide``; `.damagedPyramid` for
    ///   no levels.
    package init(levelSizes: [(width: Int, height: Int)]) throws {
        guard let first = levelSizes.first else { throw ImageCacheError(.damagedPyramid, "the pyramid has no levels") }
        try Self.checkTileable(width: first.width, height: first.height)
        width = first.width
        height = first.height
        levels = levelSizes.enumerated().map { TileLevel(index: $0.offset, width: $0.element.width, height: $0.element.height) }
    }

    /// Throws `.dimensionsTooLarge` unless each side is 1…``maximumSide`` pixels.
    private static func checkTileable(width: Int, height: Int) throws {
        guard width > 0, height > 0, width <= maximumSide, height <= maximumSide else {
            throw ImageCacheError(
                .dimensionsTooLarge, "a \(width)×\(height) image cannot be tiled: each side must be 1…\(maximumSide) pixels")
        }
    }

    /// Bytes of every level's file together.
    public var byteCount: Int { levels.reduce(0) { $0 + $1.byteCount } }
    /// Tiles in every level together.
    public var tileCount: Int { levels.reduce(0) { $0 + $1.tileCount } }
}
