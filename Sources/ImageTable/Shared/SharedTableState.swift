import FICCore
import Logging
import SystemPackage

/// This process's part in its table's side file (``SharedStateFile``): it registers as a holder,
/// and keeps what every process will look entities up in — the slot words, the shared index, the
/// hold bits and the recency stamps — in step with every change the table makes.
///
/// Used only under the table's own lock (``TableState``), by a process that has the table to
/// itself and so built the side file afresh at open; that is why it is `@unchecked Sendable`.
/// Every slot it is given is one of the table's allocated slots.
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

    /// Builds the side file of the table `tableName` in `directory` afresh from its committed
    /// `entries` in `chunks` allocated chunks, for an opener that has the table to itself, and
    /// registers this process as a holder.
    ///
    /// Returns nil, after saying why in the log, when the side file cannot be made: a file of
    /// that name that this package did not write is there (it is left as it is), or the disk or
    /// folder refuses. The table then works as before, in this process alone.
    static func build(in directory: Directory, tableName: String, table: TableLayout, binding: SharedStateHeader.Binding,
                      chunks: Int, entries: [Entry], logger: Logger) -> SharedTableState? {
        let name = SharedStateFile.name(ofTable: tableName)
        let path = directory.child(name)
        do {
            guard SharedStateFile.mayReplace(name, in: directory) else {
                logger.notice("a file that is not a table's shared state has the name of this table's; it is left as it is, and the table cannot be shared with other processes", metadata: ["path": "\(path)"])
                return nil
            }
            let layout = try SharedStateLayout(table: table)
            let (file, _) = try SharedStateFile.create(
                in: directory, tableName: tableName, layout: layout, binding: binding, allocatedChunks: chunks,
                entries: entries.map { .init(slot: $0.slot, entity: $0.entity, version: 1, sequence: $0.sequence, lastAccess: $0.lastAccess) })
            let entriesBase = file.mapping.base + layout.holderTableOffset
            let holder = try HolderTable.register(file.descriptor, entries: entriesBase, path: path)
            return SharedTableState(file: file, holder: holder, allocatedChunks: chunks)
        } catch {
            logger.notice("the table's shared state could not be made, so the table cannot be shared with other processes: \(error)", metadata: ["path": "\(path)"])
            return nil
        }
    }

    /// Ends this process's registration: its hold bits are cleared, then its holder entry and lock byte.
    func unregister() {
        guard registered else { return }
        registered = false
        for slot in 0..<allocatedSlots where cells.isHeld(slot, by: holder) { cells.release(slot, holder: holder) }
        try? HolderTable.unregister(holder, file.descriptor, entries: file.mapping.base + file.layout.holderTableOffset, path: file.path)
    }

    // MARK: Holding and recency

    /// Sets this process's hold bit on `slot` (its first holder in this process).
    func hold(_ slot: Int) {
        _ = cells.hold(slot, holder: holder, expecting: cells.word(slot))
    }

    /// Clears this process's hold bit on `slot` (its last holder in this process let go).
    func release(_ slot: Int) {
        cells.release(slot, holder: holder)
    }

    /// Marks `slot` used now, for every process's eviction.
    func touch(_ slot: Int) {
        _ = SharedRecency.touch(slot, in: cells, slack: SharedRecency.slack(forAllocatedSlots: allocatedSlots))
    }

    // MARK: Writing

    /// Makes `slot` in flight for this process, before its record and pixels change. False when
    /// another holder holds it (its word is then as it was).
    func claim(_ slot: Int) -> Bool {
        cells.claim(slot, owner: holder) { [file, holder] other in
            // A holder the kernel cannot be asked about counts as alive: its slot is left alone.
            (try? HolderTable.isAlive(other, through: file.descriptor, ownIndex: holder, path: file.path)) ?? true
        } != nil
    }

    /// Makes the in-flight `slot` the committed entry of `entity` (its record written, with commit
    /// `sequence`) and puts it in the index; `entries` gives every committed entity and slot, for
    /// when the index must be rebuilt to take it.
    func commit(_ slot: Int, entity: TableKey, sequence: UInt64, entries: () -> [(entity: TableKey, slot: Int)]) {
        cells.publish(slot, .committed(version: SlotCells.version(after: cells.word(slot).version)))
        _ = SharedRecency.touch(slot, in: cells, slack: 0)
        let base = file.mapping.base
        if SharedIndexWriter.needsRebuild(base, layout: file.layout, allocatedSlots: allocatedSlots)
            || !SharedIndexWriter.insert(entity, slot: slot, base: base, layout: file.layout) {
            rebuildIndex(entries())
        }
        base.storeRelaxed(sequence &+ 1, toByteOffset: file.layout.controlOffset(.nextCommitSequence))
    }

    /// Takes the committed entry of `entity` out of `slot` and out of the index: the slot is free
    /// (a holder of it keeps its bit, so no writer draws over it).
    func retire(_ slot: Int, entity: TableKey) {
        _ = SharedIndexWriter.remove(entity, slot: slot, base: file.mapping.base, layout: file.layout)
        makeFree(slot)
    }

    /// Gives back an in-flight `slot` whose drawing failed or was refused.
    func abandon(_ slot: Int) {
        makeFree(slot)
    }

    private func makeFree(_ slot: Int) {
        cells.cell(slot).storeRelaxed(0, toByteOffset: SharedCell.lastUseOffset)
        cells.publish(slot, .free(version: SlotCells.version(after: cells.word(slot).version)))
    }

    // MARK: Growing

    /// Reserves the disk space growing to `chunks` chunks needs — the new chunks' cells and, when
    /// the index must then be rebuilt, the inactive index region — so that no later write
    /// through the mapping can fault on a full disk. Called outside the table's state lock.
    func prepareGrowth(toChunks chunks: Int) throws {
        let layout = file.layout
        let start = layout.cellChunkOffset(allocatedChunks)
        try file.descriptor.allocate(offset: start, length: (chunks - allocatedChunks) * layout.cellChunkLength, path: file.path)
        let (region, buckets) = indexAfterGrowth(toChunks: chunks)
        let regionStart = layout.regionOffset(region)
        try file.descriptor.allocate(offset: regionStart, length: roundUp(buckets * SharedStateLayout.bucketLength, layout.pageSize), path: file.path)
    }

    /// The region and bucket count a rebuild for `chunks` chunks writes.
    private func indexAfterGrowth(toChunks chunks: Int) -> (region: Int, buckets: Int) {
        let layout = file.layout
        let active = SharedIndexWriter.active(file.mapping.base, layout: layout)
        let log2 = min(IndexDescriptor.bucketsLog2(forSlots: max(layout.slotCount(chunks: chunks), 1)), layout.maximumBucketsLog2)
        return (active.map { 1 - $0.region } ?? 0, 1 << log2)
    }

    /// Gives the cells of the table's new chunks (prepared by ``prepareGrowth(toChunks:)``) to
    /// every process, their slots free, and rebuilds the index when it has become too small.
    func grew(toChunks chunks: Int, entries: () -> [(entity: TableKey, slot: Int)]) {
        allocatedChunks = chunks
        allocatedSlots = file.layout.slotCount(chunks: chunks)
        file.mapping.base.storeRelease(UInt64(chunks), toByteOffset: file.layout.controlOffset(.allocatedChunks))
        if SharedIndexWriter.needsRebuild(file.mapping.base, layout: file.layout, allocatedSlots: allocatedSlots) {
            rebuildIndex(entries())
        }
    }

    private func rebuildIndex(_ entries: [(entity: TableKey, slot: Int)]) {
        // The region was reserved when the table grew to its present size; the allocation here
        // only covers a rebuild that tombstones made necessary, of the same size.
        _ = try? SharedIndexWriter.rebuild(entries, allocatedSlots: allocatedSlots, base: file.mapping.base, layout: file.layout) { range in
            try file.descriptor.allocate(offset: range.lowerBound, length: range.count, path: file.path)
        }
    }
}
