import FICCore
import Glibc
import ImageCodec
import SystemPackage

/// A finished tile pyramid: any tile of any level. Thread-safe; open a saved one with
/// ``open(at:)`` or get one from ``TilePyramidBuilder/finish()``.
///
/// A saved pyramid is one tiled pyramidal TIFF (full resolution first, each reduced level a
/// following directory, as the builder, libvips and GDAL write them and iipsrv reads them): its
/// tiles are decoded as they are read. No lock is taken on the file, unless a
/// ``TilePyramidStore`` built it: then a shared `flock` on it keeps the store from evicting it
/// while the object lives. A throwaway pyramid (``TilePyramidDestination/temporary(folder:)``)
/// is raw tiles in unnamed files, served with one `pread` or as a view of a mapping.
public final class TilePyramid: Sendable {
    /// The sizes of the levels.
    public let geometry: PyramidGeometry
    /// The format of the image it was built from: `.tiff` for a pyramid opened from its file.
    public let sourceFormat: ImageFileFormat
    /// The EXIF orientation of the source (already applied: tiles are upright); `.up` for a
    /// pyramid opened from its file.
    public let sourceOrientation: ImageOrientation
    /// Whether the source has an alpha channel (otherwise every pixel has alpha 255).
    public let hasAlpha: Bool
    /// The pyramidal TIFF file holding it, or nil for a throwaway pyramid of unnamed files.
    public let path: String?
    /// How the build went, for a pyramid just built (nil when opened from disk).
    public let statistics: TilePyramidBuildStatistics?
    /// When its file was last written, in seconds since 1970 (what a web server sends as
    /// `Last-Modified`).
    public let modificationTime: Int
    /// Names this build of the pyramid: another build under the same name, or of another image,
    /// has another (what a web server sends as an `ETag`).
    public let buildIdentity: String

    /// A throwaway pyramid's level files (none for a TIFF).
    private let files: [FileDescriptor]
    private let mappings: LockedBox<[MappedRegion?]>
    /// The pyramidal TIFF the tiles are decoded from, for a pyramid opened from one.
    private let tiff: PyramidTIFFTiles?

    /// The file name of the description earlier versions kept in a pyramid folder (level files of
    /// raw tiles beside it), which are no longer read: a folder holding one gets a message saying
    /// how to build it again.
    static let earlierFolderMarker = "pyramid.info"

    /// What opening the pyramid folder of an earlier version at `path` says: it is not read, and
    /// the TIFF `target` is to be built instead.
    static func earlierFolderError(at path: String, rebuildAs target: String) -> ImageCacheError {
        ImageCacheError(
            .damagedPyramid,
            "this is a pyramid folder of an earlier version, which is no longer read; build the pyramid again as one tiled "
                + "pyramidal TIFF (`fic tile IMAGE --out \(target)`, or TilePyramidDestination.tiff), then remove the folder",
            path: path)
    }

    /// A throwaway pyramid of `geometry` whose levels are `files` (one per level, raw tiles),
    /// built from an image of `source`'s format and orientation.
    init(
        geometry: PyramidGeometry, files: [FileDescriptor], source: SourceHeader, sourceBytes: Int,
        statistics: TilePyramidBuildStatistics?
    ) {
        self.geometry = geometry
        self.files = files
        self.statistics = statistics
        sourceFormat = source.format
        sourceOrientation = source.orientation
        hasAlpha = source.hasAlpha
        path = nil
        mappings = LockedBox([MappedRegion?](repeating: nil, count: files.count))
        tiff = nil
        let status = files.first.flatMap { try? $0.status(path: nil) }
        modificationTime = status.map { Int($0.st_mtim.tv_sec) } ?? 0
        buildIdentity = Self.identity(
            geometry: geometry, hasAlpha: hasAlpha, format: sourceFormat, orientation: sourceOrientation, bytes: sourceBytes,
            status: status)
    }

    deinit {
        for file in files { file.closeQuietly() }
    }

