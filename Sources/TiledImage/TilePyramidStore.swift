import FICCore
import Glibc
import SystemPackage

/// A folder of named pyramids with a disk budget. Each pyramid is one tiled pyramidal TIFF,
/// `NAME.tif`, which other tools read too (vips, GDAL, iipsrv). After each build, pyramids the
/// store built are evicted, least recently used first (opening one counts as use), until the
/// total fits the limit. A pyramid that is open (here or in another process) is never evicted;
/// one being built has no name until it is complete, so it is neither found nor counted.
///
/// Tiled pyramidal TIFFs put in the folder by anyone else (`NAME.tif` or `NAME.tiff`, made by
/// libvips or any other tool) are pyramids of the store too, called `NAME`: listed, opened and
/// served, never counted in the budget nor evicted, and never replaced by a build. The store
/// tells its own files from others by a record of each in its hidden folder `.fic-store`.
///
/// Pyramid folders of earlier versions of the package are not read: opening one says how to
/// build it again.
public final class TilePyramidStore: Sendable {
    /// The store's folder.
    public let path: String
    /// The most bytes of disk the pyramids may use together.
    public let byteLimit: Int
    /// The store's folder, reached under a lock: a trim's look at the folder and its evictions
    /// happen as one step within this process (other processes are kept out by `flock`).
    private let directory: LockedBox<Directory>

    /// Opens (creating when missing) the store at `path`.
    public init(path: String, byteLimit: Int) throws {
        guard byteLimit >= 0 else { throw ImageCacheError(.invalidArgument, "the byte limit cannot be negative") }
        directory = LockedBox(try Directory.open(path, create: true))
        self.path = path
        self.byteLimit = byteLimit
    }

