import FICCore
import Glibc
import SystemPackage
import Logging

/// One table file as it is open in this process: its mappings and the in-memory index.
///
/// A store is replaced, never emptied in place, when the table is reset or rebuilt; the old one
/// stays alive (and mapped) while any image handed out from it is held. Every mutable field is
/// guarded by `lock`, which the owning ``ImageTable`` shares.
final class TableStore: @unchecked Sendable {
    struct Entry {
        var entity: TableKey
        var source: TableKey
        var pixelChecksum: UInt64
        /// False after an unclean shutdown until the pixels have been checked once.
        var verified: Bool
    }

    enum Reservation {
        case slot(Int)
        case needsGrowth(Int)
        case full
        case closed
    }

    let lock: Lock
    let path: String
    let fd: Int32
    let header: TableHeader
    let index: MappedRegion
    let logger: Logger

    // Every mutable field is guarded by `lock`, so the runtime's exclusivity checks are redundant
    // on the lookup path and are turned off for these fields.
    @exclusivity(unchecked) private(set) var chunks: [MappedRegion] = []
    @exclusivity(unchecked) private(set) var allocatedSlots = 0
    @exclusivity(unchecked) private var slotOf: [TableKey: Int] = [:]
    @exclusivity(unchecked) private var entries: [Entry?]
    /// Entity labels by slot, apart from `entries` so that lookups copy no strings.
    @exclusivity(unchecked) private var labels: [String]
    @exclusivity(unchecked) private var pins: [Int32]
    /// Slots whose entry was replaced or removed while an image of them was held: freed on the last release.
    @exclusivity(unchecked) private var orphaned: [Bool]
    @exclusivity(unchecked) private var recency: RecencyList
    @exclusivity(unchecked) private var freeSlots: [Int] = []
    @exclusivity(unchecked) private var nextSequence: UInt64 = 1
    @exclusivity(unchecked) private var accessClock: UInt64 = 1
    @exclusivity(unchecked) private(set) var isClosed = false
    @exclusivity(unchecked) private var isRetired = false
    @exclusivity(unchecked) private var didClose = false

    @exclusivity(unchecked) var hits = 0
    @exclusivity(unchecked) var misses = 0
    @exclusivity(unchecked) var evictions = 0
    @exclusivity(unchecked) var inserts = 0
    @exclusivity(unchecked) var bytesWritten = 0

    /// Takes ownership of `fd` and the mappings made by ``TableFile``.
    init(lock: Lock, path: String, fd: Int32, header: TableHeader, index: MappedRegion, chunks: [MappedRegion], wasOpen: Bool, logger: Logger) {
        self.lock = lock
        self.path = path
        self.fd = fd
        self.header = header
        self.logger = logger
        self.index = index
        self.chunks = chunks
        let n = header.maximumCount
        entries = Array(repeating: nil, count: n)
        labels = Array(repeating: "", count: n)
        pins = Array(repeating: 0, count: n)
        orphaned = Array(repeating: false, count: n)
        recency = RecencyList(capacity: n)
        allocatedSlots = min(n, chunks.count * header.slotsPerChunk)
        loadIndex(verified: !wasOpen)
    }

    deinit {
        close()
        Glibc.close(fd)
    }

    // MARK: Index

    @inline(__always)
    private func recordPointer(_ slot: Int) -> UnsafeMutableRawPointer {
        index.base + slot * IndexRecord.length
    }

    /// The pixels of `slot`. Caller holds the lock (the chunk list grows under it).
    @inline(__always)
    func pixels(_ slot: Int) -> UnsafeMutableRawPointer {
        let spc = header.slotsPerChunk
        return chunks[slot / spc].base + (slot % spc) * header.slotLength
    }

