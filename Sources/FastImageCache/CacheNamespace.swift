import Glibc
import Logging

/// The folder a cache owns, `DIRECTORY/NAMESPACE`: opened without following links, and locked
/// for as long as the cache is open, so that two processes never share (or clean up) one
/// namespace at the same time.
final class CacheNamespace: Sendable {
    /// The open namespace folder.
    let folder: Directory
    /// Whether the cache can only be read (asked for, or a read-only file system).
    let isReadOnly: Bool

    /// Opens (creating, 0700, unless read-only) and locks the namespace.
    ///
    /// - Throws: ``ImageCacheError``: `.unsafePath` when the cache folder (unless allowed) or the
    ///   namespace is a symbolic link, `.inUse` when another process or cache object has the
    ///   namespace open, `.readOnly`/`.io` when it cannot be opened.
    init(directory: String, namespace: String, options: TableOpenOptions, logger: Logger) throws {
        var readOnly = options.readOnly
        let root: Directory
        do {
            root = try Directory.open(directory, create: !readOnly, followLinks: options.followsSymbolicLinkedFolder)
        } catch let error as ImageCacheError where error.code == .readOnly && !readOnly {
            readOnly = true
            root = try Directory.open(directory, create: false, followLinks: options.followsSymbolicLinkedFolder)
        }
        do {
            folder = try root.subdirectory(namespace, create: !readOnly)
        } catch let error as ImageCacheError where error.code == .readOnly && !readOnly {
            readOnly = true
            folder = try root.subdirectory(namespace, create: false)
        }
        if !readOnly && access(folder.path, W_OK) != 0 && errno == EROFS { readOnly = true }
        isReadOnly = readOnly
        let clock = ContinuousClock()
        let deadline = clock.now + options.lockTimeout
        while try !folder.lock(readOnly ? .shared : .exclusive, wait: false) {
            guard clock.now < deadline else {
                throw ImageCacheError(.inUse, "the cache is open in another process or cache object; close it first", path: folder.path, errno: EWOULDBLOCK)
            }
            usleep(10_000)
        }
        if readOnly && !options.readOnly {
            logger.notice("the cache is on a read-only file system; it is opened for reading only", metadata: ["path": "\(folder.path)"])
        }
    }

    /// Removes the namespace's table files of formats no longer configured: only files that are
    /// provably tables (their own extension and a valid table header), never folders, links or
    /// anything else. Called with the namespace locked.
    func removeTablesOfOtherFormats(keeping names: Set<String>, fileExtension: String, logger: Logger) {
        guard !isReadOnly, let items = try? folder.names() else { return }
        for item in items where item.hasSuffix(fileExtension) && !names.contains(String(item.dropLast(fileExtension.count))) {
            if ImageTable.removeTableFile(item, in: folder) {
                folder.synchronize()
                logger.info("removed the table of a format that is no longer configured", metadata: ["path": "\(folder.child(item))"])
            }
        }
    }

    /// Lets other processes open the namespace.
    func unlock() {
        folder.descriptor.unlock()
    }
}
