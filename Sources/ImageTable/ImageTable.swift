import Logging

/// A file of fixed-size, already-decoded images, mapped into memory.
///
/// Each image lives in a page-aligned slot with rows aligned to 64 bytes. Looking an image up
/// costs one hash and one dictionary probe under a short lock, and returns a ``StoredImage`` that
/// points straight into the mapping: nothing is copied or decoded. New images are drawn straight
/// into their slot by the caller's closure, then committed with a checksum; they become visible
/// only once fully written.
///
/// The file grows a chunk of slots at a time up to ``TableConfiguration/maximumCount``, which is
/// a hard limit. At the limit, inserting evicts the least recently used entry that nobody holds;
/// when every slot is held, ``insert(entity:source:label:draw:)`` throws
/// ``ImageCacheError/Code/tableFull`` and changes nothing.
///
/// All methods are safe to call from any thread.
public final class ImageTable: @unchecked Sendable {
    /// The table file.
    public let path: String
    /// The geometry and identity the table was opened with.
    public let configuration: TableConfiguration

    private let lock = Lock()
    private let growthLock = Lock()
    private let logger: Logger
    /// Guarded by `lock`. Nil once closed.
    private var store: TableStore?

    /// Opens (or creates) the table at `path`.
    ///
    /// A file written with a different configuration (including its identity) is discarded and
    /// replaced by an empty table; so is a file that is not a valid table (truncated, garbage),
    /// which is logged as an error. A file left open by a killed process is reopened with every
    /// entry marked for verification: each entry's checksum is checked the first time it is read.
    ///
    /// - Throws: ``ImageCacheError`` with code `.inUse` when another process or table object
    ///   has the file open, `.invalidConfiguration`, `.noSpace` or `.io`.
    public init(path: String, configuration: TableConfiguration, logger: Logger = Logger(label: "FastImageCache.ImageTable")) throws {
        try configuration.validate()
        self.path = path
        self.configuration = configuration
        self.logger = logger
        self.store = try TableFile.open(path: path, configuration: configuration, lock: lock, logger: logger)
    }

    deinit {
        close()
    }

    // MARK: Reading

    /// Returns the stored image of `entity` now, or nil: the synchronous path for a frame that
    /// is being drawn. Nil when there is no entry, or when `source` is given and the entry was
    /// drawn from a different source version (stale).
    ///
    /// It never waits for a writer beyond the few instructions a commit holds the lock, and never
    /// touches the disk beyond page-ins of the pixels. The one exception is the first read of an
    /// entry after an unclean shutdown, which checks its pixel checksum once.
    public func image(for entity: TableKey, source: TableKey? = nil) -> StoredImage? {
        let found: (TableStore, TableStore.LookupResult)? = lock.withLock {
            guard let store else { return nil }
            return (store, store.lookup(entity, source: source))
        }
        guard let (store, result) = found else { return nil }
        switch result {
        case .miss:
            return nil
        case .hit(let slot, let pixels, let source):
            return StoredImage(store: store, slot: slot, pixels: pixels, entity: entity, source: source)
        case .needsVerification(let slot, let pixels, let expected, let source):
            let actual = XXH64.hash(pixels, count: store.header.bytesPerRow * store.header.pixelHeight)
            let passed = lock.withLock { store.finishVerification(slot, entity: entity, passed: actual == expected) }
            guard passed else { return nil }
            return StoredImage(store: store, slot: slot, pixels: pixels, entity: entity, source: source)
        }
    }

    /// Whether an entry for `entity` exists (drawn from `source`, when given). Does not count as a use.
    public func contains(_ entity: TableKey, source: TableKey? = nil) -> Bool {
        lock.withLock {
            guard let entry = store?.entryFor(entity) else { return false }
            return source == nil || entry.source == source
        }
    }

    // MARK: Writing

