/// Everything about an open table that changes, in one value, so that one lock guards all of it
/// (``ImageTable`` keeps it in a `LockedBox`). Methods are called with the lock held and never
/// wait on the disk: growing, flushing and checksumming happen outside the lock.
///
/// Which entity is in which slot, what is held, what was used when, and which slots are free
/// live in the table's shared state (``SharedTableState``), where every process that has the
/// table open finds them. This value keeps only what is this process's own: its mapped chunks,
/// its pins, and hints — what it last found of each entity it looked up, checked against the
/// slot's word and record at every use, so a hint never serves a slot that changed.
struct TableState {
    /// What this process last found of an entity, valid for as long as its slot's word is `word`
    /// and its record names the entity and the pixel checksum.
    struct Hint {
        var slot: Int
        /// Where the slot's cell is in the shared state (``SlotCells/cellOffset(_:)``).
        var cell: Int
        var word: SlotWord
        var source: TableKey
        var pixelChecksum: UInt64
        /// False until the pixels have been checked, for entries that may be torn (see ``TableOpenReport/recoveredFromCrash``).
        var verified: Bool
    }

    /// This process's own state of one slot.
    struct SlotLocal {
        /// The images of the slot this process holds.
        var pins: Int32 = 0
        /// The slot's entry went while this process held an image of it: free once it lets go.
        var orphaned = false
        /// This process must check the slot's entry before serving it, though its record does not
        /// say so (a table opened read-only after an unclean stop cannot mark its records).
        var mustCheck = false
    }

    /// A committed entry, as ``listEntries()`` gives it.
    struct Entry {
        var entity: TableKey
        var source: TableKey
        var pixelChecksum: UInt64
        var sequence: UInt64
    }

    /// Where a new image can go.
    enum Reservation {
        /// A slot, pinned for the writer: its pixels and its record (which only the writer
        /// touches until it commits or abandons the slot).
        case slot(Int, UnsafeMutableRawPointer, record: UnsafeMutableRawPointer, TableChunk, generation: UInt64)
        /// A new chunk must be added first.
        case needsGrowth(chunk: Int, file: TableFileHandle, generation: UInt64)
        /// Every slot holds an image in use.
        case full
        /// The table is closed.
        case closed
        /// The table is being closed or reset: try again in a moment.
        case busy
        /// The table is open for reading only.
        case readOnly
    }

    /// What a lookup found.
    enum LookupResult {
        /// An entry whose pixels may be served; its slot is pinned.
        case hit(Int, UnsafeMutableRawPointer, TableChunk, source: TableKey, generation: UInt64)
        /// An entry whose pixels must be checked first; its slot is pinned.
        case needsVerification(Int, UnsafeMutableRawPointer, TableChunk, expected: UInt64, source: TableKey, generation: UInt64)
        /// No usable entry.
        case miss
    }

    /// The open file; nil once closed.
    var file: TableFileHandle?
    /// The state every process that has the table open shares; nil once closed.
    var shared: SharedTableState? {
        didSet {
            cells = shared?.cells
            holder = shared?.holder ?? 0
            recencySlack = SharedRecency.slack(forAllocatedSlots: allocatedSlots)
        }
    }
    /// The shared state's cells and this process's holder index there, kept beside it so that a
    /// lookup reaches them without retaining the shared state (a lookup's cost is counted in
    /// nanoseconds); valid while ``shared`` is set, which keeps them mapped.
    private var cells: SlotCells?
    private var holder = 0
    /// How far a slot's recency stamp may lag before a use writes it again (``SharedRecency``).
    private var recencySlack: UInt64 = 0
    /// Bumped by every close and reset: images of older generations no longer belong to the index.
    var generation: UInt64 = 0
    /// Set while closing or resetting: no lookups, no new writes.
    var isQuiescing = false
    /// The table's layout.
    let layout: TableLayout
    let pixelByteCount: Int

