/// Builds a side file's whole contents from the table's committed records: everything in it is
/// derived from them, so an opener that finds itself alone rebuilds it instead of trusting it
/// (the same scan of the allocated slots an open does anyway).
enum SharedStateBuilder {
    /// A committed record of the table, as the builder needs it.
    struct Entry {
        /// The slot holding it.
        var slot: Int
        /// The entity it holds.
        var entity: TableKey
        /// The version its slot word gets (at most ``SlotWord/maximumVersion``).
        var version: UInt64
        /// The record's commit sequence.
        var sequence: UInt64
        /// The record's saved recency (any value: it only orders entries).
        var lastAccess: UInt64
    }

    /// What a build made.
    struct Summary: Equatable {
        /// Slots with cells.
        var allocatedSlots: Int
        /// Buckets of the index (in region 0).
        var buckets: Int
        /// The clock: the largest recency stamp given (the number of entries).
        var clock: UInt64
        /// The commit sequence of the next store.
        var nextCommitSequence: UInt64
        /// Slots on the free list.
        var freeSlots: Int
        /// Committed slots the index could not take within ``IndexBucket/maximumProbes`` of their
        /// home bucket (rare; a lookup of their entities misses until they are stored again).
        var unindexed: [Int]
    }

    /// Rebuilds the side file mapped at `bytes` for a table laid out as `layout`, bound as
    /// `binding`, with `allocatedChunks` chunks holding `entries` (one per entity and per slot):
    ///
    /// - the header, its state ready and checksum written last, with release ordering, so that a
    ///   build cut short leaves a header that does not validate;
    /// - the control fields: allocated chunks, the index descriptor (region 0, generation 0), the
    ///   clock, the next commit sequence (one past the largest), a reset epoch, eviction hand and
    ///   tombstone count of 0, the entry count, and the free-list head;
    /// - the cells: committed words for the entries, free words for the other slots, linked
    ///   lowest first into the free list; recency stamps 1…n in the order of the records' saved
    ///   recency (ties: lower slot first), so that whatever a record holds the clock restarts at
    ///   n; hold masks zero;
    /// - the holder table, zeroed;
    /// - the index, in region 0, of the smallest power of two of buckets ≥ 2 · allocated slots
    ///   (at least 2). Entries go in in the order of their home buckets, so that within a run of
    ///   buckets they sit in the order of their homes and none is pushed further than it must be.
    ///
    /// Region 1 and the cells of unallocated chunks are not touched: they are holes. A rebuild
    /// starts every counter afresh, because no other process has the file open.
    ///
    /// - Throws: ``ImageCacheError`` with code `.invalidArgument` when the mapping is too short
    ///   or misaligned, the chunk count or nonce is out of range, or an entry names a slot out of
    ///   range, a slot or entity twice, or a version or sequence out of range. Nothing is written then.
    @discardableResult
    static func build(
        into bytes: UnsafeMutableRawBufferPointer, layout: SharedStateLayout, binding: SharedStateHeader.Binding,
        nonce: UInt64, allocatedChunks: Int, entries: [Entry]
    ) throws(ImageCacheError) -> Summary {
        func invalid(_ why: String) -> ImageCacheError { ImageCacheError(.invalidArgument, "shared state build: \(why)") }
        guard (0...layout.maximumChunks).contains(allocatedChunks) else {
            throw invalid("\(allocatedChunks) chunks is not between 0 and \(layout.maximumChunks)")
        }
        guard nonce != 0 else { throw invalid("the build nonce is 0") }
        let slots = layout.slotCount(chunks: allocatedChunks)
        let log2 = IndexDescriptor.bucketsLog2(forSlots: slots)
        let buckets = 1 << log2
        let length = layout.fileLength(chunks: allocatedChunks, region: 0, buckets: buckets)
        guard let base = bytes.baseAddress, Int(bitPattern: base) % 8 == 0, bytes.count >= length else {
            throw invalid("the mapping of \(bytes.count) bytes is not an 8-byte-aligned one of at least \(length) bytes")
        }
        var slotTaken = [Bool](repeating: false, count: slots)
        var entities = Set<TableKey>(minimumCapacity: entries.count)
        for e in entries {
            guard (0..<slots).contains(e.slot) else { throw invalid("slot \(e.slot) is not one of the \(slots) allocated") }
            guard !slotTaken[e.slot] else { throw invalid("slot \(e.slot) holds two entries") }
            guard entities.insert(e.entity).inserted else { throw invalid("entity \(e.entity) has two slots") }
            guard e.version <= SlotWord.maximumVersion else { throw invalid("version \(e.version) of slot \(e.slot) is beyond 54 bits") }
            guard e.sequence <= IndexRecord.maximumSequence else {
                throw invalid("sequence \(e.sequence) of slot \(e.slot) is out of range")
            }
            slotTaken[e.slot] = true
        }

        func u64(_ v: UInt64, _ offset: Int) { bytes.storeBytes(of: v.littleEndian, toByteOffset: offset, as: UInt64.self) }
        func u32(_ v: UInt32, _ offset: Int) { bytes.storeBytes(of: v.littleEndian, toByteOffset: offset, as: UInt32.self) }
        func zero(_ range: Range<Int>) { (base + range.lowerBound).initializeMemory(as: UInt8.self, repeating: 0, count: range.count) }

        // The header stops validating before anything else changes.
        base.storeRelease(0, toByteOffset: SharedStateHeader.checksumOffset)
        releaseFence()
        zero(0..<(layout.cellsOffset + allocatedChunks * layout.cellChunkLength))

        // Cells: committed entries, stamped in the order of their saved recency.
        let byRecency = entries.indices.sorted {
            (entries[$0].lastAccess, entries[$0].slot) < (entries[$1].lastAccess, entries[$1].slot)
        }
        for (rank, i) in byRecency.enumerated() {
            let cell = layout.cellOffset(slot: entries[i].slot)
            u64(SlotWord.committed(version: entries[i].version).rawValue, cell + SharedCell.wordOffset)
            u64(UInt64(rank + 1), cell + SharedCell.lastUseOffset)
        }
        // Free slots, linked lowest first (free words are all zero: version 0, already written).
        var head: UInt64 = 0
        var freeCount = 0
        for slot in stride(from: slots - 1, through: 0, by: -1) where !slotTaken[slot] {
            u32(UInt32(truncatingIfNeeded: head), layout.cellOffset(slot: slot) + SharedCell.nextFreeOffset)
            head = UInt64(slot + 1)
            freeCount += 1
        }

        // The index, entries in the order of their home buckets.
        let unindexed = SharedIndexWriter.place(
            entries.map { ($0.entity, $0.slot) }, region: 0, buckets: buckets, base: base, layout: layout)

        let clock = UInt64(entries.count)
        let nextSequence = (entries.map(\.sequence).max() ?? 0) + 1
        u64(UInt64(allocatedChunks), layout.controlOffset(.allocatedChunks))
        u64(IndexDescriptor(region: 0, bucketsLog2: log2, generation: 0).rawValue, layout.controlOffset(.indexDescriptor))
        u64(clock, layout.controlOffset(.clock))
        u64(nextSequence, layout.controlOffset(.nextCommitSequence))
        u64(UInt64(entries.count - unindexed.count), layout.controlOffset(.entryCounts))
        u64(head, layout.controlOffset(.freeListHead))

        // Everything above is visible before the header validates.
        let header = SharedStateHeader(layout: layout, binding: binding, buildNonce: nonce, state: SharedStateHeader.ready).encode()
        header.withUnsafeBytes { h in
            base.copyMemory(from: h.baseAddress!, byteCount: SharedStateHeader.checksumOffset)
            releaseFence()
            base.storeRelease(
                h.load(fromByteOffset: SharedStateHeader.checksumOffset, as: UInt64.self).littleEndian,
                toByteOffset: SharedStateHeader.checksumOffset)
        }
        return Summary(
            allocatedSlots: slots, buckets: buckets, clock: clock, nextCommitSequence: nextSequence,
            freeSlots: freeCount, unindexed: unindexed)
    }
}
