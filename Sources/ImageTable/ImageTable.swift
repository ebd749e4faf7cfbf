import Glibc
import Logging
import SystemPackage

/// A file of fixed-size, already-decoded images, mapped into memory.
///
/// Each image lives in a page-aligned slot with rows aligned to 64 bytes. Looking an image up
/// costs one dictionary probe under a short lock, and returns a ``StoredImage`` that views the
/// mapping itself: nothing is copied or decoded. New images are drawn straight into their slot
/// by the caller's closure, then committed with a checksum; they become visible only once fully
/// written.
///
/// The file grows a chunk (index records and slots together) at a time up to
/// ``TableConfiguration/maximumCount``, which is a hard limit. At the limit, inserting evicts the
/// least recently used entry that nobody holds; when every slot is held, ``insert(entity:source:label:draw:)``
/// throws `ImageCacheError.Code.tableFull` and changes nothing.
///
/// An image you hold never changes, whatever any process does with the table: while the table
/// is open its file is locked, and closing or resetting the table first turns held images into
/// private copies.
///
/// All methods are safe to call from any thread.
public final class ImageTable: Sendable {
    /// The table file.
    public let path: String
    /// The geometry and identity the table was opened with.
    public let configuration: TableConfiguration
    /// What opening the table found and did.
    public let openReport: TableOpenReport

    /// Waited on by writers while a reset or close is under way, and by those for the writers in flight.
    private let state: ConditionBox<TableState>
    /// Serialises structural changes (growing, resetting, closing), which wait on the disk
    /// outside the state's lock.
    private let structure = Lock()
    /// Serialises this process's writers; the shared state's writer lock then serialises the
    /// processes' (it belongs to the open file, which every thread here shares).
    private let writer = Lock()
    private let writerTimeout: Duration
    private let logger: Logger

    /// Opens (or creates, with any missing folders) the table at `path`.
    ///
    /// A file written with a different configuration (including its identity or the system's page
    /// size) is replaced by an empty table; so is a file that is not a valid table (truncated,
    /// garbage), which is logged as an error and said in ``openReport``.
    ///
    /// Closing is optional. A file left open by a process that stopped without closing it
    /// (killed, or ended without ``close()``) is reopened on the same boot at no cost: every
    /// completed entry is served as it is, and only the images being written when it stopped are
    /// dropped. After a restart of the system, on a network file system, or for a copy of the
    /// file, every entry is marked for checking instead: its checksum is checked the first time
    /// it is read (see ``TableOpenReport/UncleanStop``).
    ///
    /// - Throws: `ImageCacheError` with code `.inUse` when another process or table object has
    ///   the file open, `.unsafePath` when the path (or its folder, unless allowed) is a symbolic
    ///   link, `.invalidConfiguration`, `.readOnly`, `.noSpace` or `.io`.
    public convenience init(
        path: String, configuration: TableConfiguration, options: TableOpenOptions = .init(),
        logger: Logger = Logger(label: "FastImageCache.ImageTable")
    ) throws {
        let (folder, name) = Directory.split(path)
        let directory = try Directory.open(folder, create: !options.readOnly, followLinks: options.followsSymbolicLinkedFolder)
        try self.init(directory: directory, name: name, configuration: configuration, options: options, logger: logger)
    }