    /// A pyramid whose tiles come from the pyramidal TIFF `tiles` read from the file at `path`,
    /// whose status (`status`) tells this file from another; `source` the header of the image it
    /// was just built from.
    init(
        tiff tiles: PyramidTIFFTiles, path: String, status: Glibc.stat, source: SourceHeader? = nil,
        statistics: TilePyramidBuildStatistics? = nil
    ) {
        geometry = tiles.geometry
        hasAlpha = tiles.hasAlpha
        sourceFormat = source?.format ?? .tiff
        sourceOrientation = source?.orientation ?? .up
        self.path = path
        self.statistics = statistics
        files = []
        mappings = LockedBox([])
        tiff = tiles
        modificationTime = Int(status.st_mtim.tv_sec)
        buildIdentity = Self.identity(
            geometry: geometry, hasAlpha: hasAlpha, format: .tiff, orientation: .up, bytes: Int(status.st_size), status: status)
    }

    /// The build identity of a pyramid: the file's inode and change time tell one build, or one
    /// rewrite, from the next; the rest one image from another.
    private static func identity(
        geometry: PyramidGeometry, hasAlpha: Bool, format: ImageFileFormat, orientation: ImageOrientation, bytes: Int,
        status: Glibc.stat?
    ) -> String {
        let levels = geometry.levels.map { "\($0.width)x\($0.height)" }.joined(separator: ",")
        let stamp = status.map { "\($0.st_ino).\($0.st_ctim.tv_sec).\($0.st_ctim.tv_nsec)" } ?? "none"
        return SHA256Hex.digest(of: "\(levels) \(hasAlpha) \(format) \(orientation.rawValue) \(bytes) \(stamp)", length: 16)
    }

    /// Opens the tiled pyramidal TIFF file at `path`.
    ///
    /// - Throws: what ``PyramidTIFFReader`` throws for a file that is not a tiled pyramidal TIFF;
    ///   `.damagedPyramid` for a pyramid folder of an earlier version (saying how to build it
    ///   again as a TIFF); `.unsafePath` for any other folder.
    public static func open(at path: String) throws -> TilePyramid {
        if let status = try? fileStatus(atPath: path), status.isDirectory {
            if (try? fileStatus(atPath: path + "/" + earlierFolderMarker)) != nil {
                throw earlierFolderError(at: path, rebuildAs: "NAME.tif")
            }
            throw ImageCacheError(.unsafePath, "a pyramid is a tiled pyramidal TIFF file, not a folder", path: path)
        }
        return try open(tiff: PyramidTIFFFileSource(path: path))
    }

    /// Opens the pyramidal TIFF read from `source` (with `statistics` and the `header` of its
    /// source image when just built).
    static func open(
        tiff source: PyramidTIFFFileSource, header: SourceHeader? = nil, statistics: TilePyramidBuildStatistics? = nil
    ) throws -> TilePyramid {
        let tiles = try PyramidTIFFTiles(PyramidTIFFReader(source: source))
        return TilePyramid(tiff: tiles, path: source.path, status: try source.status(), source: header, statistics: statistics)
    }

    private func check(level: Int, column: Int, row: Int) throws -> TileLevel {
        guard level >= 0, level < geometry.levels.count else {
            throw ImageCacheError(.invalidArgument, "there is no level \(level); the pyramid has levels 0…\(geometry.levels.count - 1)")
        }
        let info = geometry.levels[level]
        guard column >= 0, column < info.columns, row >= 0, row < info.rows else {
            throw ImageCacheError(
                .invalidArgument, "level \(level) has tiles 0…\(info.columns - 1) × 0…\(info.rows - 1), not (\(column), \(row))")
        }
        return info
    }

    private func offset(of info: TileLevel, column: Int, row: Int) -> Int {
        (row * info.columns + column) * PyramidGeometry.tileBytes
    }

    /// Reads tile (`column`, `row`) of `level` into `buffer` with one `pread`: 256 rows of 1024
    /// bytes, BGRA premultiplied; parts beyond the image's edge are zero.
    public func readTile(level: Int, column: Int, row: Int, into buffer: TileBuffer) throws {
        try buffer.fill { (raw) throws in
            try readTile(level: level, column: column, row: row, into: raw)
            return raw.count
        }
    }