    private(set) var chunks: [TableChunk] = []
    private var hints: HintCache
    /// What this process keeps of each slot it has mapped, side by side in one array: a lookup and
    /// its release read one slot's pins and flags together, one page where three arrays took three.
    private var local: [SlotLocal] = []
    /// Orphaned slots this process let go of, for the free list: only a writer changes it, so
    /// the next store here puts them there.
    private var released: [Int] = []
    private(set) var heldSlots = 0
    private(set) var writersInFlight = 0

    var hits = 0
    var misses = 0
    var evictions = 0
    var inserts = 0
    var bytesWritten = 0

    init(layout: TableLayout, pixelByteCount: Int) {
        self.layout = layout
        self.pixelByteCount = pixelByteCount
        hints = HintCache(capacity: max(2 * layout.maximumCount, 64))
    }

    var count: Int { shared?.entryCount ?? 0 }
    /// Slots this process has mapped.
    var allocatedSlots: Int { local.count }
    var isWritable: Bool { file?.isWritable ?? false }

    // MARK: Addresses

    @inline(__always)
    func pixels(_ slot: Int) -> UnsafeMutableRawPointer {
        chunks[slot / layout.slotsPerChunk].base + layout.slotOffsetInChunk(slot: slot)
    }

    @inline(__always)
    func record(_ slot: Int) -> UnsafeMutableRawPointer {
        Self.record(slot, in: chunks, layout)
    }

    @inline(__always)
    static func record(_ slot: Int, in chunks: [TableChunk], _ layout: TableLayout) -> UnsafeMutableRawPointer {
        chunks[slot / layout.slotsPerChunk].base + layout.recordOffsetInChunk(slot: slot)
    }

    /// The records of the mapped slots, for a closure the shared state calls: a copy of this
    /// value there would share its arrays and dictionary, and the next change to them here would
    /// copy them whole.
    struct Records {
        let chunks: [TableChunk]
        let layout: TableLayout
        let shared: SharedTableState?

        @inline(__always)
        func address(_ slot: Int) -> UnsafeMutableRawPointer {
            TableState.record(slot, in: chunks, layout)
        }

        /// Every committed entity and its slot, read from the records (for a rebuild of the index).
        func committedEntities() -> [(entity: TableKey, slot: Int)] {
            guard let shared else { return [] }
            let slots = min(chunks.count * layout.slotsPerChunk, layout.maximumCount)
            return (0..<slots).compactMap { slot in
                shared.cells.committedRecord(slot, at: address(slot)).map { ($0.record.entity, slot) }
            }
        }
    }

    var records: Records { Records(chunks: chunks, layout: layout, shared: shared) }

    @inline(__always)
    func chunk(of slot: Int) -> TableChunk {
        chunks[slot / layout.slotsPerChunk]
    }

    // MARK: Loading and growing

    /// Adds a mapped chunk. A chunk the table grew by gives the shared state its slots, free;
    /// chunks mapped while `loading` get their state from the records, in the build that follows.
    mutating func addChunk(_ chunk: TableChunk, slots: Int, loading: Bool = false) {
        chunks.append(chunk)
        local += repeatElement(SlotLocal(), count: slots)
        recencySlack = SharedRecency.slack(forAllocatedSlots: allocatedSlots)
        if !loading {
            let records = records
            shared?.grew(toChunks: chunks.count) { records.committedEntities() }
        }
    }

    /// Clears what a dead holder that had this process's holder index left: its hold bits and
    /// in-flight slots (their records too, when writable). Called once, after joining, with the
    /// writer lock held.
    mutating func takeOverRegistration() {
        guard let shared else { return }
        let writable = isWritable, records = records
        shared.cells.takeOver(holder: shared.holder, slots: allocatedSlots) { slot in
            if writable { IndexRecord.clear(at: records.address(slot)) }
        }
    }

