import FICCore

/// A pyramidal TIFF's levels as the package's tiles: 256 × 256 pixels, BGRA premultiplied, the
/// part beyond the level's edge zero, whatever tile size the file was written with (libvips
/// writes 128 × 128 by default, other tools 512 × 512). A package tile is put together from the
/// file's tiles that cover it, each decoded once per read.
///
/// Thread-safe: each read decodes into memory of its own.
final class PyramidTIFFTiles: Sendable {
    /// The file's reader.
    let reader: PyramidTIFFReader
    /// The levels, with the sizes the file gives them.
    let geometry: PyramidGeometry

    /// The widest and tallest the smallest level may be: the levels below it are made in memory
    /// from a bitmap of it (4 MiB at most).
    static let smallestLevelSide = 1024

    /// The tiles of `reader`'s levels (which the reader has checked are successive halvings).
    ///
    /// - Throws: `.dimensionsTooLarge` for an image wider or taller than
    ///   ``PyramidGeometry/maximumSide``; `.unsupportedFormat` for a file whose smallest level is
    ///   larger than ``smallestLevelSide`` on a side (a tiled TIFF without its reduced levels is
    ///   no pyramid: opening it would assemble its full resolution in memory).
    init(_ reader: PyramidTIFFReader) throws {
        self.reader = reader
        geometry = try PyramidGeometry(levelSizes: reader.levels.map { ($0.width, $0.height) })
        if let smallest = geometry.levels.last, max(smallest.width, smallest.height) > Self.smallestLevelSide {
            throw ImageCacheError(
                .unsupportedFormat,
                "the TIFF's smallest level is \(smallest.width)×\(smallest.height): a pyramid's must fit in \(Self.smallestLevelSide) × \(Self.smallestLevelSide) (a tiled TIFF without reduced levels is no pyramid; `vips tiffsave --tile --pyramid` writes one, `fic tile` builds one)"
            )
        }
    }

    /// Whether the file's samples carry alpha.
    var hasAlpha: Bool { reader.levels.first?.hasAlpha ?? false }

    /// Writes tile (`column`, `row`) of `level` into `tile` (at least 256 KiB): 256 rows of 1024
    /// bytes. The caller has checked that the tile is in the level.
    func read(level: Int, column: Int, row: Int, into tile: UnsafeMutableRawBufferPointer) throws {
        let side = PyramidGeometry.tileSide, rowBytes = PyramidGeometry.tileRowStride
        let info = reader.levels[level]
        let x0 = column * side, y0 = row * side
        let x1 = min(x0 + side, info.width), y1 = min(y0 + side, info.height)
        tile.baseAddress!.initializeMemory(as: UInt8.self, repeating: 0, count: PyramidGeometry.tileBytes)
        for fileRow in (y0 / info.tileHeight)...((y1 - 1) / info.tileHeight) {
            for fileColumn in (x0 / info.tileWidth)...((x1 - 1) / info.tileWidth) {
                let pixels = try reader.decodeTile(level: level, column: fileColumn, row: fileRow)
                // The part of the file's tile inside both the package's tile and the level.
                let left = max(x0, fileColumn * info.tileWidth), right = min(x1, (fileColumn + 1) * info.tileWidth)
                let top = max(y0, fileRow * info.tileHeight), bottom = min(y1, (fileRow + 1) * info.tileHeight)
                pixels.withUnsafeBytes { source in
                    for y in top..<bottom {
                        let from = ((y - fileRow * info.tileHeight) * info.tileWidth + left - fileColumn * info.tileWidth) * 4
                        let to = (y - y0) * rowBytes + (left - x0) * 4
                        (tile.baseAddress! + to).copyMemory(from: source.baseAddress! + from, byteCount: (right - left) * 4)
                    }
                }
            }
        }
    }

    /// Tile (`column`, `row`) of `level` as a complete JPEG file of exactly the package's tile,
    /// its stored bytes unchanged: when the file's tiles are 256 × 256 JPEGs that any decoder reads
    /// alone (``PyramidTIFFReader/storedJPEG(level:column:row:)``) and the tile lies wholly inside
    /// the level (an edge tile's stored padding is not the image's). Nil otherwise.
    func storedJPEG(level: Int, column: Int, row: Int) throws -> [UInt8]? {
        let info = reader.levels[level], side = PyramidGeometry.tileSide
        guard info.tileWidth == side, info.tileHeight == side, (column + 1) * side <= info.width, (row + 1) * side <= info.height else {
            return nil
        }
        return try reader.storedJPEG(level: level, column: column, row: row)
    }
}