    private func loadIndex(verified: Bool) {
        var byAccess: [(UInt64, Int)] = []
        var sequences: [Int: UInt64] = [:]
        var dropped = 0
        for slot in 0..<header.maximumCount {
            let p = recordPointer(slot)
            guard let record = IndexRecord.read(at: p, slot: slot) else { continue }
            guard slot < allocatedSlots else {
                IndexRecord.clear(at: p)
                dropped += 1
                continue
            }
            if let other = slotOf[record.entity] {
                // Two records for one entity: a crash between committing a replacement and
                // releasing the old slot. The newer commit wins.
                if sequences[other, default: 0] > record.sequence {
                    IndexRecord.clear(at: p)
                    continue
                }
                IndexRecord.clear(at: recordPointer(other))
                entries[other] = nil
            }
            slotOf[record.entity] = slot
            sequences[slot] = record.sequence
            entries[slot] = Entry(entity: record.entity, source: record.source, pixelChecksum: record.pixelChecksum, verified: verified)
            labels[slot] = record.label
            nextSequence = max(nextSequence, record.sequence + 1)
            let access = IndexRecord.lastAccess(at: p)
            accessClock = max(accessClock, access + 1)
            byAccess.append((access, slot))
        }
        for (_, slot) in byAccess.sorted(by: { $0.0 < $1.0 }) where entries[slot] != nil {
            recency.touch(slot)
        }
        for slot in stride(from: allocatedSlots - 1, through: 0, by: -1) where entries[slot] == nil {
            freeSlots.append(slot)
        }
        if dropped > 0 {
            logger.warning("table lost \(dropped) entries whose slots are past the end of the file", metadata: ["path": "\(path)"])
        }
    }

    var count: Int { slotOf.count }
    var heldSlots: Int { pins.reduce(0) { $0 + ($1 > 0 ? 1 : 0) } }

    // MARK: Lookup (caller holds the lock)

    enum LookupResult {
        case hit(Int, UnsafeMutableRawPointer, source: TableKey)
        case needsVerification(Int, UnsafeMutableRawPointer, UInt64, source: TableKey)
        case miss
    }

    func lookup(_ entity: TableKey, source: TableKey?) -> LookupResult {
        guard !isClosed, let slot = slotOf[entity], let entry = entries[slot] else {
            misses += 1
            return .miss
        }
        if let source, entry.source != source {
            misses += 1
            return .miss
        }
        pins[slot] += 1
        if !entry.verified { return .needsVerification(slot, pixels(slot), entry.pixelChecksum, source: entry.source) }
        touch(slot)
        hits += 1
        return .hit(slot, pixels(slot), source: entry.source)
    }

    func entryFor(_ entity: TableKey) -> Entry? {
        guard let slot = slotOf[entity] else { return nil }
        return entries[slot]
    }

    private func touch(_ slot: Int) {
        recency.touch(slot)
        IndexRecord.setLastAccess(accessClock, at: recordPointer(slot))
        accessClock += 1
    }

    /// Records the outcome of verifying a slot pinned by `lookup`.
    func finishVerification(_ slot: Int, entity: TableKey, passed: Bool) -> Bool {
        guard let entry = entries[slot], entry.entity == entity else {
            unpin(slot)
            misses += 1
            return false
        }
        if passed {
            entries[slot]!.verified = true
            touch(slot)
            hits += 1
            return true
        }
        logger.error("pixel checksum mismatch; entry discarded", metadata: ["path": "\(path)", "entity": "\(labels[slot])", "slot": "\(slot)"])
        release(slot)
        unpin(slot)
        misses += 1
        return false
    }

    func unpin(_ slot: Int) {
        pins[slot] -= 1
        if pins[slot] == 0, orphaned[slot] {
            orphaned[slot] = false
            freeSlots.append(slot)
        }
    }

    // MARK: Writing (caller holds the lock)

    /// Finds a slot for a new image: a free one, else room to grow, else the least recently used
    /// entry that nobody holds. The returned slot is pinned for the writer.
    func reserve() -> Reservation {
        if isClosed { return .closed }
        if let slot = freeSlots.popLast() {
            pins[slot] += 1
            return .slot(slot)
        }
        if allocatedSlots < header.maximumCount { return .needsGrowth(allocatedSlots) }
        guard let victim = recency.leastRecent(where: { pins[$0] == 0 }) else { return .full }
        release(victim)
        _ = freeSlots.popLast()
        evictions += 1
        pins[victim] += 1
        return .slot(victim)
    }

    /// Adds a mapped chunk of new slots (grown outside the lock) to the free list.
    func addChunk(_ region: MappedRegion, slots: Int) {
        chunks.append(region)
        let first = allocatedSlots
        allocatedSlots += slots
        for slot in stride(from: allocatedSlots - 1, through: first, by: -1) { freeSlots.append(slot) }
    }