    /// Maps the chunks other processes added to the table since this process last looked (the
    /// shared state says how many), so that their slots are found and used here too. Returns
    /// whether any were added; chunks the file does not yet wholly hold are left for later.
    @discardableResult
    mutating func adoptChunks() -> Bool {
        guard let shared, let file, shared.sharedChunks > chunks.count else { return false }
        let wanted = shared.sharedChunks
        // The process that grew the table allocated the chunk in the file before it said so.
        guard let size = try? Int(file.descriptor.status(path: file.path).st_size) else { return false }
        var added = false
        while chunks.count < wanted {
            let k = chunks.count
            guard layout.chunkOffset(k) + layout.chunkByteCount(k) <= size, let region = try? file.mapChunk(k) else { break }
            addChunk(TableChunk(region: region), slots: layout.slotCount(ofChunk: k), loading: true)
            added = true
        }
        shared.adopt(chunks: chunks.count)
        return added
    }

    /// Empties the table while other processes have it open (the writer lock held): every
    /// committed entry leaves the index and its slot is freed, so every process sees the entries
    /// gone; a slot any process holds keeps its pixels (its holders' bits keep writers off it).
    mutating func resetShared() {
        adoptChunks()
        guard let shared, isWritable else { return }
        for slot in 0..<allocatedSlots where shared.cells.word(slot).state == .committed {
            if let r = IndexRecord.read(at: record(slot), slot: slot) { shared.unindex(r.entity, slot: slot) }
            IndexRecord.clear(at: record(slot))
            shared.free(slot)
            if local[slot].pins > 0 { local[slot].orphaned = true } else { shared.pushFree(slot) }
        }
        hints.removeAll()
    }

    /// Drops the images that processes which stopped were writing (slots still in flight), for a
    /// process that is about to close the table alone: their records are cleared and their slots
    /// freed, so that the next opener finds nothing half-written. Returns how many.
    mutating func dropAbandonedWrites() -> Int {
        adoptChunks()
        guard let shared, isWritable else { return 0 }
        var dropped = 0
        for slot in 0..<allocatedSlots where shared.cells.word(slot).state == .inFlight && local[slot].pins == 0 {
            IndexRecord.clear(at: record(slot))
            shared.free(slot)
            dropped += 1
        }
        return dropped
    }

    /// Marks `slot`'s entry as one this process checks before serving it.
    mutating func requireCheck(_ slot: Int) {
        local[slot].mustCheck = true
    }

    // MARK: Lookup

    /// What this process knows of `entity` now: its hint when the slot's word still matches,
    /// otherwise what the shared index and the slot's record say (then hinted).
    @inline(__always)
    private mutating func find(_ entity: TableKey) -> Hint? {
        guard let cells else { return nil }
        if let hint = hints[entity] {
            // The word alone does not do: a damaged side file can set a slot's word back to an
            // older version, and the slot's next store then publishes exactly the word this
            // hint saw, over another image. Its record says whose pixels the slot holds.
            if cells.word(atCell: hint.cell) == hint.word,
                IndexRecord.names(entity, pixelChecksum: hint.pixelChecksum, at: UnsafeRawPointer(record(hint.slot)))
            {
                return hint
            }
            hints[entity] = nil
        }
        guard let shared else { return nil }
        var records = records
        var found = shared.find(entity, among: allocatedSlots, record: { UnsafeRawPointer(records.address($0)) })
        // Not found among the slots mapped here: it may be in a chunk another process added.
        if found == nil && adoptChunks() {
            records = self.records
            found = shared.find(entity, among: allocatedSlots, record: { UnsafeRawPointer(records.address($0)) })
        }
        guard let (slot, word, r) = found else { return nil }
        let hint = Hint(
            slot: slot, cell: cells.cellOffset(slot), word: word, source: r.source, pixelChecksum: r.pixelChecksum,
            verified: r.flags & IndexRecord.needsVerification == 0 && !local[slot].mustCheck)
        hints[entity] = hint
        return hint
    }

