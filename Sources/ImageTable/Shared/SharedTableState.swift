import FICCore
import Logging
import SystemPackage

/// This process's part in its table's side file (``SharedStateFile``): it registers as a holder,
/// and reads and changes what every process looks entities up in — the slot words, the shared
/// index, the hold bits, the recency stamps, the free list and the commit sequence.
///
/// A table no other process can share (opened read-only, or whose side file could not be made)
/// keeps the same state in a file in memory, so that one code path serves both.
///
/// Used under the table's own lock (``TableState``), changes to what other processes share made
/// with the writer lock held; its one mutable field outside that lock, the allocated count, is
/// changed and read while growing, which the table serialises. That is why it is
/// `@unchecked Sendable`. Every slot it is given is one of the table's allocated slots.
final class SharedTableState: @unchecked Sendable {
    /// The side file, mapped.
    let file: SharedStateFile
    /// This process's index in the holder table.
    let holder: Int
    /// The slots' cells.
    let cells: SlotCells
    /// Slots with cells (allocated chunks' slots).
    private(set) var allocatedSlots: Int
    private var allocatedChunks: Int
    private var registered = true

    private init(file: SharedStateFile, holder: Int, allocatedChunks: Int) {
        self.file = file
        self.holder = holder
        cells = file.cells
        self.allocatedChunks = allocatedChunks
        allocatedSlots = file.layout.slotCount(chunks: allocatedChunks)
    }

    deinit {
        unregister()
    }

    /// A committed entry of the table, as the side file is built from it.
    struct Entry {
        var slot: Int
        var entity: TableKey
        var sequence: UInt64
        /// Its saved recency (it only orders entries).
        var lastAccess: UInt64
    }

    /// Builds the table's state afresh from its committed `entries` in `chunks` allocated chunks,
    /// for an opener that has the table to itself, and registers this process as a holder: in
    /// the side file of the table `tableName` in `directory` when `shareable`, otherwise (or
    /// when the side file cannot be made, which the log says) in memory.
    ///
    /// A file at the side file's name that this package did not write is left as it is.
    ///
    /// - Throws: ``ImageCacheError`` when even the state in memory cannot be made (`.io`, out of memory).
    static func build(
        in directory: Directory, tableName: String, table: TableLayout, binding: SharedStateHeader.Binding,
        chunks: Int, entries: [Entry], shareable: Bool, logger: Logger
    ) throws -> SharedTableState {
        let name = SharedStateFile.name(ofTable: tableName)
        let path = directory.child(name)
        let layout = try SharedStateLayout(table: table)
        let built = entries.map {
            SharedStateBuilder.Entry(slot: $0.slot, entity: $0.entity, version: 1, sequence: $0.sequence, lastAccess: $0.lastAccess)
        }
        if shareable {
            do {
                guard SharedStateFile.mayReplace(name, in: directory) else {
                    throw ImageCacheError(.unsafePath, "a file that is not a table's shared state has its name; it is left as it is")
                }
                let (file, _) = try SharedStateFile.create(
                    in: directory, tableName: tableName, layout: layout, binding: binding,
                    allocatedChunks: chunks, entries: built)
                return try register(file, chunks: chunks)
            } catch {
                logger.notice(
                    "the table cannot be shared with other processes: its shared state could not be made (\(error))",
                    metadata: ["path": "\(path)"])
            }
        }
        let (file, _) = try SharedStateFile.makePrivate(
            path: path, layout: layout, binding: binding, allocatedChunks: chunks, entries: built)
        return try register(file, chunks: chunks)
    }

