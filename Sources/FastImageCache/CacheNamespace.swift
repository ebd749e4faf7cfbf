import FICCore
import Glibc
import ImageTable
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
        let clock = ContinuousClock()
        let deadline = clock.now + options.lockTimeout
        var attempt = 0
        while true {
            var opened: Directory
            do {
                opened = try root.subdirectory(namespace, create: !readOnly)
            } catch let error as ImageCacheError where error.code == .readOnly && !readOnly {
                readOnly = true
                opened = try root.subdirectory(namespace, create: false)
            }
            if !readOnly && opened.isOnReadOnlyFileSystem { readOnly = true }
            while try !opened.lock(readOnly ? .shared : .exclusive, wait: false) {
                guard clock.now < deadline else {
                    throw ImageCacheError(.inUse, "the cache is open in another process or cache object; close it first", path: opened.path, errno: .wouldBlock)
                }
                usleep(10_000)
            }
            // CacheDirectory removes an unused namespace while holding this lock: a folder opened
            // just before its removal is locked only once it has no name. Open the new one then.
            if let named = try root.status(of: namespace), let locked = try? opened.descriptor.status(path: opened.path), named.isSameFile(as: locked) {
                folder = opened
                break
            }
            attempt += 1
            guard attempt < 10 else {
                throw ImageCacheError(.inUse, "the namespace folder was removed and made again repeatedly while it was being opened", path: opened.path)
            }
        }
        isReadOnly = readOnly
        // The last use, for CacheDirectory's least-recently-used trimming (the folder is the cache's own).
        if !readOnly { try? folder.setModificationTimeToNow() }
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
        folder.unlock()
    }
}