    @inline(__always)
    mutating func lookup(_ entity: TableKey, source: TableKey?) -> LookupResult {
        guard !isQuiescing, let hint = find(entity), source == nil || hint.source == source,
            pin(hint.slot, cell: hint.cell, expecting: hint.word)
        else {
            misses += 1
            return .miss
        }
        let slot = hint.slot
        if !hint.verified {
            return .needsVerification(
                slot, pixels(slot), chunk(of: slot), expected: hint.pixelChecksum, source: hint.source, generation: generation)
        }
        touch(cell: hint.cell)
        hits += 1
        return .hit(slot, pixels(slot), chunk(of: slot), source: hint.source, generation: generation)
    }

    /// The source `entity`'s entry was drawn from, when there is one. Not a use.
    mutating func source(of entity: TableKey) -> TableKey? {
        guard !isQuiescing else { return nil }
        return find(entity)?.source
    }

    /// Records the outcome of checking a slot pinned by a lookup. Returns whether it may be served.
    mutating func finishVerification(_ slot: Int, entity: TableKey, generation g: UInt64, passed: Bool) -> Bool {
        guard g == generation, let hint = find(entity), hint.slot == slot else {
            unpin(slot, generation: g)
            misses += 1
            return false
        }
        if passed {
            markChecked(slot, entity: entity, intact: true)
            touch(slot)
            hits += 1
            return true
        }
        markChecked(slot, entity: entity, intact: false)
        unpin(slot, generation: g)
        misses += 1
        return false
    }

    /// Records, in this process, the outcome of checking the pixels of `entity`'s entry in
    /// `slot`: an intact entry is served from now on; a damaged one never.
    mutating func markChecked(_ slot: Int, entity: TableKey, intact: Bool) {
        local[slot].mustCheck = !intact
        hints[entity]?.verified = intact
    }

    /// Writes the outcome of a check into the record of `entity`'s entry in `slot`, when it is
    /// still there (the writer lock held): its flag, or, for a damaged entry when `repair`, its
    /// removal. A reader copying the record meanwhile gets either version, or a copy whose
    /// checksum fails: a miss.
    mutating func persistCheck(_ slot: Int, entity: TableKey, intact: Bool, repair: Bool) {
        guard isWritable, !isQuiescing, let hint = find(entity), hint.slot == slot else { return }
        if !intact && repair {
            release(slot, entity: entity)
        } else if IndexRecord.rewriteFlags(intact ? 0 : IndexRecord.needsVerification, at: record(slot), slot: slot) {
            bytesWritten += IndexRecord.length
        }
    }

    private func touch(_ slot: Int) {
        if let cells { touch(cell: cells.cellOffset(slot)) }
    }

    @inline(__always)
    private func touch(cell: Int) {
        if let cells { SharedRecency.touch(cellAt: cell, in: cells, slack: recencySlack) }
    }

    // MARK: Pins

    /// Pins `slot` for this process: its first pin sets the process's hold bit, which holds only
    /// while the slot's word is still `word`. Returns false (nothing pinned) when it is not.
    @inline(__always)
    mutating func pin(_ slot: Int, cell: Int, expecting word: SlotWord) -> Bool {
        if local[slot].pins == 0 {
            guard cells?.hold(atCell: cell, holder: holder, expecting: word) == true else { return false }
            heldSlots += 1
        }
        local[slot].pins += 1
        return true
    }

    /// Lets go of a pin taken in generation `g`; pins of earlier generations no longer count.
    @inline(__always)
    mutating func unpin(_ slot: Int, generation g: UInt64) {
        guard g == generation, slot < local.count, local[slot].pins > 0 else { return }
        local[slot].pins -= 1
        guard local[slot].pins == 0 else { return }
        heldSlots -= 1
        if let cells { cells.release(atCell: cells.cellOffset(slot), holder: holder) }
        if local[slot].orphaned {
            local[slot].orphaned = false
            if isWritable { released.append(slot) }
        }
    }

    // MARK: Writing

