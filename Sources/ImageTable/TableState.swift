/// Everything about an open table that changes, in one value, so that one lock guards all of it
/// (``ImageTable`` keeps it in a `LockedBox`). Methods are called with the lock held and never
/// wait on the disk: growing, flushing and checksumming happen outside the lock.
struct TableState {
    /// A committed entry.
    struct Entry {
        var entity: TableKey
        var source: TableKey
        var pixelChecksum: UInt64
        var sequence: UInt64
        /// False until the pixels have been checked, for entries that may be torn (see ``TableOpenReport/recoveredFromCrash``).
        var verified: Bool
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
    /// The side file every process will look entities up in, kept in step with every change
    /// (nil when read-only, or when it could not be made: see ``SharedTableState``).
    var shared: SharedTableState?
    /// Bumped by every close and reset: images of older generations no longer belong to the index.
    var generation: UInt64 = 0
    /// Set while closing or resetting: no lookups, no new writes.
    var isQuiescing = false
    /// The table's layout.
    let layout: TableLayout
    let pixelByteCount: Int

    private(set) var chunks: [TableChunk] = []
    private var slotOf: [TableKey: Int] = [:]
    private(set) var entries: [Entry?] = []
    private(set) var labels: [String] = []
    private var pins: [Int32] = []
    /// Slots whose entry went while an image of them was held: freed on the last release.
    private var orphaned: [Bool] = []
    private var lastAccess: [UInt64] = []
    private var accessDirty: [Bool] = []
    private var dirtySlots: [Int] = []
    private var recency = RecencyList()
    private var freeSlots: [Int] = []
    private var nextSequence: UInt64 = 1
    private var accessClock: UInt64 = 1
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
    }

    var count: Int { slotOf.count }
    var allocatedSlots: Int { entries.count }
    var isWritable: Bool { file?.isWritable ?? false }

    // MARK: Addresses

    @inline(__always)
    func pixels(_ slot: Int) -> UnsafeMutableRawPointer {
        chunks[slot / layout.slotsPerChunk].base + layout.slotOffsetInChunk(slot: slot)
    }

    @inline(__always)
    func record(_ slot: Int) -> UnsafeMutableRawPointer {
        chunks[slot / layout.slotsPerChunk].base + layout.recordOffsetInChunk(slot: slot)
    }

    @inline(__always)
    func chunk(of slot: Int) -> TableChunk {
        chunks[slot / layout.slotsPerChunk]
    }

    // MARK: Loading

    /// Adds a mapped chunk; its slots become free (unless `loading`: then ``finishLoading()`` frees
    /// the ones no record claims).
    mutating func addChunk(_ chunk: TableChunk, slots: Int, loading: Bool = false) {
        let first = allocatedSlots
        chunks.append(chunk)
        let total = first + slots
        entries += repeatElement(nil, count: slots)
        labels += repeatElement("", count: slots)
        pins += repeatElement(0, count: slots)
        orphaned += repeatElement(false, count: slots)
        lastAccess += repeatElement(0, count: slots)
        accessDirty += repeatElement(false, count: slots)
        recency.grow(to: total)
        if !loading {
            for slot in stride(from: total - 1, through: first, by: -1) { freeSlots.append(slot) }
            shared?.grew(toChunks: chunks.count) { indexedEntries() }
        }
    }

    /// Takes the entry read from `slot`'s record at open. Returns false when an entry of the same
    /// entity with a newer commit was loaded already (a crash between a replacement's commit and
    /// the old slot's release): the caller then clears this record. An older one is released here.
    mutating func load(_ r: IndexRecord, slot: Int, verified: Bool) -> Bool {
        if let other = slotOf[r.entity], let existing = entries[other] {
            if existing.sequence > r.sequence { return false }
            release(other, free: false)
        }
        entries[slot] = Entry(entity: r.entity, source: r.source, pixelChecksum: r.pixelChecksum, sequence: r.sequence, verified: verified)
        labels[slot] = r.label
        slotOf[r.entity] = slot
        nextSequence = max(nextSequence, r.sequence + 1)
        return true
    }

    /// Frees every slot that no loaded entry holds, lowest first.
    mutating func finishLoading() {
        freeSlots = stride(from: allocatedSlots - 1, through: 0, by: -1).filter { entries[$0] == nil }
    }

    /// Orders the loaded entries by their saved recency. Saved values only order entries, so
    /// whatever a file holds, the clock restarts at the number of entries.
    mutating func restoreRecency(_ saved: [(access: UInt64, slot: Int)]) {
        var clock: UInt64 = 0
        for (_, slot) in saved.sorted(by: { $0.access < $1.access || ($0.access == $1.access && $0.slot < $1.slot) }) where entries[slot] != nil {
            clock += 1
            recency.touch(slot)
            lastAccess[slot] = clock
        }
        accessClock = clock + 1
    }