    /// Opens (or creates) the table `name` in an open folder.
    package init(directory: Directory, name: String, configuration: TableConfiguration, options: TableOpenOptions, logger: Logger) throws {
        path = directory.child(name)
        self.configuration = configuration
        self.logger = logger
        writerTimeout = options.writerTimeout
        let opened = try TableFile.open(directory: directory, name: name, configuration: configuration, options: options, logger: logger)
        openReport = opened.report
        state = ConditionBox(opened.state)
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
    /// entry that may be torn (after an unclean shutdown), which checks its pixel checksum once.
    public func image(for entity: TableKey, source: TableKey? = nil) -> StoredImage? {
        pinnedImage(for: entity, source: source).map { StoredImage(table: state, pin: $0, configuration: configuration, entity: entity) }
    }

    /// ``image(for:source:)``'s slot, pinned for the caller, who lets go of it with
    /// ``unpin(_:)``: for an object of the caller's own that holds the image (one object a hit).
    package func pinnedImage(for entity: TableKey, source: TableKey? = nil) -> PinnedSlot? {
        switch state.withLockedValue({ $0.lookup(entity, source: source) }) {
        case .miss:
            return nil
        case .hit(let slot, let pixels, let chunk, let source, let generation):
            return PinnedSlot(slot: slot, generation: generation, chunk: chunk, baseAddress: pixels, source: source)
        case .needsVerification(let slot, let pixels, let chunk, let expected, let source, let generation):
            let actual = XXH64.hash(pixels, count: configuration.pixelByteCount)
            let passed = state.withLockedValue {
                $0.finishVerification(slot, entity: entity, generation: generation, passed: actual == expected)
            }
            // Written into the record only when no other process is storing: a lookup never
            // waits for one (the next check, here or there, writes it then).
            _ = try? asWriter(timeout: .zero) {
                state.withLockedValue { $0.persistCheck(slot, entity: entity, intact: actual == expected, repair: true) }
            }
            guard passed else {
                if actual != expected {
                    logger.error("pixel checksum mismatch; the entry is not served", metadata: ["path": "\(path)", "slot": "\(slot)"])
                }
                return nil
            }
            return PinnedSlot(slot: slot, generation: generation, chunk: chunk, baseAddress: pixels, source: source)
        }
    }

    /// Lets go of a slot pinned by ``pinnedImage(for:source:)`` or ``insertPinned(entity:source:label:draw:)``.
    package func unpin(_ pin: PinnedSlot) {
        pin.release(in: state)
    }

    /// Lets the kernel drop the pinned image's pages from resident memory (as
    /// ``StoredImage/releaseResidentPages()``).
    package func releaseResidentPages(of pin: PinnedSlot) {
        pin.releaseResidentPages(byteCount: configuration.pixelByteCount, in: state)
    }

    /// Whether an entry for `entity` exists (drawn from `source`, when given). Does not count as a use.
    public func contains(_ entity: TableKey, source: TableKey? = nil) -> Bool {
        state.withLockedValue { s in
            guard let found = s.source(of: entity) else { return false }
            return source == nil || found == source
        }
    }

    // MARK: Writing

    /// Stores a new image for `entity`: reserves a slot, lets `draw` write the pixels straight
    /// into it (`bytesPerRow × pixelHeight` bytes, in the buffer it is given), checksums them,
    /// then makes the entry visible, replacing any older entry of the entity.
    ///
    /// The slot is not visible to readers until `draw` returns and the commit is done; if `draw`
    /// throws, the slot is given back and nothing changes. An older image of the entity that
    /// somebody holds keeps its slot, unchanged, until they let go. Do not close or reset the
    /// table from inside `draw`.
    ///
    /// - Parameters:
    ///   - entity: the key of the entry to store (an entity identifier's ``TableKey``).
    ///   - source: the key of the source version the pixels are drawn from; a lookup that names
    ///     another source treats the entry as stale.
    ///   - label: a human-readable name stored with the entry (its first 59 bytes).
    ///   - draw: writes the pixels into the buffer it is given, the slot itself.
    /// - Returns: the new image.
    /// - Throws: `ImageCacheError` (`.tableFull`, `.noSpace`, `.closed`, `.readOnly`, `.io`,
    ///   `.inUse` when another process's store held the writer lock past
    ///   ``TableOpenOptions/writerTimeout``) or what `draw` throws.
    @discardableResult
    public func insert(entity: TableKey, source: TableKey, label: String = "", draw: (UnsafeMutableRawBufferPointer) throws -> Void) throws
        -> StoredImage
    {
        StoredImage(
            table: state, pin: try insertPinned(entity: entity, source: source, label: label, draw: draw), configuration: configuration,
            entity: entity)
    }

    /// ``insert(entity:source:label:draw:)``'s new image, pinned for the caller, who lets go of it
    /// with ``unpin(_:)``.
    package func insertPinned(entity: TableKey, source: TableKey, label: String, draw: (UnsafeMutableRawBufferPointer) throws -> Void)
        throws -> PinnedSlot
    {
        let (slot, pixels, record, chunk, generation) = try reserveSlot()
        // The slot's record says "being written" before its first pixel changes, so that a
        // process stopped during `draw` leaves a slot every later opener recognises.
        IndexRecord.inFlight(entity: entity, source: source, label: label).write(to: record, slot: slot)
        releaseFence()
        let buffer = UnsafeMutableRawBufferPointer(start: pixels, count: configuration.pixelByteCount)
        do {
            try draw(buffer)
        } catch {
            state.update { $0.abandon(slot: slot, generation: generation) }  // a close may wait for this writer
            throw error
        }
        let checksum = XXH64.hash(pixels, count: configuration.pixelByteCount)
        // A refused commit (closed or reset meanwhile) still hands the caller its pixels; closing
        // waits for this writer, then detaches them from the file.
        // Wakes a close or reset that waits for this writer.
        do {
            _ = try asWriter(timeout: writerTimeout) {
                state.update {
                    $0.commit(slot: slot, generation: generation, entity: entity, source: source, label: label, pixelChecksum: checksum)
                }
            }
        } catch {
            state.update { $0.abandon(slot: slot, generation: generation) }
            throw error
        }
        return PinnedSlot(slot: slot, generation: generation, chunk: chunk, baseAddress: pixels, source: source)
    }

    /// Runs `body` as the table's one writer: first among this process's threads, then among
    /// processes, through the shared state's writer lock, tried for up to `timeout`. Never called
    /// with the state's lock held, so that a lookup here never waits for another process.
    ///
    /// With a zero `timeout` it waits for no one, in this process either: a lookup that writes
    /// what it found only when the table is free uses it, and a writer of this process may be
    /// waiting for another process's.
    ///
    /// - Throws: `.inUse` when another process (or, with no timeout, another thread) held the
    ///   writer lock all that time.
    private func asWriter<R>(timeout: Duration, _ body: () throws -> R) throws -> R {
        func busy() -> ImageCacheError {
            ImageCacheError(
                .inUse,
                "another process has been storing into the table for longer than \(timeout) (stopped in the middle of a store?); try again later",
                path: path)
        }
        if timeout <= .zero {
            guard writer.tryLock() else { throw busy() }
        } else {
            writer.lock()
        }
        defer { writer.unlock() }
        guard let shared = state.withLockedValue({ $0.shared }) else { return try body() }
        guard try shared.acquireWriterLock(timeout: timeout) else { throw busy() }
        defer { shared.releaseWriterLock() }
        return try body()
    }

    private func reserveSlot() throws -> (Int, UnsafeMutableRawPointer, UnsafeMutableRawPointer, TableChunk, UInt64) {
        while true {
            switch try asWriter(timeout: writerTimeout, { state.withLockedValue { $0.reserve() } }) {
            case .slot(let slot, let pixels, let record, let chunk, let generation):
                return (slot, pixels, record, chunk, generation)
            case .closed:
                throw ImageCacheError(.closed, "the table is closed", path: path)
            case .busy:
                // A reset or close is under way; it waits for no one but writers in flight.
                state.withLockedValue(waitingUntil: { !$0.isQuiescing }) { _ in }
            case .readOnly:
                throw ImageCacheError(.readOnly, "the table is open for reading only", path: path)
            case .full:
                throw ImageCacheError(
                    .tableFull,
                    "all \(configuration.maximumCount) slots hold images that are in use; release some images or raise the format's maximum count",
                    path: path)
            case .needsGrowth(let k, let file, let generation):
                // Grow outside the state's lock, so that readers never wait for the disk.
                try structure.withLock {
                    try asWriter(timeout: writerTimeout) {
                        // Another process may have added the chunk meanwhile: take it, never grow it again.
                        let stillNeeded = state.withLockedValue {
                            $0.adoptChunks(); return $0.generation == generation && !$0.isQuiescing && $0.chunks.count == k
                        }
                        guard stillNeeded else { return }
                        // The side file's room for the new slots is reserved first, outside the lock too.
                        try state.withLockedValue { $0.shared }?.prepareGrowth(toChunks: k + 1)
                        let chunk = TableChunk(region: try file.growChunk(k))
                        state.withLockedValue { s in
                            if s.generation == generation && s.chunks.count == k {
                                s.addChunk(chunk, slots: file.layout.slotCount(ofChunk: k))
                            }
                        }
                    }
                }
            }
        }
    }

    /// Removes the entry of `entity`. Returns whether there was one (always false when read-only,
    /// and false, logged, when another process's store held the writer lock past
    /// ``TableOpenOptions/writerTimeout``). A held image of it stays valid.
    @discardableResult
    public func remove(_ entity: TableKey) -> Bool {
        do {
            return try asWriter(timeout: writerTimeout) { state.withLockedValue { $0.remove(entity) } }
        } catch {
            logger.error("the entry could not be removed: \(error)", metadata: ["path": "\(path)"])
            return false
        }
    }

    /// Empties the table and gives its disk space back. Images still held keep their pixels,
    /// detached from the file first.
    ///
    /// - Throws: `ImageCacheError` (`.closed`, `.readOnly`, `.io`).
    public func removeAll() throws {
        try structure.withLock {
            let file = try quiesce()
            defer { state.update { $0.isQuiescing = false } }  // wakes the writers that wait
            guard file.isWritable else { throw ImageCacheError(.readOnly, "the table is open for reading only", path: path) }
            try withGate(file) {
                // Other processes have it open: the entries go, for every process, but the file
                // stays as long as it is, under their mappings.
                guard try file.descriptor.lock(.exclusive, wait: false, path: path) else {
                    // The failed upgrade let go of this process's shared lock: take it again.
                    _ = try file.descriptor.lock(.shared, wait: false, path: path)
                    try asWriter(timeout: writerTimeout) { state.withLockedValue { $0.resetShared() } }
                    return
                }
                defer { _ = try? file.descriptor.lock(.shared, wait: false, path: path) }
                try resetAlone(file)
            }
        }
    }

    /// Runs `body` holding the table's open gate (``TableFile/gateByte``), so that no process
    /// opens or closes the table meanwhile: whether this one is alone stays true while it acts on it.
    private func withGate<R>(_ file: TableFileHandle, _ body: () throws -> R) throws -> R {
        let gate = try TableOpenGate(
            file.descriptor, kind: file.isWritable ? .exclusive : .shared, timeout: TableFile.gateTimeout, path: path)
        defer { gate.release() }
        return try body()
    }

    /// Empties the table that this process alone has open: held images are detached, the file
    /// is cut back to its header, and the shared state is built afresh.
    private func resetAlone(_ file: TableFileHandle) throws {
        let failed = state.withLockedValue { s in
            let failed = s.detachHeldSlots()
            s.clearAll()
            return failed
        }
        keepOpen(file, for: failed)
        try file.truncateToHeader()
        let shared = try file.buildSharedState(chunks: 0, entries: [], logger: logger)
        state.withLockedValue { $0.shared = shared }
    }

    /// Stops new lookups and writes and waits for writers in flight. Returns the open file.
    private func quiesce() throws -> TableFileHandle {
        let file: TableFileHandle? = state.withLockedValue { s in
            guard s.file != nil, !s.isQuiescing else { return nil }
            s.isQuiescing = true
            return s.file
        }
        guard let file else { throw ImageCacheError(.closed, "the table is closed", path: path) }
        state.withLockedValue(waitingUntil: { $0.writersInFlight == 0 }) { _ in }
        return file
    }

    private func keepOpen(_ file: TableFileHandle, for chunks: [TableChunk]) {
        guard !chunks.isEmpty else { return }
        logger.error(
            "held images could not be detached from the file (out of memory); the file stays locked until they are released",
            metadata: ["path": "\(path)"])
        for chunk in chunks { chunk.keep(file) }
    }

    /// Writes every change to disk and marks the file closed cleanly. Afterwards lookups return
    /// nil and inserts throw `.closed`. Held images stay readable and unchanged: they are detached
    /// from the file, which is unlocked at once.
    public func close() {
        structure.withLock {
            guard let file = try? quiesce() else { return }
            do {
                try flush(file)
            } catch {
                logger.error("closing the table failed; it will be checked when next opened: \(error)", metadata: ["path": "\(path)"])
            }
            // Wakes the writers that wait, to find the table closed.
            var failed: [TableChunk]?
            let forget = {
                failed = self.state.update { s in
                    let failed = s.detachHeldSlots()
                    s.clearAll()
                    s.file = nil
                    s.isQuiescing = false
                    return failed
                }
            }
            do {
                try withGate(file) {
                    // The last process to close it marks it closed cleanly (a failed upgrade only
                    // lets go of the shared lock this one is giving up anyway), after dropping
                    // the images that processes which stopped were writing.
                    let last = try file.isWritable && file.descriptor.lock(.exclusive, wait: false, path: path)
                    if last {
                        let dropped = state.withLockedValue { $0.dropAbandonedWrites() }
                        if dropped > 0 {
                            logger.notice(
                                "\(dropped) images that processes which stopped were writing were dropped", metadata: ["path": "\(path)"])
                        }
                    }
                    forget()
                    if last { try file.writeHeader(open: false) }
                }
            } catch {
                logger.error("closing the table failed; it will be checked when next opened: \(error)", metadata: ["path": "\(path)"])
            }
            if failed == nil { forget() }
            let detachFailures = failed ?? []
            // A mapping holds the open file, and with it the lock, even after the descriptor
            // closes: unlock explicitly, now that no held image reads the file any more.
            if detachFailures.isEmpty {
                file.descriptor.unlock()
                TableLockReleases.announce()
            } else {
                keepOpen(file, for: detachFailures)
            }
        }
    }

    /// Saves recency and writes dirty pages and the file's metadata to disk.
    private func flush(_ file: TableFileHandle) throws {
        guard file.isWritable else { return }
        let chunks = state.withLockedValue { s in
            s.saveRecency()
            return s.chunks
        }
        for chunk in chunks { try chunk.region.synchronize(wait: true, path: path) }
        try file.descriptor.synchronize(path: path)
    }

    /// Lets the kernel drop every mapped page of the table from the process's resident memory.
    /// Nothing is lost or invalidated: pages are mapped again from the file when read.
    public func releaseResidentMemory() {
        for chunk in state.withLockedValue({ $0.chunks }) { chunk.region.releaseResidentPages() }
    }

    /// Writes every change to the disk now (recency, `msync` and `fsync`), without closing.
    public func synchronize() throws {
        guard let file = state.withLockedValue({ $0.file }) else { return }
        try flush(file)
    }

    // MARK: Inspection

    /// Counters and sizes of the table.
    public var statistics: TableStatistics {
        let (counts, file) = state.withLockedValue { s in
            (
                TableStatistics(
                    count: s.count, maximumCount: configuration.maximumCount, allocatedSlots: s.allocatedSlots,
                    fileBytes: 0, hits: s.hits, misses: s.misses, evictions: s.evictions,
                    inserts: s.inserts, bytesWritten: s.bytesWritten, heldImages: s.heldSlots), s.file
            )
        }
        var statistics = counts
        // The system call stays outside the lock, so a frame's lookup never waits for it.
        statistics.fileBytes = file?.allocatedBytes() ?? 0
        return statistics
    }

    /// The table objects that have the table open now, in this process and others (each process
    /// counts once per table object), as the table's shared state registers them: for people,
    /// as `fic inspect` shows them. Empty once closed; only this one for a table no other can
    /// join (read-only alone, on a network file system).
    public func openProcesses() -> [TableProcess] {
        guard let shared = state.withLockedValue({ $0.shared }) else { return [] }
        // The kernel is asked about each holder, outside the state's lock.
        return shared.liveHolders().map { entry in
            TableProcess(processID: entry.process?.pid, startTime: entry.process?.startTime, isThisTable: entry.index == shared.holder)
        }
    }

    /// A new open file description of the table file, for a ``StoreClaim``; nil when the table
    /// is closed or read-only, or `/proc` is missing. Only a duplicate of the descriptor is made
    /// under the state's lock (so that it cannot be closed, and its number reused for another
    /// file, meanwhile); the slower open through `/proc` happens outside, where no lookup waits
    /// for it.
    func reopenedFileForClaims() -> FileDescriptor? {
        let copy = state.withLockedValue { s -> FileDescriptor? in
            guard let file = s.file, file.isWritable else { return nil }
            return try? file.descriptor.duplicate(path: path)
        }
        guard let copy else { return nil }
        defer { copy.closeQuietly() }
        return try? copy.reopened(path: path)
    }

    /// The entries, most recently used first.
    public func entries() -> [TableEntry] {
        state.withLockedValue { s in
            s.listEntries().map { TableEntry(label: $0.label, entity: $0.entry.entity, source: $0.entry.source, slot: $0.slot) }
        }
    }

    /// Checks every entry's pixels against its checksum. Entries that fail are removed when
    /// `repair` is true (and the table is writable); otherwise they are marked so that no lookup
    /// serves them. Returns the entries that failed.
    public func verify(repair: Bool) -> [TableEntry] {
        var bad: [TableEntry] = []
        for entry in entries() {
            guard let (pixels, expected, generation) = state.withLockedValue({ $0.pinEntry(entry.entity, in: entry.slot) }) else {
                continue
            }
            let intact = XXH64.hash(pixels, count: configuration.pixelByteCount) == expected
            state.withLockedValue { s in
                if generation == s.generation, s.entry(in: entry.slot)?.entry.entity == entry.entity {
                    s.markChecked(entry.slot, entity: entry.entity, intact: intact)
                }
                s.unpin(entry.slot, generation: generation)
            }
            do {
                try asWriter(timeout: writerTimeout) {
                    state.withLockedValue { s in
                        if generation == s.generation { s.persistCheck(entry.slot, entity: entry.entity, intact: intact, repair: repair) }
                    }
                }
            } catch {
                logger.error(
                    "the outcome of a check could not be written: \(error)", metadata: ["path": "\(path)", "slot": "\(entry.slot)"])
            }
            if !intact {
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

/// A table object that has a table open, in some process (``ImageTable/openProcesses()``).
public struct TableProcess: Sendable, Hashable, Codable {
    /// Its process id, when its registration says (a process in another PID namespace has an
    /// id that means nothing here).
    public var processID: Int32?
    /// When its process started, in clock ticks after boot (so that a reused id is told apart).
    public var startTime: UInt64?
    /// Whether it is the table object asked.
    public var isThisTable: Bool
}
