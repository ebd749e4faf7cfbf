#if Loader
import FICCore
import Foundation
import Logging
import SystemPackage

/// Counters of an ``OriginalsCache`` in this process.
public struct OriginalsStatistics: Sendable, Hashable, Codable {
    /// Entries in the cache (all processes).
    public var entries: Int
    /// Bytes of the entries (all processes); never more than the cache's maximum.
    public var diskUsage: Int
    /// The cache's maximum.
    public var maximumBytes: Int
    /// Lookups that found a valid entry.
    public var hits: Int
    /// Lookups that found none (or an invalid one).
    public var misses: Int
    /// Entries written.
    public var stores: Int
    /// Entries removed to make room.
    public var evictions: Int
    /// Entries found damaged (wrong length, checksum or URL) and removed.
    public var invalidEntries: Int
    /// Entries kept after the server confirmed them (`304 Not Modified`).
    public var revalidations: Int
}

/// A disk cache of downloaded originals (encoded image files) under a hard size limit.
///
/// - **Hard limit.** The entries' bytes never exceed ``maximumBytes``: before an entry is
///   published, least recently used entries are removed until it fits (an entry larger than the
///   whole cache is not stored). Downloads in progress are in unnamed temporary files, which
///   vanish with their process.
/// - **Atomic.** An entry is written completely, then linked and renamed into place; a
///   half-written download is never visible under an entry's name, also after `kill -9`.
/// - **Validated.** Every read checks the entry's header checksum, URL, length and the body's
///   checksum; anything else is a miss and the file is removed.
/// - **Names** are the SHA-256 of the URL, in hexadecimal.
/// - **Several processes** may share the folder: they keep sizes and recency in a shared
///   journal under an exclusive `flock`, with O(1) work per access (see the journal's notes).
/// - Files are 0600 and folders 0700; links in the folder are never followed.
///
/// All methods block on file I/O: call them from dedicated threads (``OriginalsLoader`` does).
public final class OriginalsCache: Sendable {
    /// The cache folder.
    public let path: String
    /// The most bytes the entries may occupy.
    public let maximumBytes: Int
    let directory: Directory
    private let journal: LockedBox<Journal>
    private let counters = LockedBox(
        OriginalsStatistics(
            entries: 0, diskUsage: 0, maximumBytes: 0, hits: 0, misses: 0, stores: 0, evictions: 0, invalidEntries: 0, revalidations: 0))
    let logger: Logger

    /// Opens (or creates, 0700) the cache folder at `path`, keeping at most `maximumBytes` of
    /// entries. Entries beyond the limit (a smaller limit than last time) are removed now.
    ///
    /// A folder that holds anything the cache does not make (a user's photos, say) is refused
    /// before anything in it is read or removed: the cache only ever removes its own files.
    ///
    /// - Throws: `ImageCacheError`: `.unsafePath` when the folder is a symbolic link or holds
    ///   files of others, `.io`, `.noSpace`, `.invalidArgument` for a limit below 1.
    public init(directory path: String, maximumBytes: Int, logger: Logger = Logger(label: "ImageLoader.OriginalsCache")) throws {
        guard maximumBytes > 0 else {
            throw ImageCacheError(
                .invalidArgument, "the originals cache needs a maximum of at least 1 byte, not \(maximumBytes)", path: path)
        }
        self.path = path
        self.maximumBytes = maximumBytes
        self.logger = logger
        directory = try Directory.open(path, create: true)
        if let foreign = try directory.names().sorted().first(where: { !Self.isOwnName($0) }) {
            throw ImageCacheError(
                .unsafePath,
                "the folder holds '\(foreign)', which the originals cache did not make; give the cache a folder of its own (new or empty)",
                path: path)
        }
        journal = LockedBox(Journal(directory: directory))
        try withJournal { j throws in
            try j.synchronize()
            // Entries the journal lost track of (a journal rebuilt elsewhere) or files it lists
            // that are gone are reconciled once, here; then the limit is enforced.
            try reconcile(&j)
            try makeRoom(for: nil, bytes: 0, &j)
        }
    }

    deinit {
        journal.withLockedValue { $0.close() }
    }