    /// Removes the committed entry in `slot` from the index; the slot becomes free now, or when its
    /// last holder lets go.
    private func release(_ slot: Int) {
        guard let entry = entries[slot] else { return }
        entries[slot] = nil
        if slotOf[entry.entity] == slot { slotOf[entry.entity] = nil }
        recency.remove(slot)
        IndexRecord.clear(at: recordPointer(slot))
        bytesWritten += IndexRecord.length
        if pins[slot] > 0 {
            orphaned[slot] = true
        } else {
            freeSlots.append(slot)
        }
    }

    /// Makes a fully written slot visible: writes its record (checksum last) and retires any older
    /// entry of the same entity. The writer's pin passes to the returned image.
    func commit(slot: Int, entity: TableKey, source: TableKey, label: String, pixelChecksum: UInt64) -> Bool {
        if isClosed { return false }
        if let old = slotOf[entity] { release(old) }
        let record = IndexRecord(entity: entity, source: source, pixelChecksum: pixelChecksum, sequence: nextSequence, label: label)
        nextSequence += 1
        record.write(to: recordPointer(slot), slot: slot)
        entries[slot] = Entry(entity: entity, source: source, pixelChecksum: pixelChecksum, verified: true)
        labels[slot] = label
        slotOf[entity] = slot
        touch(slot)
        inserts += 1
        bytesWritten += header.bytesPerRow * header.pixelHeight + IndexRecord.length
        return true
    }

    /// Gives back a reserved slot whose drawing failed.
    func abandon(slot: Int) {
        // A reserved slot has no entry and is not orphaned: the writer's pin is its only one.
        pins[slot] -= 1
        freeSlots.append(slot)
    }

    @discardableResult
    func remove(_ entity: TableKey) -> Bool {
        guard let slot = slotOf[entity] else { return false }
        release(slot)
        return true
    }

    /// Committed entries with their labels, most recently used first.
    func listEntries() -> [(slot: Int, entry: Entry, label: String)] {
        recency.orderedSlots.compactMap { slot in entries[slot].map { (slot, $0, labels[slot]) } }
    }

    func pin(_ slot: Int) { pins[slot] += 1 }

    func entry(atSlot slot: Int) -> Entry? { entries[slot] }

    func discard(slot: Int, entity: TableKey) {
        guard let e = entries[slot], e.entity == entity else { return }
        release(slot)
    }

    func markVerified(_ slot: Int) {
        entries[slot]?.verified = true
    }

    /// Marks the slot of a writer whose commit was refused (closed or reset meanwhile): it is
    /// freed when the image the writer returns is let go.
    func orphanWriterSlot(_ slot: Int) {
        orphaned[slot] = true
    }

    // MARK: Closing

    /// Stops all changes: commits fail and lookups miss from now on. Caller holds the lock.
    func markClosing() {
        isClosed = true
    }

    /// Replaced by a new file (reset): no more changes, nothing to flush; the mapping lives on
    /// while images from it are held. Caller holds the lock.
    func retire() {
        isClosed = true
        isRetired = true
        flock(fd, LOCK_UN)
    }

    /// The mapped regions now (chunks and index). Takes the lock.
    func regionsSnapshot() -> [MappedRegion] {
        lock.withLock { chunks + [index] }
    }

    /// Writes dirty pages and the file's metadata to disk.
    func synchronize() throws {
        let regions = regionsSnapshot()
        for region in regions {
            let e = region.synchronize(wait: true)
            if e != 0 { throw ImageCacheError.system("msync", path: path, errno: e) }
        }
        try SystemFile.sync(fd, path: path)
    }

    /// Flushes everything and marks the file as closed cleanly. Call after ``markClosing()``,
    /// with no growth in progress.
    func close() {
        if didClose || isRetired { return }
        didClose = true
        do {
            try synchronize()
            let page = header.encode(open: false)
            try page.withUnsafeBytes { try SystemFile.pwrite(fd, $0, offset: 0, path: path) }
            try SystemFile.sync(fd, path: path)
        } catch {
            logger.error("closing the table failed; it will be verified when next opened: \(error)", metadata: ["path": "\(path)"])
        }
        // Held images may keep the mapping (and so this descriptor) alive; the file is free to
        // be opened again now.
        flock(fd, LOCK_UN)
    }
}
