import FICCore

/// Where every byte of a pyramidal TIFF's header region goes, computed from the levels alone (no
/// I/O): the TIFF header, then each level's IFD followed by its out-of-line values (the tile
/// offset and byte count arrays among them), level after level, all before the first tile byte,
/// as a Cloud-Optimized GeoTIFF lays them out, so that a reader finds every tile from the first
/// bytes of the file.
///
/// The file is classic TIFF (`II*\0`) when an upper bound of its tile data keeps every offset
/// under 4 GiB, BigTIFF (`II+\0`) otherwise: the choice is made before any tile is compressed.
/// Always little-endian. The offset and byte count arrays are zeros here; the writer fills them
/// in place once the tiles are written.
public struct PyramidTIFFLayout: Sendable, Hashable {
    /// The most levels a pyramid may have (a 65535-pixel side halves to 1 in 17 steps).
    public static let maximumLevels = 32

    /// The levels, full resolution first.
    public let levels: [TileLevel]
    /// How tiles are stored.
    public let compression: PyramidTIFFCompression
    /// Whether the samples include associated alpha (RGBA rather than RGB).
    public let hasAlpha: Bool
    /// Whether the file is BigTIFF (64-bit offsets) rather than classic TIFF.
    public let isBigTIFF: Bool
    /// The header region's bytes; the first tile goes right after them.
    public let header: [UInt8]
    /// For each level, the file position of its tile offsets (one field of ``offsetFieldSize``
    /// bytes per tile, in row-major tile order).
    public let tileOffsetsPosition: [Int]
    /// For each level, the file position of its tile byte counts (as ``tileOffsetsPosition``).
    public let tileByteCountsPosition: [Int]
    /// For each level, the file position of its IFD.
    public let directoryPosition: [Int]

    /// Bytes of one offset or byte count: 4 (LONG) in classic TIFF, 8 (LONG8) in BigTIFF.
    public var offsetFieldSize: Int { isBigTIFF ? 8 : 4 }
    /// Samples per pixel: RGB, or RGBA.
    public var samplesPerPixel: Int { hasAlpha ? 4 : 3 }

    /// The layout of a pyramid of `levels` (full resolution first, each next level half the one
    /// before, odd sizes rounded up, as ``PyramidGeometry`` makes them), stored with
    /// `compression`, with alpha when `hasAlpha`. `forceBigTIFF` makes a BigTIFF whatever the size.
    ///
    /// - Throws: `.invalidArgument` for no levels, more than ``maximumLevels``, a level that is
    ///   not half the one before, a side outside 1…65535, JPEG with alpha or a JPEG quality
    ///   outside 1…100.
    public init(levels: [TileLevel], compression: PyramidTIFFCompression, hasAlpha: Bool, forceBigTIFF: Bool = false) throws {
        try Self.validate(levels: levels, compression: compression, hasAlpha: hasAlpha)
        self.levels = levels
        self.compression = compression
        self.hasAlpha = hasAlpha
        var built = HeaderBuilder(levels: levels, compression: compression, hasAlpha: hasAlpha, bigTIFF: forceBigTIFF)
        if !forceBigTIFF,
            built.bytes.count + Self.tileDataBound(levels: levels, compression: compression, hasAlpha: hasAlpha) > Int(UInt32.max)
        {
            built = HeaderBuilder(levels: levels, compression: compression, hasAlpha: hasAlpha, bigTIFF: true)
        }
        isBigTIFF = built.bigTIFF
        header = built.bytes
        tileOffsetsPosition = built.offsetsPositions
        tileByteCountsPosition = built.byteCountsPositions
        directoryPosition = built.directoryPositions
    }

    /// The layout of `geometry`'s levels.
    public init(geometry: PyramidGeometry, compression: PyramidTIFFCompression, hasAlpha: Bool) throws {
        try self.init(levels: geometry.levels, compression: compression, hasAlpha: hasAlpha)
    }

    /// An upper bound of the bytes of one stored tile: raw samples for `.none`; zlib's worst case
    /// for `.deflate` (stored blocks: 5 bytes per 16 KiB, plus the stream's header and check);
    /// for `.jpeg`, twice the raw RGB samples (libjpeg's output for noise at quality 100 stays
    /// well under that) and room for the markers and tables.
    public static func tileBound(compression: PyramidTIFFCompression, hasAlpha: Bool) -> Int {
        let raw = PyramidGeometry.tileSide * PyramidGeometry.tileSide * (hasAlpha ? 4 : 3)
        switch compression {
        case .none: return raw
        case .deflate: return raw + (raw / 16_384 + 1) * 5 + 64
        case .jpeg: return 2 * raw + 4096
        }
    }

    /// An upper bound of all the tile data of `levels`, known before any tile is compressed.
    public static func tileDataBound(levels: [TileLevel], compression: PyramidTIFFCompression, hasAlpha: Bool) -> Int {
        levels.reduce(0) { $0 + $1.tileCount } * tileBound(compression: compression, hasAlpha: hasAlpha)
    }

    private static func validate(levels: [TileLevel], compression: PyramidTIFFCompression, hasAlpha: Bool) throws {
        guard let first = levels.first, levels.count <= maximumLevels else {
            throw ImageCacheError(.invalidArgument, "a pyramidal TIFF needs 1…\(maximumLevels) levels, not \(levels.count)")
        }
        guard first.width >= 1, first.height >= 1, first.width <= PyramidGeometry.maximumSide, first.height <= PyramidGeometry.maximumSide
        else {
            throw ImageCacheError(
                .invalidArgument, "a \(first.width)×\(first.height) level cannot be stored: sides must be 1…\(PyramidGeometry.maximumSide)")
        }
        for (i, level) in levels.enumerated().dropFirst() {
            let above = levels[i - 1]
            guard level.width == (above.width + 1) / 2, level.height == (above.height + 1) / 2 else {
                throw ImageCacheError(
                    .invalidArgument,
                    "level \(i) is \(level.width)×\(level.height), not half of level \(i - 1) (\(above.width)×\(above.height))")
            }
        }
        if case .jpeg(let quality, let chromaQuality) = compression {
            guard !hasAlpha else {
                throw ImageCacheError(.invalidArgument, "JPEG tiles have no alpha: store an image with alpha with deflate or none")
            }
            for value in [quality, chromaQuality ?? quality] where !(1...100).contains(value) {
                throw ImageCacheError(.invalidArgument, "a JPEG quality must be 1…100, not \(value)")
            }
        }
    }
}