    /// Joins the shared state of the table `tableName` in `directory`, which another process has
    /// open (``SharedStateFile/open(in:tableName:layout:binding:)``), and registers this process
    /// as a holder. It has no chunks until the caller has mapped them (``adopt(chunks:)``).
    static func join(in directory: Directory, tableName: String, table: TableLayout, binding: SharedStateHeader.Binding) throws
        -> SharedTableState
    {
        let layout = try SharedStateLayout(table: table)
        let file = try SharedStateFile.open(in: directory, tableName: tableName, layout: layout, binding: binding)
        let joined = try register(file, chunks: 0)
        // Left from an earlier session, with nobody in it: whoever has the table open keeps its
        // state to itself (it opened it for reading only), and this state is not the table's now.
        let entries = file.mapping.base + layout.holderTableOffset
        let others = try HolderTable.entries(entries, through: file.descriptor, ownIndex: joined.holder, path: file.path)
        guard others.contains(where: { $0.isAlive && $0.index != joined.holder }) else {
            joined.unregister()
            throw NobodyShares()
        }
        return joined
    }

    /// What ``join(in:tableName:table:binding:)`` throws when no live process is registered in
    /// the shared state: those who have the table open keep their state to themselves (they
    /// read only), or are dying.
    struct NobodyShares: Error {}

    /// How many chunks the control page says the table has (at most the table's maximum, whatever it holds).
    private static func sharedChunks(of file: SharedStateFile) -> Int {
        let value = UnsafeRawPointer(file.mapping.base).loadAcquire(fromByteOffset: file.layout.controlOffset(.allocatedChunks))
        return Int(min(value, UInt64(file.layout.maximumChunks)))
    }

    /// How many chunks the table has now, as another process may have grown it.
    var sharedChunks: Int { Self.sharedChunks(of: file) }

    /// Takes the chunks another process added (which this process has just mapped) as its own.
    func adopt(chunks: Int) {
        guard chunks > allocatedChunks else { return }
        allocatedChunks = chunks
        allocatedSlots = file.layout.slotCount(chunks: chunks)
    }

    private static func register(_ file: SharedStateFile, chunks: Int) throws -> SharedTableState {
        let holder = try HolderTable.register(file.descriptor, entries: file.mapping.base + file.layout.holderTableOffset, path: file.path)
        return SharedTableState(file: file, holder: holder, allocatedChunks: chunks)
    }

    /// Ends this process's registration: its hold bits are cleared, then its holder entry and lock byte.
    func unregister() {
        guard registered else { return }
        registered = false
        for slot in 0..<allocatedSlots where cells.isHeld(slot, by: holder) { cells.release(slot, holder: holder) }
        try? HolderTable.unregister(holder, file.descriptor, entries: file.mapping.base + file.layout.holderTableOffset, path: file.path)
    }

    /// The holders alive now (this process's registration among them), as the holder table
    /// and the kernel's locks say.
    func liveHolders() -> [HolderTable.Entry] {
        let entries = file.mapping.base + file.layout.holderTableOffset
        let all = (try? HolderTable.entries(entries, through: file.descriptor, ownIndex: holder, path: file.path)) ?? []
        return all.filter(\.isAlive)
    }

    private var base: UnsafeMutableRawPointer { file.mapping.base }
    private var layout: SharedStateLayout { file.layout }

    // MARK: Looking up

    /// The slot, word and committed record of `entity`, found through the shared index among
    /// the first `slots` slots (the ones this process has mapped), whose records are at
    /// `record(slot)`: a seqlock read, so a slot that is changing is a miss, never a wait.
    func find(_ entity: TableKey, among slots: Int, record: (Int) -> UnsafeRawPointer) -> (slot: Int, word: SlotWord, record: IndexRecord)?
    {
        var found: (Int, SlotWord, IndexRecord)?
        _ = SharedIndex.lookup(
            entity, in: UnsafeRawBufferPointer(start: base, count: file.mapping.length), layout: layout,
            allocatedSlots: min(slots, allocatedSlots)
        ) { slot in
            guard let (word, r) = cells.committedRecord(slot, at: record(slot)), r.entity == entity else { return false }
            found = (slot, word, r)
            return true
        }
        return found
    }

    /// Entries in the index, as its count says (at most one per slot: a count beyond is damage
    /// that the next store rebuilds away).
    var entryCount: Int { min(SharedIndexWriter.counts(base, layout: layout).entries, allocatedSlots) }