    /// Stores a new image for `entity`: reserves a slot, lets `draw` write the pixels straight
    /// into it (`bytesPerRow × pixelHeight` bytes at the pointer it is given), checksums them,
    /// then makes the entry visible, replacing any older entry of the entity.
    ///
    /// The slot is not visible to readers until `draw` returns and the commit is done; if `draw`
    /// throws, the slot is given back and nothing changes. An older image of the entity that
    /// somebody holds keeps its slot, unchanged, until they let go.
    ///
    /// - Parameter label: a human-readable name stored with the entry (the first 63 bytes).
    /// - Returns: the new image.
    /// - Throws: ``ImageCacheError`` (`.tableFull`, `.noSpace`, `.closed`, `.io`) or what `draw` throws.
    @discardableResult
    public func insert(entity: TableKey, source: TableKey, label: String = "", draw: (UnsafeMutableRawPointer) throws -> Void) throws -> StoredImage {
        let (store, slot, pixels) = try reserveSlot()
        do {
            try draw(pixels)
        } catch {
            lock.withLock { store.abandon(slot: slot) }
            throw error
        }
        let checksum = XXH64.hash(pixels, count: store.header.bytesPerRow * store.header.pixelHeight)
        let committed = lock.withLock { store.commit(slot: slot, entity: entity, source: source, label: label, pixelChecksum: checksum) }
        if !committed {
            // Closed or reset while drawing: the caller still gets its pixels, the table keeps nothing.
            lock.withLock { store.orphanWriterSlot(slot) }
        }
        return StoredImage(store: store, slot: slot, pixels: pixels, entity: entity, source: source)
    }

    private func reserveSlot() throws -> (TableStore, Int, UnsafeMutableRawPointer) {
        while true {
            let attempt: (TableStore, TableStore.Reservation, UnsafeMutableRawPointer?)? = lock.withLock {
                guard let store else { return nil }
                let r = store.reserve()
                if case .slot(let slot) = r { return (store, r, store.pixels(slot)) }
                return (store, r, nil)
            }
            guard let (store, reservation, pixels) = attempt else {
                throw ImageCacheError(.closed, "the table is closed", path: path)
            }
            switch reservation {
            case .slot(let slot):
                return (store, slot, pixels!)
            case .closed:
                throw ImageCacheError(.closed, "the table is closed", path: path)
            case .full:
                throw ImageCacheError(.tableFull, "all \(configuration.maximumCount) slots hold images that are in use; release some images or raise the format's maximum count", path: path)
            case .needsGrowth(let first):
                // Grow outside the main lock so that readers never wait for the disk.
                try growthLock.withLock {
                    let stillNeeded = lock.withLock { self.store === store && store.allocatedSlots == first }
                    guard stillNeeded else { return }
                    let (region, count) = try TableFile.growChunk(store: store, first: first)
                    lock.withLock { store.addChunk(region, slots: count) }
                }
            }
        }
    }

    /// Removes the entry of `entity`. Returns whether there was one. A held image of it stays valid.
    @discardableResult
    public func remove(_ entity: TableKey) -> Bool {
        lock.withLock { store?.remove(entity) ?? false }
    }

    /// Empties the table by replacing its file with a new, empty one. Images still held keep
    /// reading the old file's memory, which is released when the last of them goes away; the
    /// file is never truncated under them.
    public func removeAll() throws {
        try growthLock.withLock {
            let old: TableStore? = lock.withLock { store }
            guard let old else { throw ImageCacheError(.closed, "the table is closed", path: path) }
            let fresh = try TableFile.rebuild(path: path, configuration: configuration, lock: lock, logger: logger)
            lock.withLock {
                old.retire()
                store = fresh
            }
        }
    }

    /// Writes every change to disk and marks the file closed cleanly. Afterwards lookups return
    /// nil and inserts throw `.closed`. Held images stay readable.
    public func close() {
        growthLock.withLock {
            let old: TableStore? = lock.withLock {
                let s = store
                store = nil
                s?.markClosing()
                return s
            }
            old?.close()
        }
    }

    /// Lets the kernel drop every mapped page of the table from the process's resident memory.
    /// Nothing is lost or invalidated: pages are mapped again from the file when read.
    public func releaseResidentMemory() {
        guard let store = lock.withLock({ store }) else { return }
        for region in store.regionsSnapshot() { region.releaseResidentPages() }
    }

