#if Loader
import FICCore
import FastImageCache
import Foundation
import ImageCodec
import TiledImage

/// A tiled pyramidal TIFF on any HTTP server that answers `Range` requests (a web server, an
/// object store, a CDN: a Cloud-Optimized GeoTIFF's way), read the way it was laid out to be read:
/// its header and IFDs first, then only the tiles asked for, one range each, decoded once into a
/// `TileTable` (the table local pyramids and remote tile services use), where a tile seen
/// before, in this run or the next, is a zero-copy hit with no request.
///
/// Never a download of the whole file: a server that ignores `Range`, a file that is not a tiled
/// pyramid, IFDs that point past the end, loop or count absurdly, are errors before any tile.
public final class RemotePyramidTIFF: Sendable {
    /// The file's URL.
    public let url: URL
    /// The file's size, as the server's `Content-Range` gave it.
    public let size: Int
    /// The file's levels, read from its IFDs (tile offsets and byte counts included).
    public let levels: [PyramidTIFFLevel]
    /// The decoded tiles: the table, its lanes and its grid (the file's own tile size).
    public let tiles: TileTable

    /// The first range asked for: the header and, in a file laid out to be read by ranges (as
    /// `fic tile` writes them), every IFD.
    public static let firstRangeBytes = PyramidTIFFRanges.windowBytes

    /// Reads the header and IFDs of the TIFF at `url` with `loader`, by ranges, and opens its
    /// tiles' table in `directory` (namespace `tiff-` and a hash of the URL), keeping at most
    /// `maximumTiles`.
    ///
    /// - Throws: `ImageCacheError`: the range requests' errors (a server that ignores `Range` is
    ///   refused at once); what `PyramidTIFFReader` throws for a file that is not a tiled
    ///   pyramidal TIFF; `.damagedPyramid` for IFDs past `PyramidTIFFRanges.maximumBytes` or
    ///   levels of different tile sizes; the cache's opening errors.
    public static func open(_ url: URL, loader: OriginalsLoader, directory: String, maximumTiles: Int = 4096) async throws
        -> RemotePyramidTIFF
    {
        // A file smaller than the first range comes back whole (the server ends the range at the
        // file's end).
        let first = try await loader.bytes(of: url, offset: 0, count: firstRangeBytes)
        var ranges = PyramidTIFFRanges(size: first.totalSize)
        ranges.add(offset: 0, bytes: first.bytes)
        let reader: PyramidTIFFReader
        do {
            reader = try await PyramidTIFFReader.read(ranges) { offset, count in
                try await loader.bytes(of: url, offset: offset, count: count).bytes
            }
        } catch let error as ImageCacheError {
            throw error.adding(path: url.absoluteString)
        }
        let levels = reader.levels
        guard let top = levels.first, levels.allSatisfy({ $0.tileWidth == top.tileWidth && $0.tileHeight == top.tileHeight }) else {
            throw ImageCacheError(.damagedPyramid, "the TIFF's levels have tiles of different sizes", path: url.absoluteString)
        }
        let grid = TileGrid(
            tileWidth: top.tileWidth, tileHeight: top.tileHeight,
            levels: levels.map { TileGrid.Level(width: $0.width, height: $0.height, columns: $0.columns, rows: $0.rows) })
        let version = SHA256Hex.digest(of: "\(url.absoluteString) \(first.totalSize) \(levels.map(\.directoryOffset))", length: 12)
        let provider = RemoteTIFFTileProvider(reader: reader, url: url, loader: loader)
        let tiles = try TileTable(
            directory: directory, namespace: "tiff-" + SHA256Hex.digest(of: url.absoluteString, length: 12), grid: grid,
            version: version, maximumTiles: maximumTiles, provider: provider, logger: loader.logger
        ) { level, column, row in TileTable.tileURL(in: url, level: level, column: column, row: row) }
        return RemotePyramidTIFF(url: url, size: first.totalSize, levels: levels, tiles: tiles)
    }

    private init(url: URL, size: Int, levels: [PyramidTIFFLevel], tiles: TileTable) {
        self.url = url
        self.size = size
        self.levels = levels
        self.tiles = tiles
    }

    /// Flushes and closes the tiles' table.
    public func close() {
        tiles.close()
    }
}

/// Fetches a remote TIFF's tiles for its table: one range per tile, checked against the size
/// its IFD gives, decoded, cropped to the tile's cell.
struct RemoteTIFFTileProvider: ImageSourceProvider {
    let reader: PyramidTIFFReader
    let url: URL
    let loader: OriginalsLoader

    func sourceImage(at tileURL: URL, for entity: any ImageEntity) async throws -> SourceImage {
        guard let (level, column, row) = TileTable.tile(of: entity), reader.levels.indices.contains(level) else {
            throw ImageCacheError(.invalidArgument, "not a tile of the TIFF: \(tileURL.absoluteString)")
        }
        let info = reader.levels[level]
        guard let (offset, count) = info.storedRange(column: column, row: row) else {
            throw ImageCacheError(.invalidArgument, "there is no tile \(column),\(row) in level \(level)")
        }
        guard count > 0, offset >= 0, offset <= Int.max - count else {
            throw ImageCacheError(.damagedPyramid, "tile \(column),\(row) of level \(level) is missing", path: url.absoluteString)
        }
        let stored = try await loader.bytes(of: url, offset: offset, count: count).bytes
        guard stored.count == count else {
            throw ImageCacheError(
                .damagedPyramid, "tile \(column),\(row) of level \(level) passes the end of the file", path: url.absoluteString)
        }
        let pixels = try reader.decodeTile(stored: stored, level: level)
        // The tile's cell: the part inside the level (edge tiles' padding left out).
        let width = min(info.tileWidth, info.width - column * info.tileWidth)
        let height = min(info.tileHeight, info.height - row * info.tileHeight)
        let image = DecodedImage(
            width: width, height: height, pixelFormat: .bgra32Premultiplied,
            source: ImageInfo(format: .tiff, width: width, height: height, hasAlpha: info.hasAlpha), isOrientationApplied: true)
        pixels.withUnsafeBytes { raw in
            for y in 0..<height {
                (image.baseAddress + y * image.bytesPerRow).copyMemory(
                    from: raw.baseAddress! + y * info.tileWidth * 4, byteCount: width * 4)
            }
        }
        return .decoded(image)
    }
}
#endif