    /// Reads tile (`column`, `row`) of `level` into `tile`, ``PyramidGeometry/tileBytes`` bytes
    /// (256 rows of 1024), as ``readTile(level:column:row:into:)`` does into a ``TileBuffer``.
    func readTile(level: Int, column: Int, row: Int, into tile: UnsafeMutableRawBufferPointer) throws {
        let info = try check(level: level, column: column, row: row)
        precondition(tile.count >= PyramidGeometry.tileBytes, "a tile is read into a whole tile's bytes")
        let raw = UnsafeMutableRawBufferPointer(rebasing: tile[..<PyramidGeometry.tileBytes])
        if let tiff { return try tiff.read(level: level, column: column, row: row, into: raw) }
        let n = try files[level].readAll(into: raw, at: offset(of: info, column: column, row: row), path: path)
        guard n == raw.count else {
            throw ImageCacheError(
                .damagedPyramid, "level \(level) ends inside tile (\(column), \(row)); build the pyramid again", path: path)
        }
    }

    /// Tile (`column`, `row`) of `level` as the JPEG file a pyramidal TIFF stores for it, so that a
    /// server can answer it without decoding or encoding: for a pyramid opened from a TIFF of
    /// 256 × 256 JPEG tiles (YCbCr or grey), a tile wholly inside the level. Nil for every other
    /// tile and pyramid.
    ///
    /// - Throws: `.invalidArgument` for a tile outside the level; the file's read errors.
    public func storedJPEGTile(level: Int, column: Int, row: Int) throws -> [UInt8]? {
        _ = try check(level: level, column: column, row: row)
        return try tiff?.storedJPEG(level: level, column: column, row: row)
    }

    /// The bytes of tile (`column`, `row`) of `level` (a copy; see ``readTile(level:column:row:into:)``
    /// to reuse memory).
    public func tile(level: Int, column: Int, row: Int) throws -> [UInt8] {
        let buffer = try TileBuffer()
        try readTile(level: level, column: column, row: row, into: buffer)
        return buffer.withUnsafeBytes { Array($0) }
    }

    /// Runs `body` with tile (`column`, `row`) of `level` as a zero-copy view of the level's
    /// mapping, which stays mapped (pinned) while `body` runs. The bytes are valid only inside `body`.
    /// (A pyramidal TIFF's tile is decoded into memory of its own first.)
    public func withMappedTile<R, E: Error>(level: Int, column: Int, row: Int, _ body: (UnsafeRawBufferPointer) throws(E) -> R) throws -> R
    {
        let info = try check(level: level, column: column, row: row)
        if tiff != nil {
            let buffer = try TileBuffer()
            try readTile(level: level, column: column, row: row, into: buffer)
            return try buffer.withUnsafeBytes { (raw) throws(E) -> R in try body(raw) }
        }
        let region = try mapping(of: level, info: info)
        return try withExtendedLifetime(region) { () throws(E) -> R in
            try body(
                UnsafeRawBufferPointer(start: region.base + offset(of: info, column: column, row: row), count: PyramidGeometry.tileBytes))
        }
    }

    private func mapping(of level: Int, info: TileLevel) throws -> MappedRegion {
        try mappings.withLockedValue { (regions) throws -> MappedRegion in
            if let region = regions[level] { return region }
            let region = try MappedRegion(descriptor: files[level], offset: 0, length: info.byteCount, writable: false, path: path)
            regions[level] = region
            return region
        }
    }
}

/// Figures from building a pyramid.
public struct TilePyramidBuildStatistics: Sendable, Hashable {
    /// Bytes of input received.
    public var inputBytes: Int
    /// From the first byte received to the pyramid being ready.
    public var totalDuration: Duration
    /// From the moment the last chunk arrived (its `append` began) to the pyramid being ready.
    public var afterLastByte: Duration
    /// Bytes of progressive-JPEG coefficients kept in a file instead of memory (0 when none).
    public var coefficientFileBytes: Int
    /// The most bytes of that file mapped at once by the thread that pages it ahead of the decoder
    /// (bounded by about ``TilePyramidOptions/residentCoefficientLimit``; 0 when no file was used).
    public var coefficientPagerPeakBytes: Int
    /// Bytes of that file freed, with their page cache, as the final output pass left them behind,
    /// rather than all at once when the file is closed (0 when no file was used, or where the file
    /// system cannot free parts of a file).
    public var coefficientBytesFreedEarly: Int = 0
}