    /// Whether `name` is one the cache makes in its folder: an entry, the journal, or a hidden
    /// temporary file.
    static func isOwnName(_ name: String) -> Bool {
        Journal.isEntryName(name) || name == Journal.fileName || name.hasPrefix(".")
    }

    /// The file name of `url`'s entry: the SHA-256 of its absolute string, in hexadecimal.
    public static func entryName(for url: URL) -> String {
        SHA256Hex.digest(of: url.absoluteString)
    }

    // MARK: Reading

    /// The entry of `url`, opened and with its header checked, or nil (a miss). A damaged entry
    /// is removed and counted. A hit makes the entry the most recently used.
    func lookup(_ url: URL) -> StoredOriginal? {
        let name = Self.entryName(for: url)
        let stored: StoredOriginal?
        do {
            stored = try open(name, url: url)
        } catch {
            logger.warning("cannot read a stored original: \(error)", metadata: ["url": "\(url.absoluteString)"])
            stored = nil
        }
        guard let stored else {
            counters.withLockedValue { $0.misses += 1 }
            return nil
        }
        counters.withLockedValue { $0.hits += 1 }
        do {
            try withJournal { j throws in
                try j.synchronize()
                if j.index.cost(of: name) == nil {
                    // Present on disk but unknown to the journal: adopt it.
                    try j.append([.stored(name, stored.header.length + stored.header.bodyLength)])
                } else {
                    try j.append([.read(name)])
                }
            }
        } catch {
            logger.warning("cannot record a read in the originals journal: \(error)")
        }
        return stored
    }

    private func open(_ name: String, url: URL) throws -> StoredOriginal? {
        guard try directory.status(of: name) != nil else { return nil }
        let fd: FileDescriptor
        do {
            fd = try directory.openFile(name, writable: false)
        } catch let error as ImageCacheError where error.errno == .noSuchFileOrDirectory {
            return nil
        }
        var keep = false
        defer { if !keep { fd.closeQuietly() } }
        let length = Int(try fd.status(path: directory.child(name)).st_size)
        let head = try fd.readBytes(
            count: min(
                length,
                EntryHeader.fixedLength + EntryHeader.maximumURLBytes + 2 * EntryHeader.maximumValidatorBytes + EntryHeader.checksumLength),
            at: 0, path: directory.child(name))
        let decoded = head.withUnsafeBytes { b in
            EntryHeader.decode(b, fileLength: length, url: url.absoluteString, maximumBodyBytes: maximumBytes)
        }
        switch decoded {
        case .success(let header):
            keep = true
            return StoredOriginal(name: name, header: header, descriptor: fd, path: directory.child(name))
        case .failure(let reason):
            logger.warning("removed a damaged original: \(reason)", metadata: ["path": "\(directory.child(name))"])
            discard(name)
            return nil
        }
    }

    /// Removes an entry found damaged (its header or body did not check out).
    func discard(_ name: String) {
        counters.withLockedValue { $0.invalidEntries += 1 }
        try? withJournal { j throws in
            try j.synchronize()
            try directory.removeFile(name)
            try j.append([.deleted(name)])
        }
    }

    /// The validated body stored for `url`, or nil. Blocks on file I/O.
    public func data(for url: URL) throws -> [UInt8]? {
        guard let stored = lookup(url) else { return nil }
        if let body = try stored.readBody() { return body }
        discard(stored.name)
        return nil
    }

    /// Whether an entry for `url` exists (not validated, not counted, recency unchanged).
    public func contains(_ url: URL) -> Bool {
        (try? directory.status(of: Self.entryName(for: url))) != nil
    }

    // MARK: Writing

    /// A writer for a new entry of `url`, or nil when it cannot be stored (URL too long).
    func makeWriter(for url: URL, storedAt: Date, maximumAge: Int64?, etag: String?, lastModified: String?) throws -> EntryWriter? {
        var header = EntryHeader(
            url: url.absoluteString, bodyLength: 0, bodyChecksum: 0,
            storedAt: storedAt, maximumAge: maximumAge, etag: etag, lastModified: lastModified)
        header.trimValidators()
        guard header.isStorable else { return nil }
        return try EntryWriter(directory: directory, name: Self.entryName(for: url), header: header, limit: maximumBytes)
    }