    // MARK: Lookup

    mutating func lookup(_ entity: TableKey, source: TableKey?) -> LookupResult {
        guard !isQuiescing, let slot = slotOf[entity], let entry = entries[slot] else {
            misses += 1
            return .miss
        }
        if let source, entry.source != source {
            misses += 1
            return .miss
        }
        pin(slot)
        if !entry.verified {
            return .needsVerification(slot, pixels(slot), chunk(of: slot), expected: entry.pixelChecksum, source: entry.source, generation: generation)
        }
        touch(slot)
        hits += 1
        return .hit(slot, pixels(slot), chunk(of: slot), source: entry.source, generation: generation)
    }

    func entry(for entity: TableKey) -> Entry? {
        guard let slot = slotOf[entity] else { return nil }
        return entries[slot]
    }

    /// Records the outcome of checking a slot pinned by a lookup. Returns whether it may be served.
    mutating func finishVerification(_ slot: Int, entity: TableKey, generation g: UInt64, passed: Bool) -> Bool {
        guard g == generation, let entry = entries[slot], entry.entity == entity else {
            unpin(slot, generation: g)
            misses += 1
            return false
        }
        if passed {
            markVerified(slot)
            touch(slot)
            hits += 1
            return true
        }
        discard(slot)
        unpin(slot, generation: g)
        misses += 1
        return false
    }

    /// Marks an entry checked, in the index and, when writable, in its record.
    mutating func markVerified(_ slot: Int) {
        guard var entry = entries[slot], !entry.verified else { return }
        entry.verified = true
        entries[slot] = entry
        rewriteRecord(slot, flags: 0)
    }

    /// Marks an entry as needing a check before it is served, persistently when writable.
    mutating func markUnverified(_ slot: Int) {
        guard var entry = entries[slot] else { return }
        entry.verified = false
        entries[slot] = entry
        rewriteRecord(slot, flags: IndexRecord.needsVerification)
    }

    private mutating func rewriteRecord(_ slot: Int, flags: UInt32) {
        guard isWritable, let entry = entries[slot] else { return }
        IndexRecord(entity: entry.entity, source: entry.source, pixelChecksum: entry.pixelChecksum, sequence: entry.sequence, flags: flags, label: labels[slot])
            .write(to: record(slot), slot: slot)
        IndexRecord.setLastAccess(lastAccess[slot], at: record(slot))
        bytesWritten += IndexRecord.length
    }

    /// Drops a damaged entry (its record too, when writable).
    mutating func discard(_ slot: Int) {
        release(slot)
    }

    private mutating func touch(_ slot: Int) {
        shared?.touch(slot)
        recency.touch(slot)
        lastAccess[slot] = accessClock
        accessClock += 1
        if !accessDirty[slot] {
            accessDirty[slot] = true
            dirtySlots.append(slot)
        }
    }

    // MARK: Pins

    mutating func pin(_ slot: Int) {
        if pins[slot] == 0 {
            heldSlots += 1
            shared?.hold(slot)
        }
        pins[slot] += 1
    }

    /// Lets go of a pin taken in generation `g`; pins of earlier generations no longer count.
    mutating func unpin(_ slot: Int, generation g: UInt64) {
        guard g == generation, slot < pins.count else { return }
        pins[slot] -= 1
        if pins[slot] == 0 {
            heldSlots -= 1
            shared?.release(slot)
            if orphaned[slot] {
                orphaned[slot] = false
                freeSlots.append(slot)
            }
        }
    }

    // MARK: Writing

    /// Finds a slot for a new image: a free one, else room to grow, else the least recently used
    /// entry that nobody holds. The slot is pinned for the writer.
    mutating func reserve() -> Reservation {
        guard let file else { return .closed }
        guard file.isWritable else { return .readOnly }
        guard !isQuiescing else { return .busy }
        while let slot = freeSlots.popLast() {
            if let reservation = reserved(slot) { return reservation }
        }
        if allocatedSlots < layout.maximumCount {
            return .needsGrowth(chunk: chunks.count, file: file, generation: generation)
        }
        guard let victim = recency.leastRecent(where: { pins[$0] == 0 }) else { return .full }
        release(victim, free: false)
        evictions += 1
        return reserved(victim) ?? .full
    }