    // MARK: Holding and recency

    /// `slot`'s recency stamp.
    func stamp(_ slot: Int) -> UInt64 { SharedRecency.stamp(of: slot, in: cells) }

    /// The slots `include` accepts (given the slot and its word), most recently used first.
    func orderedByRecency(where include: (Int, SlotWord) -> Bool) -> [Int] {
        SharedRecency.orderedByRecency(cells, allocatedSlots: allocatedSlots, where: include)
    }

    // MARK: Writing

    /// Takes the writer lock, among processes (``SharedWriterLock``), trying for up to
    /// `timeout` (zero: once). Returns false when another process held it all that time. The
    /// caller serialises its own threads first: the lock belongs to the open file, which every
    /// thread of this process shares.
    func acquireWriterLock(timeout: Duration) throws -> Bool {
        if timeout <= .zero {
            return try file.descriptor.lockRange(.exclusive, start: SharedWriterLock.byte, length: 1, wait: false, path: file.path)
        }
        return try SharedWriterLock.acquire(file.descriptor, timeout: timeout, path: file.path)
    }

    /// Lets go of the writer lock.
    func releaseWriterLock() {
        try? SharedWriterLock.release(file.descriptor, path: file.path)
    }

    /// Makes `slot` in flight for this process, before its record and pixels change. Nil when
    /// another live holder holds it, or another live writer has it in flight (its word is then
    /// as it was); otherwise the in-flight word.
    func claim(_ slot: Int) -> SlotWord? {
        cells.claim(slot, owner: holder) { [file, holder] other in
            // A holder the kernel cannot be asked about counts as alive: its slot is left alone.
            (try? HolderTable.isAlive(other, through: file.descriptor, ownIndex: holder, path: file.path)) ?? true
        }
    }

    /// The least recently used slot among those `isUsable` accepts (given the slot and its word).
    func victim(isUsable: (Int, SlotWord) -> Bool) -> Int? {
        SharedRecency.victim(in: cells, allocatedSlots: allocatedSlots, isUsable: isUsable)
    }

    /// The commit sequence the next store gets.
    var nextSequence: UInt64 {
        min(
            max(UnsafeRawPointer(base).loadRelaxed(fromByteOffset: layout.controlOffset(.nextCommitSequence)), 1),
            IndexRecord.maximumSequence)
    }

    /// Makes the in-flight `slot` the committed entry of `entity` (its record written, with commit
    /// `sequence`) and puts it in the index; `entries` gives every committed entity and slot, for
    /// when the index must be rebuilt to take it. Returns the committed word.
    func commit(_ slot: Int, entity: TableKey, sequence: UInt64, entries: () -> [(entity: TableKey, slot: Int)]) -> SlotWord {
        let word = SlotWord.committed(version: SlotCells.version(after: cells.word(slot).version))
        cells.publish(slot, word)
        if SharedIndexWriter.needsRebuild(base, layout: layout, allocatedSlots: allocatedSlots)
            || !SharedIndexWriter.insert(entity, slot: slot, base: base, layout: layout)
        {
            rebuildIndex(entries())
        }
        base.storeRelaxed(min(sequence, IndexRecord.maximumSequence - 1) + 1, toByteOffset: layout.controlOffset(.nextCommitSequence))
        return word
    }

    /// Takes `entity`'s bucket for `slot` out of the index.
    func unindex(_ entity: TableKey, slot: Int) {
        _ = SharedIndexWriter.remove(entity, slot: slot, base: base, layout: layout)
    }

    /// Makes `slot` free (a new version; the oldest of recency stamps). A holder of it keeps its
    /// bit, so no writer draws over it.
    func free(_ slot: Int) {
        cells.cell(slot).storeRelaxed(0, toByteOffset: SharedCell.lastUseOffset)
        cells.publish(slot, .free(version: SlotCells.version(after: cells.word(slot).version)))
    }

    // MARK: The free list