    /// Checks that `name` is a plain, visible name of letters, digits, `-`, `_` and `.`.
    private static func check(_ name: String) throws {
        let allowed = name.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x5F || c == 0x2E
        }
        guard !name.isEmpty, name.utf8.count <= 200, allowed, !name.hasPrefix(".") else {
            throw ImageCacheError(
                .invalidArgument, "'\(name)' is not a valid pyramid name (use letters, digits, '-', '_' and '.', not starting with '.')")
        }
    }

    /// The pyramid called `name`, or nil when the store has none. Opening one the store built
    /// marks it used for eviction (the modification time of its record) unless `markingUse` is
    /// false: a reader that must write nothing in the store (a tile server sharing it with
    /// others, read-only).
    ///
    /// - Throws: `.invalidArgument` for a name that is not a pyramid name; `.damagedPyramid` for a
    ///   pyramid folder of an earlier version (with how to build it again); what
    ///   ``TilePyramid/open(at:)`` throws for a file that is not a tiled pyramidal TIFF.
    public func open(_ name: String, markingUse: Bool = true) throws -> TilePyramid? {
        try Self.check(name)
        return try directory.withLockedValue { (directory) throws -> TilePyramid? in
            guard let file = try Self.tiffFile(of: name, in: directory) else {
                if try Self.isEarlierFolder(name, in: directory) {
                    throw TilePyramid.earlierFolderError(at: directory.child(name), rebuildAs: directory.child(name) + ".tif")
                }
                return nil
            }
            let source = try PyramidTIFFFileSource(file: directory.openFile(file, writable: false), path: directory.child(file))
            if let records = try StoreRecords.folder(in: directory, create: false),
                StoreRecords.owns(file, status: try source.status(), in: records)
            {
                // Held while the pyramid is open: a trim (in any process) passes it by.
                _ = try source.lock(.shared, wait: true)
                if markingUse { records.touch(file) }
            }
            return try TilePyramid.open(tiff: source)
        }
    }

    /// Builds the pyramid `name` (`NAME.tif`) from the file at `source`, then evicts others to fit
    /// the budget. `compression` nil is JPEG at quality 94 (its colour 85) for an opaque image and deflate for one
    /// with alpha (see ``TilePyramidDestination/tiff(_:compression:)``).
    ///
    /// - Throws: `.invalidArgument` for a name that is not a pyramid name, or one the store holds
    ///   a file of that it did not build; the build's errors.
    public func build(
        _ name: String, contentsOf source: String, options: TilePyramidOptions = .init(), compression: PyramidTIFFCompression? = nil
    ) throws -> TilePyramid {
        let pyramid = try makeBuilder(name, options: options, compression: compression).build(contentsOf: source)
        try trim()
        return pyramid
    }

    /// A builder for the pyramid `name` (`NAME.tif`, replacing the one the store built before
    /// once it is complete); call ``trim()`` after finishing it. The pyramid its `finish()`
    /// returns is the store's, and is never evicted while it is open.
    ///
    /// - Throws: `.invalidArgument` for a name that is not a pyramid name, or one the store holds
    ///   a file of that it did not build (`NAME.tif` or `NAME.tiff`).
    public func makeBuilder(
        _ name: String, options: TilePyramidOptions = .init(), compression: PyramidTIFFCompression? = nil
    ) throws -> TilePyramidBuilder {
        try Self.check(name)
        let file = name + Self.tiffSuffixes[0]
        let target = try directory.withLockedValue { (directory) throws -> String in
            let records = try StoreRecords.folder(in: directory, create: false)
            for other in Self.tiffSuffixes.map({ name + $0 }) {
                guard let status = try directory.status(of: other) else { continue }
                guard other == file, status.isRegularFile, let records, StoreRecords.owns(other, status: status, in: records) else {
                    throw ImageCacheError(
                        .invalidArgument, "the store holds '\(other)', which it did not build; choose another name, or move that file away",
                        path: directory.child(other))
                }
            }
            return directory.child(file)
        }
        let builder = try TilePyramidBuilder(destination: .tiff(target, compression: compression), options: options)
        let directory = self.directory
        builder.whenCommitted { (source) throws in
            // Open from the start: no trim evicts it before its caller lets it go.
            _ = try source.lock(.shared, wait: true)
            let status = try source.status()
            try directory.withLockedValue { (directory) throws in
                guard let records = try StoreRecords.folder(in: directory, create: true) else { return }
                _ = try records.lock(.exclusive, wait: true)
                defer { records.unlock() }
                try StoreRecords.record(file, status: status, in: records)
            }
        }
        return builder
    }

    /// The endings of the pyramidal TIFFs' file names, the first the one the store builds.
    private static let tiffSuffixes = [".tif", ".tiff"]

    /// The file name of the pyramidal TIFF called `name` (`NAME.tif`, else `NAME.tiff`) when it
    /// is a regular file in `directory` (never through a link), or nil.
    private static func tiffFile(of name: String, in directory: Directory) throws -> String? {
        for file in tiffSuffixes.map({ name + $0 }) {
            if let st = try directory.status(of: file), st.isRegularFile { return file }
        }
        return nil
    }

    /// Whether `name` is a pyramid folder an earlier version built (it holds `pyramid.info`).
    private static func isEarlierFolder(_ name: String, in directory: Directory) throws -> Bool {
        guard let st = try directory.status(of: name), st.isDirectory else { return false }
        return try directory.subdirectory(name, create: false).status(of: TilePyramid.earlierFolderMarker) != nil
    }

    /// The names of the store's pyramids, sorted: those of the pyramidal TIFFs in it (`NAME.tif`
    /// is `NAME`; whether a file is one is found when it is opened).
    public func names() throws -> [String] {
        try directory.withLockedValue { (directory) throws -> [String] in
            var names: Set<String> = []
            for file in try directory.names() where !file.hasPrefix(".") {
                guard let suffix = Self.tiffSuffixes.first(where: file.hasSuffix), let st = try directory.status(of: file),
                    st.isRegularFile
                else { continue }
                let name = String(file.dropLast(suffix.count))
                if (try? Self.check(name)) != nil { names.insert(name) }
            }
            return names.sorted()
        }
    }

    /// Bytes of disk the pyramids the store built use (files others put in the folder are not
    /// counted).
    public func diskBytes() throws -> Int {
        try directory.withLockedValue { (directory) throws -> Int in
            guard let records = try StoreRecords.folder(in: directory, create: false) else { return 0 }
            var total = 0
            for file in try records.names() where !file.hasPrefix(".") {
                guard let status = try directory.status(of: file), status.isRegularFile,
                    StoreRecords.owns(file, status: status, in: records)
                else { continue }
                total += status.diskBytes
            }
            return total
        }
    }

    /// Evicts pyramids the store built, least recently used first, until the store fits its
    /// limit; open ones are passed by. Records whose file is gone, or is no longer the one the
    /// store built, are dropped (the file is left alone). Returns the names evicted.
    @discardableResult
    public func trim() throws -> [String] {
        let byteLimit = self.byteLimit
        return try directory.withLockedValue { (directory) throws -> [String] in
            guard let records = try StoreRecords.folder(in: directory, create: false) else { return [] }
            _ = try records.lock(.exclusive, wait: true)
            defer { records.unlock() }
            struct Candidate {
                let file: String
                let descriptor: FileDescriptor
                let status: Glibc.stat
                let lastUsed: Int64
            }
            var total = 0
            var candidates: [Candidate] = []
            defer { for candidate in candidates { candidate.descriptor.closeQuietly() } }
            for file in try records.names() where !file.hasPrefix(".") {
                guard let opened = try? directory.openFile(file, writable: false) else {
                    try records.removeFile(file)  // the pyramid is gone
                    continue
                }
                let status = try opened.status(path: directory.child(file))
                guard StoreRecords.owns(file, status: status, in: records) else {
                    opened.closeQuietly()
                    try records.removeFile(file)  // another file has the name now: not the store's
                    continue
                }
                total += status.diskBytes
                // Held exclusively from here until the file is removed (or this pass ends).
                guard try opened.lock(.exclusive, wait: false, path: directory.child(file)) else {
                    opened.closeQuietly()
                    continue
                }
                let used = try records.status(of: file)?.modificationNanoseconds ?? 0
                candidates.append(Candidate(file: file, descriptor: opened, status: status, lastUsed: used))
            }
            candidates.sort { $0.lastUsed < $1.lastUsed }
            var evicted: [String] = []
            for candidate in candidates where total > byteLimit {
                guard try Self.remove(candidate.file, status: candidate.status, in: directory) else { continue }
                try records.removeFile(candidate.file)
                total -= candidate.status.diskBytes
                evicted.append(String(candidate.file.dropLast(Self.tiffSuffixes[0].count)))
            }
            if !evicted.isEmpty { directory.synchronize() }
            return evicted
        }
    }

    /// Removes `file` from `directory` if it is still the file of `status`: it is first moved to a
    /// hidden name and checked there, so that a file another program put in its place in the
    /// meantime is never removed (it is put back, or kept under the hidden name if the name has
    /// been taken again since). Returns whether it was removed.
    private static func remove(_ file: String, status: Glibc.stat, in directory: Directory) throws -> Bool {
        let hidden = ".\(file).evicting"
        try directory.rename(file, to: hidden)
        guard let moved = try directory.status(of: hidden), moved.st_dev == status.st_dev, moved.st_ino == status.st_ino else {
            if try directory.status(of: file) == nil { try directory.rename(hidden, to: file) }
            return false
        }
        try directory.removeFile(hidden)
        return true
    }
}