    /// Finds a slot for a new image: a free one, else room to grow, else the least recently used
    /// entry that no process holds. The slot is claimed in the shared state and pinned for the writer.
    mutating func reserve() -> Reservation {
        guard let file else { return .closed }
        guard file.isWritable else { return .readOnly }
        guard !isQuiescing else { return .busy }
        guard let shared else { return .closed }  // its rebuild by a reset failed
        adoptChunks()  // another process may have grown the table
        for slot in released { shared.pushFree(slot) }
        released.removeAll()
        // A slot on the free list that is not free after all (held, or named by a damaged list)
        // is skipped; the eviction scan finds it once it is.
        for _ in 0..<allocatedSlots {
            guard let slot = shared.popFree() else { break }
            if local[slot].pins == 0, shared.cells.word(slot).state == .free, let reservation = reserved(slot) { return reservation }
        }
        if chunks.count < layout.maximumChunks {
            return .needsGrowth(chunk: chunks.count, file: file, generation: generation)
        }
        // Free slots are the oldest of all; then the least recently used entry nobody holds.
        var refused: Set<Int> = []
        while let victim = shared.victim(isUsable: { slot, word in
            slot < local.count && local[slot].pins == 0 && !refused.contains(slot) && word.state != nil
        }) {
            let word = shared.cells.word(victim)
            let entity = word.state == .committed ? IndexRecord.read(at: record(victim), slot: victim)?.entity : nil
            guard let reservation = reserved(victim) else {
                refused.insert(victim)
                continue
            }
            if word.state == .committed {
                if let entity {
                    shared.unindex(entity, slot: victim)
                    hints[entity] = nil
                }
                evictions += 1
            }
            return reservation
        }
        return .full
    }

    /// The reservation of `slot`, claimed in the shared state first; nil when another holder
    /// holds it there.
    private mutating func reserved(_ slot: Int) -> Reservation? {
        guard let shared, let word = shared.claim(slot), pin(slot, cell: shared.cells.cellOffset(slot), expecting: word) else { return nil }
        if isWritable { IndexRecord.clear(at: record(slot)) }
        local[slot].mustCheck = false
        writersInFlight += 1
        return .slot(slot, pixels(slot), record: record(slot), chunk(of: slot), generation: generation)
    }

    /// Makes a fully written slot visible: writes its record (checksum last) and retires any older
    /// entry of the same entity. The writer's pin passes to the image it returns. Returns false
    /// when the table closed or reset meanwhile: the slot then stays out of the index.
    mutating func commit(slot: Int, generation g: UInt64, entity: TableKey, source: TableKey, label: String, pixelChecksum: UInt64) -> Bool
    {
        writersInFlight -= 1
        guard g == generation, !isQuiescing, let shared else {
            if g == generation {
                // Closing waits for this writer, so the file is still mapped: no in-flight record may stay.
                if isWritable { IndexRecord.clear(at: record(slot)) }
                shared?.free(slot)
                local[slot].orphaned = true
            }
            return false
        }
        // Chunks another process added while this one drew: a rebuild of the index must see their entries.
        adoptChunks()
        if let old = find(entity), old.slot != slot { release(old.slot, entity: entity) }
        let sequence = shared.nextSequence
        let r = IndexRecord(entity: entity, source: source, pixelChecksum: pixelChecksum, sequence: sequence, label: label)
        r.write(to: record(slot), slot: slot)
        let records = records
        let word = shared.commit(slot, entity: entity, sequence: sequence) { records.committedEntities() }
        hints[entity] = Hint(
            slot: slot, cell: shared.cells.cellOffset(slot), word: word, source: source, pixelChecksum: pixelChecksum, verified: true)
        touch(slot)
        inserts += 1
        // The pixels, the in-flight record written before them, and the final record.
        bytesWritten += pixelByteCount + 2 * IndexRecord.length
        return true
    }