    /// Puts the free `slot` at the head of the free list.
    func pushFree(_ slot: Int) {
        let head = layout.controlOffset(.freeListHead)
        let next = UnsafeRawPointer(base).loadRelaxed(fromByteOffset: head)
        cells.cell(slot).storeBytes(
            of: UInt32(truncatingIfNeeded: next).littleEndian, toByteOffset: SharedCell.nextFreeOffset, as: UInt32.self)
        base.storeRelaxed(UInt64(slot + 1), toByteOffset: head)
    }

    /// Takes the slot at the head of the free list. The caller checks it is still free (its word,
    /// and the claim); a list that names a slot out of range is dropped (the slots it held are
    /// found again by the eviction scan, which takes free slots first).
    func popFree() -> Int? {
        let head = layout.controlOffset(.freeListHead)
        let first = UnsafeRawPointer(base).loadRelaxed(fromByteOffset: head)
        guard first != 0 else { return nil }
        guard first <= UInt64(allocatedSlots) else {
            base.storeRelaxed(0, toByteOffset: head)
            return nil
        }
        let slot = Int(first - 1)
        let cell = cells.cell(slot)
        let next = UInt64(UInt32(littleEndian: cell.loadUnaligned(fromByteOffset: SharedCell.nextFreeOffset, as: UInt32.self)))
        cell.storeBytes(of: UInt32(0), toByteOffset: SharedCell.nextFreeOffset, as: UInt32.self)
        base.storeRelaxed(next <= UInt64(allocatedSlots) ? next : 0, toByteOffset: head)
        return slot
    }

    // MARK: Growing

    /// Reserves the disk space growing to `chunks` chunks needs — the new chunks' cells and, when
    /// the index must then be rebuilt, the inactive index region — so that no later write
    /// through the mapping can fault on a full disk. Called outside the table's state lock.
    func prepareGrowth(toChunks chunks: Int) throws {
        let start = layout.cellChunkOffset(allocatedChunks)
        try file.descriptor.allocate(offset: start, length: (chunks - allocatedChunks) * layout.cellChunkLength, path: file.path)
        let active = SharedIndexWriter.active(base, layout: layout)
        let log2 = min(IndexDescriptor.bucketsLog2(forSlots: max(layout.slotCount(chunks: chunks), 1)), layout.maximumBucketsLog2)
        let regionStart = layout.regionOffset(active.map { 1 - $0.region } ?? 0)
        try file.descriptor.allocate(
            offset: regionStart, length: roundUp((1 << log2) * SharedStateLayout.bucketLength, layout.pageSize), path: file.path)
    }

    /// Gives the cells of the table's new chunks (prepared by ``prepareGrowth(toChunks:)``) to
    /// every process, their slots free (on the free list, lowest first), and rebuilds the index
    /// when it has become too small.
    func grew(toChunks chunks: Int, entries: () -> [(entity: TableKey, slot: Int)]) {
        let first = allocatedSlots
        allocatedChunks = chunks
        allocatedSlots = layout.slotCount(chunks: chunks)
        for slot in stride(from: allocatedSlots - 1, through: first, by: -1) { pushFree(slot) }
        base.storeRelease(UInt64(chunks), toByteOffset: layout.controlOffset(.allocatedChunks))
        if SharedIndexWriter.needsRebuild(base, layout: layout, allocatedSlots: allocatedSlots) {
            rebuildIndex(entries())
        }
    }

    private func rebuildIndex(_ entries: [(entity: TableKey, slot: Int)]) {
        // The region was reserved when the table grew to its present size; the allocation here
        // only covers a rebuild that tombstones made necessary, of the same size. Should it fail
        // (a full disk), the index keeps what it has: an entity it lacks is a miss, never wrong.
        _ = try? SharedIndexWriter.rebuild(entries, allocatedSlots: allocatedSlots, base: base, layout: layout) { range in
            try file.descriptor.allocate(offset: range.lowerBound, length: range.count, path: file.path)
        }
    }
}