    /// Finishes `writer` and publishes its entry, first removing least recently used entries
    /// until it fits. Returns false (storing nothing) when the entry is larger than the cache.
    @discardableResult
    func commit(_ writer: EntryWriter) throws -> Bool {
        guard !writer.isOverLimit else { return false }
        let bytes = try writer.finish()
        guard bytes <= maximumBytes else { return false }
        try withJournal { j throws in
            try j.synchronize()
            try makeRoom(for: writer.name, bytes: bytes, &j)
            // Recorded before it is published: a crash in between overcounts (safe for the limit).
            try j.append([.stored(writer.name, bytes)])
            do {
                try writer.publish(in: directory)
            } catch {
                try? j.append([.deleted(writer.name)])
                throw error
            }
        }
        counters.withLockedValue { $0.stores += 1 }
        return true
    }

    /// Counts an entry the server confirmed unchanged.
    func countRevalidation() {
        counters.withLockedValue { $0.revalidations += 1 }
    }

    /// Removes the entry of `url`, if any.
    public func remove(_ url: URL) throws {
        let name = Self.entryName(for: url)
        try withJournal { j throws in
            try j.synchronize()
            try directory.removeFile(name)
            if j.index.cost(of: name) != nil { try j.append([.deleted(name)]) }
        }
    }

    /// Removes every entry.
    public func removeAll() throws {
        try withJournal { j throws in
            try j.synchronize()
            let names = j.index.entries.map(\.key)
            for name in names { try directory.removeFile(name) }
            try j.append(names.map { .deleted($0) })
            try j.compact()
        }
    }

    // MARK: Usage

    /// Bytes of the entries now (all processes).
    public var diskUsage: Int {
        (try? withJournal { j throws -> Int in
            try j.synchronize()
            return j.index.totalCost
        }) ?? journal.withLockedValue { $0.index.totalCost }
    }

    /// Entries and bytes (all processes) and this process's counters.
    public var statistics: OriginalsStatistics {
        let (entries, bytes) =
            (try? withJournal { j throws -> (Int, Int) in
                try j.synchronize()
                return (j.index.count, j.index.totalCost)
            }) ?? journal.withLockedValue { ($0.index.count, $0.index.totalCost) }
        var s = counters.withLockedValue { $0 }
        s.entries = entries
        s.diskUsage = bytes
        s.maximumBytes = maximumBytes
        return s
    }

    // MARK: Inside the lock

    /// Runs `body` with the journal, holding this object's lock and the folder's `flock`.
    private func withJournal<R>(_ body: (inout Journal) throws -> R) throws -> R {
        try journal.withLockedValue { (j: inout Journal) throws -> R in
            _ = try directory.lock(.exclusive, wait: true)
            defer { directory.unlock() }
            return try body(&j)
        }
    }

    /// Removes least recently used entries (never `keeping`) until `bytes` more fit.
    private func makeRoom(for keeping: String?, bytes: Int, _ j: inout Journal) throws {
        let replaced = keeping.flatMap { j.index.cost(of: $0) } ?? 0
        var total = j.index.totalCost - replaced
        var victims: [Journal.Record] = []
        var candidate = j.index.oldest
        while total + bytes > maximumBytes, let (name, size) = candidate {
            candidate = j.index.newer(than: name)
            if name == keeping { continue }
            try directory.removeFile(name)
            victims.append(.deleted(name))
            total -= size
        }
        try j.append(victims)
        if !victims.isEmpty {
            counters.withLockedValue { $0.evictions += victims.count }
            logger.debug("evicted \(victims.count) originals to stay under \(maximumBytes) bytes")
        }
    }

    /// Adopts entry files the journal does not list and forgets listed ones that are gone.
    private func reconcile(_ j: inout Journal) throws {
        var listed = Set(j.index.entries.map(\.key))
        var records: [Journal.Record] = []
        for name in try directory.names() where Journal.isEntryName(name) {
            if listed.remove(name) != nil { continue }
            if let st = try directory.status(of: name), st.isRegularFile, st.st_size > 0 {
                records.append(.stored(name, Int(st.st_size)))
            }
        }
        for gone in listed { records.append(.deleted(gone)) }
        try j.append(records)
    }
}
#endif
