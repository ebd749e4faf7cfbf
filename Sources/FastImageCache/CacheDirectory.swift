import FICCore
import Foundation
import Glibc
import ImageTable

/// The namespaces of one cache directory, what each occupies on disk and when it was last used,
/// and the removal of the least recently used ones to keep the directory under a size.
///
/// ```swift
/// let directory = CacheDirectory(path: "/home/me/.cache/myapp")
/// let report = try directory.trim(toBytes: 2 << 30, keeping: ["gallery"])
/// ```
///
/// A namespace is a folder of the directory, not a symbolic link, that holds at least one table
/// file (the `.fictable` extension and a valid table header). Its last use is the folder's
/// modification time, which ``ImageCache`` sets each time it opens the namespace for writing.
/// Removal follows the package's safety rules: it takes the namespace's lock without waiting
/// (a namespace open in any process is skipped), removes only files that are provably tables,
/// never follows a link, and removes the folder itself only when nothing else is left in it.
public struct CacheDirectory: Sendable {
    /// The directory that holds the namespaces.
    public let path: String
    /// Whether a directory that is a symbolic link is accepted (as `TableOpenOptions.followsSymbolicLinkedFolder`).
    public let followsSymbolicLinkedFolder: Bool

    /// The cache directory at `path`; nothing is opened until it is used.
    public init(path: String, followsSymbolicLinkedFolder: Bool = false) {
        self.path = path
        self.followsSymbolicLinkedFolder = followsSymbolicLinkedFolder
    }

    /// The cache directory of the application `name` in the user's cache folder, where Linux
    /// programs keep caches (the XDG base directories): `$XDG_CACHE_HOME/NAME` when
    /// `XDG_CACHE_HOME` is an absolute path, else `~/.cache/NAME`. Nothing is created until a
    /// cache opens it.
    ///
    /// ```swift
    /// let cache = try ImageCache(directory: CacheDirectory.user(named: "gallery").path, formats: [thumb])
    /// ```
    ///
    /// - Throws: `ImageCacheError` `.invalidArgument` when `name` is not one folder name, or
    ///   when neither an absolute `XDG_CACHE_HOME` nor a home folder is known.
    public static func user(named name: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws
        -> CacheDirectory
    {
        guard !name.isEmpty, name != ".", name != "..", !name.contains("/") else {
            throw ImageCacheError(
                .invalidArgument, "'\(name)' is not a folder name: the application's cache folder is one name, without '/'")
        }
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            return CacheDirectory(path: (xdg as NSString).appendingPathComponent(name))
        }
        guard let home = homeFolder(environment: environment) else {
            throw ImageCacheError(
                .invalidArgument,
                "there is no user cache folder: neither XDG_CACHE_HOME nor HOME is an absolute path, and the user has no home folder")
        }
        return CacheDirectory(path: (home as NSString).appendingPathComponent(".cache/" + name))
    }

    /// `HOME` when it is an absolute path, else the user's home folder from the password database.
    private static func homeFolder(environment: [String: String]) -> String? {
        if let home = environment["HOME"], home.hasPrefix("/") { return home }
        guard let entry = getpwuid(getuid()), let dir = entry.pointee.pw_dir else { return nil }
        let path = String(cString: dir)
        return path.hasPrefix("/") ? path : nil
    }

    /// One namespace of the directory: its name, its tables' size on disk and its last use.
    public struct Namespace: Sendable, Hashable {
        /// The namespace's name (its folder's name).
        public let name: String
        /// Bytes its table files occupy on disk (allocated blocks, not lengths).
        public let diskBytes: Int
        /// How many table files it holds.
        public let tableFiles: Int
        /// When a cache last opened it for writing (the folder's modification time).
        public let lastUse: Date
    }

    /// What removing one namespace did.
    public struct Removal: Sendable, Hashable {
        /// The namespace's name.
        public let name: String
        /// Table files removed.
        public let removedTables: Int
        /// Bytes those files occupied on disk.
        public let freedBytes: Int
        /// Whether the folder itself was removed (it was left because other files remain in it).
        public let folderRemoved: Bool
    }

    /// What ``trim(toBytes:keeping:whileLocked:)`` did.
    public struct TrimReport: Sendable, Hashable {
        /// The namespaces' bytes on disk before.
        public let bytesBefore: Int
        /// The namespaces' bytes on disk after.
        public let bytesAfter: Int
        /// The namespaces removed, least recently used first.
        public let removed: [Removal]
        /// Namespaces that would have been removed but were open in some process.
        public let skippedInUse: [String]
    }