    /// The reservation of the unheld `slot`, claimed in the shared state first; nil when another
    /// holder holds it there (it is then left out of the free slots until a reset).
    private mutating func reserved(_ slot: Int) -> Reservation? {
        if let shared, !shared.claim(slot) { return nil }
        pin(slot)
        writersInFlight += 1
        return .slot(slot, pixels(slot), record: record(slot), chunk(of: slot), generation: generation)
    }

    /// Makes a fully written slot visible: writes its record (checksum last) and retires any older
    /// entry of the same entity. The writer's pin passes to the image it returns. Returns false
    /// when the table closed or reset meanwhile: the slot then stays out of the index.
    mutating func commit(slot: Int, generation g: UInt64, entity: TableKey, source: TableKey, label: String, pixelChecksum: UInt64) -> Bool {
        writersInFlight -= 1
        guard g == generation, !isQuiescing else {
            if g == generation {
                // Closing waits for this writer, so the file is still mapped: no in-flight record may stay.
                if isWritable { IndexRecord.clear(at: record(slot)) }
                shared?.abandon(slot)
                orphaned[slot] = true
            }
            return false
        }
        if let old = slotOf[entity] { release(old) }
        let sequence = nextSequence
        nextSequence += 1
        let r = IndexRecord(entity: entity, source: source, pixelChecksum: pixelChecksum, sequence: sequence, label: label)
        r.write(to: record(slot), slot: slot)
        entries[slot] = Entry(entity: entity, source: source, pixelChecksum: pixelChecksum, sequence: sequence, verified: true)
        labels[slot] = label
        slotOf[entity] = slot
        shared?.commit(slot, entity: entity, sequence: sequence) { indexedEntries() }
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
        shared?.abandon(slot)
        pins[slot] -= 1
        if pins[slot] == 0 {
            heldSlots -= 1
            shared?.release(slot)
        }
        freeSlots.append(slot)
    }

    /// Removes the entry of `entity`. Returns whether there was one.
    mutating func remove(_ entity: TableKey) -> Bool {
        guard isWritable, !isQuiescing, let slot = slotOf[entity] else { return false }
        release(slot)
        return true
    }

    /// Removes the committed entry in `slot` from the index; the slot becomes free now (unless
    /// the caller takes it: `free` false), or when its last holder lets go.
    private mutating func release(_ slot: Int, free: Bool = true) {
        guard let entry = entries[slot] else { return }
        entries[slot] = nil
        labels[slot] = ""
        if slotOf[entry.entity] == slot { slotOf[entry.entity] = nil }
        shared?.retire(slot, entity: entry.entity)
        recency.remove(slot)
        if isWritable {
            IndexRecord.clear(at: record(slot))
            bytesWritten += IndexRecord.length
        }
        if pins[slot] > 0 {
            orphaned[slot] = true
        } else if free {
            freeSlots.append(slot)
        }
    }

    // MARK: Saving, closing, resetting

    /// Writes the recency of every entry used since the last save into its record. O(entries used).
    mutating func saveRecency() {
        defer { dirtySlots.removeAll(keepingCapacity: true) }
        for slot in dirtySlots {
            accessDirty[slot] = false
            if isWritable, entries[slot] != nil { IndexRecord.setLastAccess(lastAccess[slot], at: record(slot)) }
        }
    }

    /// Detaches every held slot from the file (see ``MappedRegion/detach(_:count:)``). Returns
    /// the chunks whose detaching failed: they must keep the file open.
    mutating func detachHeldSlots() -> [TableChunk] {
        var failed: [TableChunk] = []
        guard heldSlots > 0 else { return failed }
        for slot in 0..<pins.count where pins[slot] > 0 {
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
        slotOf.removeAll()
        entries.removeAll()
        labels.removeAll()
        pins.removeAll()
        orphaned.removeAll()
        lastAccess.removeAll()
        accessDirty.removeAll()
        dirtySlots.removeAll()
        recency = RecencyList()
        freeSlots.removeAll()
        heldSlots = 0
    }

    /// Every committed entity and its slot, for a rebuild of the shared index.
    func indexedEntries() -> [(entity: TableKey, slot: Int)] {
        slotOf.map { ($0.key, $0.value) }
    }

    /// The committed entries as the side file is built from them.
    func sharedEntries() -> [SharedTableState.Entry] {
        slotOf.compactMap { entity, slot in
            entries[slot].map { SharedTableState.Entry(slot: slot, entity: entity, sequence: $0.sequence, lastAccess: lastAccess[slot]) }
        }
    }

    /// Committed entries with their labels, most recently used first.
    func listEntries() -> [(slot: Int, entry: Entry, label: String)] {
        recency.orderedSlots.compactMap { slot in entries[slot].map { (slot, $0, labels[slot]) } }
    }
}
