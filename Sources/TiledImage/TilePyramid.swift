import FICCore
import Glibc
import ImageCodec
import SystemPackage

/// A finished tile pyramid: any tile of any level, served with one `pread` or as a view of a
/// mapping. Thread-safe; open a saved pyramid with ``open(at:)`` or get one from
/// ``TilePyramidBuilder/finish()``.
///
/// While the object lives, its folder is locked (shared `flock`): a builder cannot overwrite it
/// and a ``TilePyramidStore`` never evicts it.
///
/// A tiled pyramidal TIFF (full resolution first, each reduced level a following directory, as
/// libvips and GDAL write them and iipsrv reads them) opens as a pyramid too: its tiles are
/// decoded as they are read, and no lock is taken (the file is not the package's).
public final class TilePyramid: Sendable {
    /// The sizes of the levels.
    public let geometry: PyramidGeometry
    /// The format of the image it was built from.
    public let sourceFormat: ImageFileFormat
    /// The EXIF orientation of the source (already applied: tiles are upright).
    public let sourceOrientation: ImageOrientation
    /// Whether the source has an alpha channel (otherwise every pixel has alpha 255).
    public let hasAlpha: Bool
    /// The folder holding it, or nil for a throwaway pyramid of unnamed files.
    public let path: String?
    /// How the build went, for a pyramid just built (nil when opened from disk).
    public let statistics: TilePyramidBuildStatistics?
    /// When its full-resolution level was last written, in seconds since 1970 (what a web server
    /// sends as `Last-Modified`).
    public let modificationTime: Int
    /// Names this build of the pyramid: another build under the same name, or of another image,
    /// has another (what a web server sends as an `ETag`).
    public let buildIdentity: String

    private let files: [FileDescriptor]
    private let directory: Directory?
    private let metadata: PyramidMetadata
    private let mappings: LockedBox<[MappedRegion?]>
    /// The pyramidal TIFF the tiles are decoded from, for a pyramid opened from one (then there
    /// are no level files).
    private let tiff: PyramidTIFFTiles?

    init(
        metadata: PyramidMetadata, geometry: PyramidGeometry, files: [FileDescriptor], directory: Directory?,
        statistics: TilePyramidBuildStatistics?
    ) {
        self.metadata = metadata
        self.geometry = geometry
        self.files = files
        self.directory = directory
        self.statistics = statistics
        sourceFormat = metadata.sourceFormat
        sourceOrientation = metadata.orientation
        hasAlpha = metadata.hasAlpha
        path = directory?.path
        mappings = LockedBox([MappedRegion?](repeating: nil, count: files.count))
        tiff = nil
        let status = files.first.flatMap { try? $0.status(path: nil) }
        modificationTime = status.map { Int($0.st_mtim.tv_sec) } ?? 0
        buildIdentity = Self.identity(metadata, status)
    }

    deinit {
        for file in files { file.closeQuietly() }
    }

    /// A pyramid whose tiles come from the pyramidal TIFF `tiles` read from the file at `path`,
    /// whose status (`status`) tells this file from another.
    init(tiff tiles: PyramidTIFFTiles, path: String, status: Glibc.stat, statistics: TilePyramidBuildStatistics? = nil) {
        geometry = tiles.geometry
        hasAlpha = tiles.hasAlpha
        sourceFormat = .tiff
        sourceOrientation = .up
        self.path = path
        self.statistics = statistics
        files = []
        directory = nil
        mappings = LockedBox([])
        tiff = tiles
        metadata = PyramidMetadata(
            width: geometry.width, height: geometry.height, viewWidth: 0, viewHeight: 0,
            levelSizes: geometry.levels.map { ($0.width, $0.height) }, hasAlpha: hasAlpha, flushed: true, sourceFormat: .tiff,
            orientation: .up, sourceBytes: Int(status.st_size), bootID: [])
        modificationTime = Int(status.st_mtim.tv_sec)
        buildIdentity = Self.identity(metadata, status)
    }

    /// The build identity of a pyramid described by `metadata` whose (first) file has `status`:
    /// the file's inode and change time tell one build, or one rewrite, from the next; the
    /// metadata one image from another.
    private static func identity(_ metadata: PyramidMetadata, _ status: Glibc.stat?) -> String {
        let stamp = status.map { "\($0.st_ino).\($0.st_ctim.tv_sec).\($0.st_ctim.tv_nsec)" } ?? "none"
        return SHA256Hex.digest(of: "\(metadata.encoded()) \(stamp)", length: 16)
    }

