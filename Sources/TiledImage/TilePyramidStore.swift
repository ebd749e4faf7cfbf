import FICCore
import Glibc

/// A folder of named pyramids with a disk budget: after each build, whole pyramids are evicted,
/// least recently used first (opening one counts as use), until the total fits the limit. A
/// pyramid that is open (here or in another process) or being built is never evicted; folders
/// left by builds that never finished go first.
///
/// Tiled pyramidal TIFFs put in the folder (`NAME.tif` or `NAME.tiff`, made by libvips or any
/// other tool) are pyramids of the store too, called `NAME`: listed, opened and served, never
/// counted in the budget nor evicted (the store did not make them). A folder of the same name
/// comes first.
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

    /// The pyramid called `name`, or nil when the store has none (or only an unfinished one).
    /// Opening marks it used for eviction (the modification time of its `pyramid.info`) unless
    /// `markingUse` is false: a reader that must write nothing in the store (a tile server
    /// sharing it with others, read-only).
    public func open(_ name: String, markingUse: Bool = true) throws -> TilePyramid? {
        try Self.check(name)
        return try directory.withLockedValue { (directory) throws -> TilePyramid? in
            guard let st = try directory.status(of: name), st.isDirectory else {
                guard let file = try Self.tiffFile(of: name, in: directory) else { return nil }
                let source = try PyramidTIFFFileSource(file: directory.openFile(file, writable: false), path: directory.child(file))
                return try TilePyramid.open(tiff: source)
            }
            let folder = try directory.subdirectory(name, create: false)
            guard try folder.lock(.shared, wait: false) else {
                throw ImageCacheError(.inUse, "the pyramid is being built; open it when the build has finished", path: folder.path)
            }
            guard try PyramidFolder.readMetadata(in: folder) != nil else { return nil }
            return try TilePyramid.open(lockedDirectory: folder, markingUse: markingUse)
        }
    }

    /// Builds the pyramid `name` from the file at `source`, then evicts others to fit the budget.
    public func build(_ name: String, contentsOf source: String, options: TilePyramidOptions = .init()) throws -> TilePyramid {
        try Self.check(name)
        let folder = directory.withLockedValue { $0.child(name) }
        let pyramid = try TilePyramidBuilder.build(contentsOf: source, destination: .folder(folder), options: options)
        try trim()
        return pyramid
    }

    /// A builder for the pyramid `name`; call ``trim()`` after finishing it.
    public func makeBuilder(_ name: String, options: TilePyramidOptions = .init()) throws -> TilePyramidBuilder {
        try Self.check(name)
        let folder = directory.withLockedValue { $0.child(name) }
        return try TilePyramidBuilder(destination: .folder(folder), options: options)
    }

    /// The endings of the pyramidal TIFFs' file names, the first preferred.
    private static let tiffSuffixes = [".tif", ".tiff"]

    /// The file name of the pyramidal TIFF called `name` (`NAME.tif`, else `NAME.tiff`) when it
    /// is a regular file in `directory` (never through a link), or nil.
    private static func tiffFile(of name: String, in directory: Directory) throws -> String? {
        for file in tiffSuffixes.map({ name + $0 }) {
            if let st = try directory.status(of: file), st.isRegularFile { return file }
        }
        return nil
    }

    /// The names of the store's finished pyramids, sorted (folders of builds in progress or never
    /// finished, and anything else in the folder, are left out), with those of the pyramidal
    /// TIFFs in it (`NAME.tif` is `NAME`; whether the file is one is found when it is opened).
    public func names() throws -> [String] {
        try directory.withLockedValue { (directory) throws -> [String] in
            var names: [String] = []
            for file in try directory.names() where !file.hasPrefix(".") {
                guard let st = try directory.status(of: file) else { continue }
                if st.isDirectory {
                    guard (try? Self.check(file)) != nil, let folder = try? directory.subdirectory(file, create: false),
                        (try? PyramidFolder.readMetadata(in: folder)) != nil
                    else { continue }
                    names.append(file)
                } else if st.isRegularFile, let suffix = Self.tiffSuffixes.first(where: file.hasSuffix) {
                    let name = String(file.dropLast(suffix.count))
                    if (try? Self.check(name)) != nil { names.append(name) }
                }
            }
            return Array(Set(names)).sorted()
        }
    }

    /// Bytes of disk the store's pyramids use.
    public func diskBytes() throws -> Int {
        try directory.withLockedValue { (directory) throws -> Int in
            var total = 0
            for name in try directory.names() where !name.hasPrefix(".") {
                guard let st = try directory.status(of: name), st.isDirectory else { continue }
                total += try PyramidFolder.diskBytes(of: directory.subdirectory(name, create: false))
            }
            return total
        }
    }

    /// Evicts whole pyramids, least recently used first, until the store fits its limit; open and
    /// building pyramids are skipped. Returns the names evicted.
    @discardableResult
    public func trim() throws -> [String] {
        let byteLimit = self.byteLimit
        return try directory.withLockedValue { (directory) throws -> [String] in
            struct Candidate {
                let name: String
                let folder: Directory
                let bytes: Int
                let lastUsed: Int
                let complete: Bool
            }
            var total = 0
            var candidates: [Candidate] = []
            for name in try directory.names() where !name.hasPrefix(".") {
                guard let st = try directory.status(of: name), st.isDirectory else { continue }
                let folder = try directory.subdirectory(name, create: false)
                let bytes = try PyramidFolder.diskBytes(of: folder)
                total += bytes
                // Held exclusively from here until the folder is removed (or this pass ends).
                guard try folder.lock(.exclusive, wait: false) else { continue }
                let info = try folder.status(of: PyramidMetadata.fileName)
                let complete = (try? PyramidFolder.readMetadata(in: folder)) != nil
                let used = info.map { Int($0.st_mtim.tv_sec) * 1_000_000_000 + Int($0.st_mtim.tv_nsec) } ?? 0
                candidates.append(Candidate(name: name, folder: folder, bytes: bytes, lastUsed: used, complete: complete))
            }
            candidates.sort { ($0.complete ? 1 : 0, $0.lastUsed) < ($1.complete ? 1 : 0, $1.lastUsed) }
            var evicted: [String] = []
            for candidate in candidates where total > byteLimit || !candidate.complete {
                try PyramidFolder.removeContents(of: candidate.folder)
                let others = try candidate.folder.names()
                if others.isEmpty { try PyramidFolder.removeFolder(candidate.name, in: directory) }
                total -= candidate.bytes
                evicted.append(candidate.name)
            }
            return evicted
        }
    }
}