    /// The namespaces, least recently used first. A missing directory has none.
    ///
    /// - Throws: `ImageCacheError`: `.unsafePath` when the directory is a link (unless
    ///   accepted), `.io` when it cannot be read.
    public func namespaces() throws -> [Namespace] {
        guard let root = try openRoot() else { return [] }
        var found: [Namespace] = []
        for name in try root.names() where Self.isNamespaceName(name) {
            guard let st = try? root.status(of: name), st.isDirectory, let folder = try? root.subdirectory(name, create: false) else {
                continue
            }
            let (count, bytes) = Self.tables(in: folder)
            guard count > 0 else { continue }
            let seconds = Double(st.modificationNanoseconds) / 1e9
            found.append(Namespace(name: name, diskBytes: bytes, tableFiles: count, lastUse: Date(timeIntervalSince1970: seconds)))
        }
        return found.sorted { ($0.lastUse, $0.name) < ($1.lastUse, $1.name) }
    }

    /// Removes the namespace `name`: its table files, then its folder if nothing else is left in
    /// it. `whileLocked` runs once no table is left and before the namespace's lock is let go, so
    /// that the caller can remove files of its own that belong to the namespace.
    ///
    /// - Throws: `ImageCacheError`: `.inUse` when a cache in some process has the namespace open
    ///   (nothing is removed), `.invalidArgument` for a name that is not a namespace's,
    ///   `.unsafePath` when it is a link, `.io` when it cannot be opened.
    @discardableResult
    public func removeNamespace(_ name: String, whileLocked: (String) -> Void = { _ in }) throws -> Removal {
        try ImageFormat.validateName(name, what: "namespace")
        guard let root = try openRoot() else { return Removal(name: name, removedTables: 0, freedBytes: 0, folderRemoved: false) }
        let folder = try root.subdirectory(name, create: false)
        guard try folder.lock(.exclusive, wait: false) else {
            throw ImageCacheError(.inUse, "the namespace is open in a cache; it was not removed", path: folder.path, errno: .wouldBlock)
        }
        defer { folder.unlock() }
        // Still the folder of that name, now that it is locked?
        guard let named = try root.status(of: name), named.isSameFile(as: try folder.descriptor.status(path: folder.path)) else {
            return Removal(name: name, removedTables: 0, freedBytes: 0, folderRemoved: false)
        }
        var removed = 0, freed = 0
        for item in try folder.names() where item.hasSuffix(ImageCache.fileExtension) {
            let bytes = (try? folder.status(of: item))?.diskBytes ?? 0
            if ImageTable.removeTableFile(item, in: folder) {
                removed += 1
                freed += bytes
            }
        }
        folder.synchronize()
        if Self.tables(in: folder).count == 0 { whileLocked(name) }
        let folderRemoved = try root.removeEmptyFolder(name)
        if folderRemoved { root.synchronize() }
        return Removal(name: name, removedTables: removed, freedBytes: freed, folderRemoved: folderRemoved)
    }

    /// Removes namespaces, least recently used first, until their tables occupy at most `limit`
    /// bytes. Namespaces in `keeping`, and those open in any process, are never removed.
    /// `whileLocked` is called for each namespace removed, as in ``removeNamespace(_:whileLocked:)``.
    ///
    /// - Throws: `ImageCacheError` when the directory cannot be read.
    @discardableResult
    public func trim(toBytes limit: Int, keeping: Set<String> = [], whileLocked: (String) -> Void = { _ in }) throws -> TrimReport {
        let all = try namespaces()
        let before = all.reduce(0) { $0 + $1.diskBytes }
        var total = before
        var removed: [Removal] = [], busy: [String] = []
        for namespace in all where total > limit && !keeping.contains(namespace.name) {
            do {
                let removal = try removeNamespace(namespace.name, whileLocked: whileLocked)
                total -= min(total, removal.freedBytes)
                removed.append(removal)
            } catch let error as ImageCacheError where error.code == .inUse {
                busy.append(namespace.name)
            } catch let error as ImageCacheError where error.errno == .noSuchFileOrDirectory {
                continue  // removed meanwhile by someone else
            }
        }
        return TrimReport(bytesBefore: before, bytesAfter: total, removed: removed, skippedInUse: busy)
    }

    /// The directory, or nil when it does not exist.
    private func openRoot() throws -> Directory? {
        do {
            return try Directory.open(path, create: false, followLinks: followsSymbolicLinkedFolder)
        } catch let error as ImageCacheError where error.errno == .noSuchFileOrDirectory {
            return nil
        }
    }

    /// Whether `name` could be a namespace (the names ``ImageCache`` accepts).
    private static func isNamespaceName(_ name: String) -> Bool {
        (try? ImageFormat.validateName(name, what: "namespace")) != nil
    }

    /// The provable table files in `folder` and the bytes they occupy.
    private static func tables(in folder: Directory) -> (count: Int, bytes: Int) {
        var count = 0, bytes = 0
        for item in (try? folder.names()) ?? [] where item.hasSuffix(ImageCache.fileExtension) {
            guard let st = try? folder.status(of: item), st.isRegularFile, ImageTable.isTableFile(item, in: folder) else { continue }
            count += 1
            bytes += st.diskBytes
        }
        return (count, bytes)
    }
}