    /// Opens the pyramid saved in the folder `path`, or the tiled pyramidal TIFF file `path`.
    ///
    /// - Throws: `.damagedPyramid` when the folder holds no finished pyramid (a build that never
    ///   completed), a damaged one, one of another version, or one written but never flushed
    ///   before the system restarted; `.inUse` while a builder is writing it. For a file, what
    ///   ``PyramidTIFFReader`` throws for one that is not a tiled pyramidal TIFF.
    public static func open(at path: String) throws -> TilePyramid {
        if let status = try? fileStatus(atPath: path), status.isRegularFile {
            return try open(tiff: PyramidTIFFFileSource(path: path))
        }
        let directory = try Directory.open(path, create: false)
        guard try directory.lock(.shared, wait: false) else {
            throw ImageCacheError(.inUse, "the pyramid is being built; open it when the build has finished", path: path)
        }
        return try open(lockedDirectory: directory)
    }

    /// Opens the pyramidal TIFF read from `source` (with `statistics` when just built).
    static func open(tiff source: PyramidTIFFFileSource, statistics: TilePyramidBuildStatistics? = nil) throws -> TilePyramid {
        let tiles = try PyramidTIFFTiles(PyramidTIFFReader(source: source))
        return TilePyramid(tiff: tiles, path: source.path, status: try source.status(), statistics: statistics)
    }

    /// Opens the pyramid of a folder the caller has locked (shared or exclusive); marks it used
    /// unless `markingUse` is false.
    static func open(lockedDirectory directory: Directory, markingUse: Bool = true) throws -> TilePyramid {
        guard let metadata = try PyramidFolder.readMetadata(in: directory) else {
            throw ImageCacheError(
                .damagedPyramid, "the folder holds no finished tile pyramid (its build never completed); build it again",
                path: directory.path)
        }
        if !metadata.flushed && metadata.bootID != PyramidMetadata.currentBootID {
            throw ImageCacheError(
                .damagedPyramid,
                "the pyramid was written but not flushed to disk before the system restarted, so its tiles may be incomplete; build it again",
                path: directory.path)
        }
        let geometry = try metadata.geometry()
        var files: [FileDescriptor] = []
        do throws {
            for level in geometry.levels {
                let name = PyramidFolder.levelFileName(level.index)
                let fd = try directory.openFile(name, writable: false)
                files.append(fd)
                let size = Int(try fd.status(path: directory.child(name)).st_size)
                guard size == level.byteCount else {
                    throw ImageCacheError(
                        .damagedPyramid, "level \(level.index) has \(size) bytes instead of \(level.byteCount); build the pyramid again",
                        path: directory.child(name))
                }
            }
        } catch {
            for fd in files { fd.closeQuietly() }
            throw error
        }
        // Mark it used now, for least-recently-used eviction.
        if markingUse { directory.touch(PyramidMetadata.fileName) }
        return TilePyramid(metadata: metadata, geometry: geometry, files: files, directory: directory, statistics: nil)
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
        let info = try check(level: level, column: column, row: row)
        if let tiff {
            return try buffer.fill { (raw) throws in
                try tiff.read(level: level, column: column, row: row, into: raw)
                return raw.count
            }
        }
        let file = files[level]
        let at = offset(of: info, column: column, row: row)
        try buffer.fill { (raw) throws in
            let n = try file.readAll(into: raw, at: at, path: path)
            guard n == raw.count else {
                throw ImageCacheError(
                    .damagedPyramid, "level \(level) ends inside tile (\(column), \(row)); build the pyramid again", path: path)
            }
            return n
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

    /// Writes every level to the disk and records that in the metadata, so the pyramid also
    /// survives a crash of the system (without this it survives a crash of the process only; one
    /// found unflushed after a system restart is refused). Does nothing for throwaway pyramids.
    public func synchronize() throws {
        guard let directory, !metadata.flushed else { return }
        for (index, file) in files.enumerated() {
            try file.synchronize(path: directory.child(PyramidFolder.levelFileName(index)))
        }
        var flushed = metadata
        flushed.flushed = true
        try PyramidFolder.writeMetadata(flushed, in: directory, flush: true)
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
