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

    /// The most bytes fetched to find the IFDs: a file whose IFDs need more is refused.
    public static let maximumHeaderBytes = 16 << 20
    /// The first range asked for: the header and, in a file laid out to be read by ranges (as
    /// `fic tile` writes them), every IFD.
    public static let firstRangeBytes = 64 << 10

    /// Reads the header and IFDs of the TIFF at `url` with `loader`, by ranges, and opens its
    /// tiles' table in `directory` (namespace `tiff-` and a hash of the URL), keeping at most
    /// `maximumTiles`.
    ///
    /// - Throws: `ImageCacheError`: the range requests' errors (a server that ignores `Range` is
    ///   refused at once); what `PyramidTIFFReader` throws for a file that is not a tiled
    ///   pyramidal TIFF; `.damagedPyramid` for IFDs past ``maximumHeaderBytes`` or levels of
    ///   different tile sizes; the cache's opening errors.
    public static func open(_ url: URL, loader: OriginalsLoader, directory: String, maximumTiles: Int = 4096) async throws
        -> RemotePyramidTIFF
    {
        // A file smaller than the first range comes back whole (the server ends the range at the
        // file's end).
        let first = try await loader.bytes(of: url, offset: 0, count: firstRangeBytes)
        var ranges = FetchedRanges(size: first.totalSize)
        ranges.add(offset: 0, bytes: first.bytes)
        let reader: PyramidTIFFReader
        do {
            reader = try await readHeader(size: ranges.size, first: ranges) { offset, count in
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
        ) { level, column, row in RemoteTIFFTileProvider.tileURL(url, level: level, column: column, row: row) }
        return RemotePyramidTIFF(url: url, size: first.totalSize, levels: levels, tiles: tiles)
    }

    /// The IFDs of a TIFF of `first.size` bytes, `first` holding the ranges fetched so far: read
    /// from them, each range the reader needs beyond them fetched with `fetch(offset, count)` (whole
    /// 64 KiB windows where the file has them), at most ``maximumHeaderBytes`` in all. A reader
    /// that needs a range already fetched has found what it needs or failed: it never asks twice.
    ///
    /// - Throws: what `PyramidTIFFReader` throws; `.damagedPyramid` past ``maximumHeaderBytes``;
    ///   `fetch`'s errors.
    static func readHeader(size: Int, first: FetchedRanges, fetch: (Int, Int) async throws -> [UInt8]) async throws -> PyramidTIFFReader {
        var ranges = first
        while true {
            do {
                return try PyramidTIFFReader(source: ranges)
            } catch let missing as FetchedRanges.Missing {
                let count = min(ranges.size - missing.offset, max(missing.count, firstRangeBytes))
                guard ranges.fetched + count <= maximumHeaderBytes else {
                    throw ImageCacheError(.damagedPyramid, "the TIFF's IFDs need more than \(maximumHeaderBytes >> 20) MiB of its bytes")
                }
                let bytes = try await fetch(missing.offset, count)
                guard bytes.count == count else {
                    throw ImageCacheError(.truncated, "a range of \(count) bytes came back with \(bytes.count)")
                }
                ranges.add(offset: missing.offset, bytes: bytes)
            }
        }
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

/// The byte ranges of a remote file fetched so far, as the TIFF reader's source: a read inside
/// them is answered, any other throws ``Missing``, which says what to fetch.
struct FetchedRanges: PyramidTIFFByteSource {
    /// A read outside the ranges fetched.
    struct Missing: Error {
        let offset: Int
        let count: Int
    }

    let size: Int
    /// Fetched ranges by offset, none overlapping another.
    private var chunks: [(offset: Int, bytes: [UInt8])] = []
    /// Bytes fetched in all.
    private(set) var fetched = 0

    init(size: Int) {
        self.size = size
    }

    /// Adds the bytes fetched at `offset`, merged with the ranges they overlap or touch (so that
    /// a read across two fetches is answered).
    mutating func add(offset: Int, bytes: [UInt8]) {
        fetched += bytes.count
        var merged = (offset: offset, bytes: bytes)
        var kept: [(offset: Int, bytes: [UInt8])] = []
        for chunk in chunks {
            let end = chunk.offset + chunk.bytes.count, mergedEnd = merged.offset + merged.bytes.count
            guard chunk.offset <= mergedEnd, merged.offset <= end else {
                kept.append(chunk)
                continue
            }
            let start = min(chunk.offset, merged.offset)
            var joined = [UInt8](repeating: 0, count: max(end, mergedEnd) - start)
            joined.replaceSubrange((chunk.offset - start)..<(end - start), with: chunk.bytes)
            joined.replaceSubrange((merged.offset - start)..<(mergedEnd - start), with: merged.bytes)
            merged = (start, joined)
        }
        kept.append(merged)
        chunks = kept
    }

    func read(offset: Int, count: Int) throws -> [UInt8] {
        guard offset >= 0, count >= 0, offset <= size, count <= size - offset else {
            throw ImageCacheError(.truncated, "bytes \(offset)+\(count) lie past the end of the \(size)-byte TIFF")
        }
        for chunk in chunks where chunk.offset <= offset && offset + count <= chunk.offset + chunk.bytes.count {
            let start = offset - chunk.offset
            return Array(chunk.bytes[start..<(start + count)])
        }
        throw Missing(offset: offset, count: count)
    }
}

/// Fetches a remote TIFF's tiles for its table: one range per tile, checked against the size
/// its IFD gives, decoded, cropped to the tile's cell.
struct RemoteTIFFTileProvider: ImageSourceProvider {
    let reader: PyramidTIFFReader
    let url: URL
    let loader: OriginalsLoader

    /// The URL the table asks for a tile at: the file's, with the tile in its fragment (one URL a
    /// tile, so that the cache shares a fetch between the requests of one tile only).
    static func tileURL(_ url: URL, level: Int, column: Int, row: Int) -> URL {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        components.fragment = "tile=\(level)/\(column)/\(row)"
        return components.url!
    }

    func sourceImage(at tileURL: URL, for entity: any ImageEntity) async throws -> SourceImage {
        let parts = (tileURL.fragment ?? "").dropFirst(5).split(separator: "/").compactMap { Int($0) }
        guard parts.count == 3, reader.levels.indices.contains(parts[0]) else {
            throw ImageCacheError(.invalidArgument, "not a tile of the TIFF: \(tileURL.absoluteString)")
        }
        let info = reader.levels[parts[0]]
        let (column, row) = (parts[1], parts[2])
        guard (0..<info.columns).contains(column), (0..<info.rows).contains(row) else {
            throw ImageCacheError(.invalidArgument, "there is no tile \(column),\(row) in level \(parts[0])")
        }
        let index = row * info.columns + column
        let (offset, count) = (info.tileOffsets[index], info.tileByteCounts[index])
        guard count > 0, offset >= 0, offset <= Int.max - count else {
            throw ImageCacheError(.damagedPyramid, "tile \(column),\(row) of level \(parts[0]) is missing", path: url.absoluteString)
        }
        let stored = try await loader.bytes(of: url, offset: offset, count: count).bytes
        guard stored.count == count else {
            throw ImageCacheError(
                .damagedPyramid, "tile \(column),\(row) of level \(parts[0]) passes the end of the file", path: url.absoluteString)
        }
        let pixels = try reader.decodeTile(stored: stored, level: parts[0])
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
