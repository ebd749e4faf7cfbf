import FICCore
import Glibc
import ImageTable
import Logging

/// The folder a cache owns, `DIRECTORY/NAMESPACE`: opened without following links, and locked
/// shared for as long as the cache is open, so that several processes use it at once (their
/// tables are shared: ``ImageTable``) while nothing removes it (``CacheDirectory`` needs it
/// exclusively). A cache that finds itself alone on it holds it exclusively while it opens its
/// tables, so that only it cleans up the tables of formats it no longer has.
final class CacheNamespace: Sendable {
    /// The open namespace folder.
    let folder: Directory
    /// Whether the cache can only be read (asked for, or a read-only file system).
    let isReadOnly: Bool
    /// Whether no other cache had the namespace open when this one opened it (it holds it
    /// exclusively until ``share()``).
    let wasAlone: Bool
    /// How long an opener waits, at least, for a cache that is alone to finish opening its tables.
    static let openTimeout = Duration.seconds(30)

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
        let start = clock.now
        let deadline = start + options.lockTimeout
        var attempt = 0
        var alone = false
        while true {
            var opened: Directory
            do {
                opened = try root.subdirectory(namespace, create: !readOnly)
            } catch let error as ImageCacheError where error.code == .readOnly && !readOnly {
                readOnly = true
                opened = try root.subdirectory(namespace, create: false)
            }
            if !readOnly && opened.isOnReadOnlyFileSystem { readOnly = true }
            alone = try !readOnly && opened.lock(.exclusive, wait: false)
            while try !alone && !opened.lock(.shared, wait: false) {
                // Held exclusively: by a cache opening its tables alone (moments), or by the
                // removal of the namespace.
                guard clock.now < max(deadline, start + Self.openTimeout) else {
                    throw ImageCacheError(
                        .inUse, "the cache's folder is being removed or kept by another process; try again later", path: opened.path,
                        errno: .wouldBlock)
                }
                usleep(10_000)
            }
            // CacheDirectory removes an unused namespace while holding this lock: a folder opened
            // just before its removal is locked only once it has no name. Open the new one then.
            if let named = try root.status(of: namespace), let locked = try? opened.descriptor.status(path: opened.path),
                named.isSameFile(as: locked)
            {
                folder = opened
                break
            }
            attempt += 1
            guard attempt < 10 else {
                throw ImageCacheError(
                    .inUse, "the namespace folder was removed and made again repeatedly while it was being opened", path: opened.path)
            }
        }
        isReadOnly = readOnly
        wasAlone = alone
        // The last use, for CacheDirectory's least-recently-used trimming (the folder is the cache's own).
        if !readOnly { try? folder.setModificationTimeToNow() }
        if readOnly && !options.readOnly {
            logger.notice("the cache is on a read-only file system; it is opened for reading only", metadata: ["path": "\(folder.path)"])
        }
    }

    /// Removes the namespace's table files of formats no longer configured: only files that are
    /// provably tables (their own extension and a valid table header), never folders, links or
    /// anything else. Only by a cache that was alone on the namespace, before ``share()``, with its
    /// own tables open; a table another process has open is never removed either.
    func removeTablesOfOtherFormats(keeping names: Set<String>, fileExtension: String, logger: Logger) {
        guard !isReadOnly, wasAlone, let items = try? folder.names() else { return }
        for item in items where item.hasSuffix(fileExtension) && !names.contains(String(item.dropLast(fileExtension.count))) {
            if ImageTable.removeTableFile(item, in: folder) {
                folder.synchronize()
                logger.info("removed the table of a format that is no longer configured", metadata: ["path": "\(folder.child(item))"])
            }
        }
    }

    /// Lets other caches open the namespace beside this one (once its tables are open).
    func share() {
        if wasAlone { _ = try? folder.lock(.shared, wait: false) }
    }

    /// Lets go of the namespace.
    func unlock() {
        folder.unlock()
    }
}