    /// Writes every change to the disk now (`msync` and `fsync`), without closing.
    public func synchronize() throws {
        guard let store = lock.withLock({ store }) else { return }
        try store.synchronize()
    }

    // MARK: Inspection

    /// Counters and sizes of the table.
    public var statistics: TableStatistics {
        let counted: (TableStatistics, TableStore)? = lock.withLock {
            guard let s = store else { return nil }
            return (TableStatistics(
                count: s.count, maximumCount: configuration.maximumCount, allocatedSlots: s.allocatedSlots,
                fileBytes: 0, hits: s.hits, misses: s.misses, evictions: s.evictions,
                inserts: s.inserts, bytesWritten: s.bytesWritten, heldImages: s.heldSlots), s)
        }
        guard let (counts, store) = counted else {
            return TableStatistics(count: 0, maximumCount: configuration.maximumCount, allocatedSlots: 0, fileBytes: 0, hits: 0, misses: 0, evictions: 0, inserts: 0, bytesWritten: 0, heldImages: 0)
        }
        // The system call stays outside the lock, so a frame's lookup never waits for it; the
        // store (which owns the descriptor) is kept alive meanwhile.
        var statistics = counts
        statistics.fileBytes = SystemFile.allocatedBytes(store.fd)
        return statistics
    }

    /// The entries, most recently used first.
    public func entries() -> [TableEntry] {
        lock.withLock {
            (store?.listEntries() ?? []).map { TableEntry(label: $0.label, entity: $0.entry.entity, source: $0.entry.source, slot: $0.slot) }
        }
    }

    /// Checks every entry's pixels against its checksum. Entries that fail are removed when
    /// `repair` is true. Returns the entries that failed.
    public func verify(repair: Bool) -> [TableEntry] {
        var bad: [TableEntry] = []
        for entry in entries() {
            let pinned = lock.withLock { () -> (TableStore, UnsafeMutableRawPointer, UInt64)? in
                guard let s = store, let e = s.entry(atSlot: entry.slot), e.entity == entry.entity else { return nil }
                s.pin(entry.slot)
                return (s, s.pixels(entry.slot), e.pixelChecksum)
            }
            guard let (store, pixels, expected) = pinned else { continue }
            let actual = XXH64.hash(pixels, count: store.header.bytesPerRow * store.header.pixelHeight)
            lock.withLock {
                if actual != expected {
                    if repair { store.discard(slot: entry.slot, entity: entry.entity) }
                } else {
                    store.markVerified(entry.slot)
                }
                store.unpin(entry.slot)
            }
            if actual != expected {
                logger.error("pixel checksum mismatch", metadata: ["path": "\(path)", "entity": "\(entry.label)", "slot": "\(entry.slot)"])
                bad.append(entry)
            }
        }
        return bad
    }
}

/// Counters and sizes of one table.
public struct TableStatistics: Sendable, Hashable {
    /// Entries stored.
    public var count: Int
    /// The most entries the table can hold.
    public var maximumCount: Int
    /// Slots the file has room for now.
    public var allocatedSlots: Int
    /// Bytes the file occupies on disk.
    public var fileBytes: Int
    /// Lookups that returned an image.
    public var hits: Int
    /// Lookups that returned nil (absent or stale).
    public var misses: Int
    /// Entries evicted to make room.
    public var evictions: Int
    /// Entries stored.
    public var inserts: Int
    /// Bytes the engine wrote into the file (pixels and index records) since it was opened.
    public var bytesWritten: Int
    /// Slots held by images in use.
    public var heldImages: Int
}

/// One entry of a table, as listed by ``ImageTable/entries()``.
public struct TableEntry: Sendable, Hashable {
    /// The label stored with the entry (the start of the entity identifier).
    public var label: String
    /// The entity key.
    public var entity: TableKey
    /// The source version key.
    public var source: TableKey
    /// The slot number in the file.
    public var slot: Int
}