    /// Gives back a reserved slot whose drawing failed.
    mutating func abandon(slot: Int, generation g: UInt64) {
        writersInFlight -= 1
        guard g == generation else { return }
        if isWritable { IndexRecord.clear(at: record(slot)) }
        shared?.free(slot)
        local[slot].orphaned = true  // back on the free list when the writer's pin goes, now
        unpin(slot, generation: g)
    }

    /// Removes the entry of `entity`. Returns whether there was one.
    mutating func remove(_ entity: TableKey) -> Bool {
        guard isWritable, !isQuiescing, let hint = find(entity) else { return false }
        release(hint.slot, entity: entity)
        return true
    }

    /// Removes the committed entry of `entity` in `slot` from the index and clears its record;
    /// the slot goes on the free list now, or when this process's last holder of it lets go.
    private mutating func release(_ slot: Int, entity: TableKey) {
        guard let shared else { return }
        hints[entity] = nil
        shared.unindex(entity, slot: slot)
        if isWritable {
            IndexRecord.clear(at: record(slot))
            bytesWritten += IndexRecord.length
        }
        shared.free(slot)
        if local[slot].pins > 0 {
            local[slot].orphaned = true
        } else if isWritable {
            shared.pushFree(slot)  // every caller holds the writer lock
        }
    }

    // MARK: Saving, closing, resetting

    /// Writes every entry's recency stamp into its record (where it changed), so that recency
    /// survives a restart. O(allocated slots).
    mutating func saveRecency() {
        guard isWritable, let shared else { return }
        for slot in 0..<allocatedSlots where shared.cells.word(slot).state == .committed {
            let stamp = shared.stamp(slot)
            if IndexRecord.lastAccess(at: record(slot)) != stamp { IndexRecord.setLastAccess(stamp, at: record(slot)) }
        }
    }

    /// Detaches every held slot from the file (see ``MappedRegion/detach(_:count:)``). Returns
    /// the chunks whose detaching failed: they must keep the file open.
    mutating func detachHeldSlots() -> [TableChunk] {
        var failed: [TableChunk] = []
        guard heldSlots > 0 else { return failed }
        for slot in 0..<local.count where local[slot].pins > 0 {
            let chunk = chunk(of: slot)
            if !chunk.region.detach(pixels(slot), count: layout.slotLength) { failed.append(chunk) }
        }
        return failed
    }

    /// Forgets every entry and chunk, and starts a new generation: images handed out before no
    /// longer belong to the index.
    mutating func clearAll() {
        shared?.unregister()
        shared = nil
        generation += 1
        chunks.removeAll()
        hints.removeAll()
        local.removeAll()
        released.removeAll()
        heldSlots = 0
    }

    /// The committed entry in `slot`, when there is one.
    func entry(in slot: Int) -> (entry: Entry, label: String)? {
        guard let shared, slot < allocatedSlots, let (_, r) = shared.cells.committedRecord(slot, at: record(slot)) else { return nil }
        return (Entry(entity: r.entity, source: r.source, pixelChecksum: r.pixelChecksum, sequence: r.sequence), r.label)
    }

    /// Pins the committed entry of `entity` in `slot` (for a check of its pixels); nil when the
    /// slot holds something else now.
    mutating func pinEntry(_ entity: TableKey, in slot: Int) -> (pixels: UnsafeMutableRawPointer, checksum: UInt64, generation: UInt64)? {
        guard !isQuiescing, let hint = find(entity), hint.slot == slot, pin(slot, cell: hint.cell, expecting: hint.word) else { return nil }
        return (pixels(slot), hint.pixelChecksum, generation)
    }

    /// Committed entries with their labels, most recently used first.
    func listEntries() -> [(slot: Int, entry: Entry, label: String)] {
        guard let shared else { return [] }
        let slots = allocatedSlots
        return shared.orderedByRecency { slot, word in slot < slots && word.state == .committed }
            .compactMap { slot in entry(in: slot).map { (slot, $0.entry, $0.label) } }
    }
}
