import FICCore

/// Changes to the shared index, made only by the holder of the writer lock while other processes
/// look entities up in it without any lock (``SharedIndex``). Each change a reader can meet is
/// one whole 8-byte store, so a reader sees a bucket either before or after it:
///
/// - an insert fills the first empty or tombstone bucket of the entity's probe run;
/// - a removal turns the entity's bucket into a tombstone, so that probes for entities further
///   along the run go on past it;
/// - a rebuild writes a whole new index in the inactive region, then switches the descriptor with
///   one release store: a reader still probing the old region finds what it held, and checks any
///   slot it finds against the slot's word and record anyway.
///
/// The index has at least two buckets per slot, so entries alone fill at most half of it; with
/// tombstones it stays at most five eighths full, so probe runs stay short, and a table at its
/// maximum that evicts as it stores rebuilds only after an eighth of its buckets became tombstones.
enum SharedIndexWriter {
    /// The active index of the side file at `base`, or nil when its descriptor does not fit the
    /// layout (garbage: the caller rebuilds).
    static func active(_ base: UnsafeMutableRawPointer, layout: SharedStateLayout) -> IndexDescriptor? {
        let descriptor = IndexDescriptor(
            rawValue: UnsafeRawPointer(base).loadAcquire(fromByteOffset: layout.controlOffset(.indexDescriptor)))
        guard descriptor.bucketsLog2 >= 1, descriptor.bucketsLog2 <= layout.maximumBucketsLog2 else { return nil }
        return descriptor
    }

    /// Entries and tombstones of the active index, as its control line counts them. Each is at
    /// most the largest index's bucket count: a larger count is garbage (and makes the index
    /// look full, so that the next writer rebuilds it), and sums of clamped counts cannot overflow.
    static func counts(_ base: UnsafeMutableRawPointer, layout: SharedStateLayout) -> (entries: Int, tombstones: Int) {
        let line = UnsafeRawPointer(base) + layout.controlOffset(.entryCounts)
        let clamp = { (v: UInt64) in Int(min(v, UInt64(layout.maximumBuckets))) }
        return (clamp(line.loadRelaxed(fromByteOffset: 0)), clamp(line.loadRelaxed(fromByteOffset: SharedControlField.tombstonesOffset)))
    }

    private static func setCounts(_ base: UnsafeMutableRawPointer, layout: SharedStateLayout, entries: Int, tombstones: Int) {
        let line = base + layout.controlOffset(.entryCounts)
        line.storeRelaxed(UInt64(max(entries, 0)), toByteOffset: 0)
        line.storeRelaxed(UInt64(max(tombstones, 0)), toByteOffset: SharedControlField.tombstonesOffset)
    }

    /// Whether the index must be rebuilt before it takes another entry: its descriptor is
    /// garbage, it would be more than five eighths full (entries and tombstones), it has fewer
    /// than two buckets per allocated slot, or its count is garbage: an entry for every slot
    /// already, though the slot about to be entered is not in it (each slot holds one entry at
    /// most), which a count damaged in the file, or buckets lost with their entries still
    /// counted, would otherwise keep for as long as the table is open.
    static func needsRebuild(_ base: UnsafeMutableRawPointer, layout: SharedStateLayout, allocatedSlots: Int) -> Bool {
        guard let descriptor = active(base, layout: layout) else { return true }
        let (entries, tombstones) = counts(base, layout: layout)
        return 8 * (entries + tombstones + 1) > 5 * descriptor.buckets || 2 * allocatedSlots > descriptor.buckets
            || entries >= allocatedSlots
    }

    /// Puts `entity → slot` in the first empty or tombstone bucket within
    /// ``IndexBucket/maximumProbes`` of its home. The entity must not be in the index (its old
    /// bucket removed first). Returns false, changing nothing, when no bucket within reach is free
    /// or the descriptor is garbage: the caller rebuilds.
    static func insert(_ entity: TableKey, slot: Int, base: UnsafeMutableRawPointer, layout: SharedStateLayout) -> Bool {
        guard let descriptor = active(base, layout: layout) else { return false }
        let start = layout.regionOffset(descriptor.region), buckets = descriptor.buckets
        for b in IndexBucket.probes(from: IndexBucket.home(of: entity, mask: buckets - 1), buckets: buckets) {
            let at = start + b * SharedStateLayout.bucketLength
            let found = IndexBucket(rawValue: UnsafeRawPointer(base).loadRelaxed(fromByteOffset: at))
            if found.isEmpty || found.isTombstone {
                base.storeRelease(IndexBucket(entity: entity, slot: slot).rawValue, toByteOffset: at)
                let (entries, tombstones) = counts(base, layout: layout)
                setCounts(base, layout: layout, entries: entries + 1, tombstones: tombstones - (found.isTombstone ? 1 : 0))
                return true
            }
        }
        return false
    }

    /// Turns the bucket naming `slot` for `entity` into a tombstone. Returns whether there was one.
    @discardableResult
    static func remove(_ entity: TableKey, slot: Int, base: UnsafeMutableRawPointer, layout: SharedStateLayout) -> Bool {
        guard let descriptor = active(base, layout: layout) else { return false }
        let start = layout.regionOffset(descriptor.region), buckets = descriptor.buckets
        let wanted = IndexBucket(entity: entity, slot: slot)
        for b in IndexBucket.probes(from: IndexBucket.home(of: entity, mask: buckets - 1), buckets: buckets) {
            let at = start + b * SharedStateLayout.bucketLength
            let found = IndexBucket(rawValue: UnsafeRawPointer(base).loadRelaxed(fromByteOffset: at))
            if found.isEmpty { return false }
            if found == wanted {
                base.storeRelease(IndexBucket.tombstone.rawValue, toByteOffset: at)
                let (entries, tombstones) = counts(base, layout: layout)
                setCounts(base, layout: layout, entries: entries - 1, tombstones: tombstones + 1)
                return true
            }
        }
        return false
    }

    /// Writes `entries` into the `buckets` buckets of `region` (zeroed first), in the order of
    /// their home buckets, so that none is pushed further from home than it must be. Returns the
    /// slots of entries that found no bucket within ``IndexBucket/maximumProbes`` (rare; their
    /// lookups miss until they are stored again).
    static func place(
        _ entries: [(entity: TableKey, slot: Int)], region: Int, buckets: Int, base: UnsafeMutableRawPointer, layout: SharedStateLayout
    ) -> [Int] {
        let start = layout.regionOffset(region), mask = buckets - 1
        for b in 0..<buckets { base.storeRelaxed(0, toByteOffset: start + b * SharedStateLayout.bucketLength) }
        var unplaced: [Int] = []
        let homes = entries.map { IndexBucket.home(of: $0.entity, mask: mask) }
        for i in entries.indices.sorted(by: { (homes[$0], $0) < (homes[$1], $1) }) {
            let free = IndexBucket.probes(from: homes[i], buckets: buckets).first {
                UnsafeRawPointer(base).loadRelaxed(fromByteOffset: start + $0 * SharedStateLayout.bucketLength) == 0
            }
            guard let free else {
                unplaced.append(entries[i].slot)
                continue
            }
            base.storeRelaxed(
                IndexBucket(entity: entries[i].entity, slot: entries[i].slot).rawValue,
                toByteOffset: start + free * SharedStateLayout.bucketLength)
        }
        return unplaced
    }

    /// Rebuilds the index from `entries` (every committed entity and its slot) in the inactive
    /// region, with the smallest power of two of buckets ≥ 2 · max(`allocatedSlots`, entries, 1),
    /// then makes it the active one (a new generation). `allocate` is called first with the byte
    /// range the new buckets take, to reserve disk space for them. Returns the slots left out
    /// (see ``place(_:region:buckets:base:layout:)``).
    static func rebuild(
        _ entries: [(entity: TableKey, slot: Int)], allocatedSlots: Int, base: UnsafeMutableRawPointer, layout: SharedStateLayout,
        allocate: (Range<Int>) throws -> Void
    ) throws -> [Int] {
        let old = active(base, layout: layout)
        let region = old.map { 1 - $0.region } ?? 0
        let log2 = min(IndexDescriptor.bucketsLog2(forSlots: max(allocatedSlots, entries.count, 1)), layout.maximumBucketsLog2)
        let buckets = 1 << log2
        let start = layout.regionOffset(region)
        try allocate(start..<(start + roundUp(buckets * SharedStateLayout.bucketLength, layout.pageSize)))
        let unplaced = place(entries, region: region, buckets: buckets, base: base, layout: layout)
        setCounts(base, layout: layout, entries: entries.count - unplaced.count, tombstones: 0)
        let generation = old.map { $0.generation >= IndexDescriptor.maximumGeneration ? 0 : $0.generation + 1 } ?? 0
        // Every bucket is written before a reader can find the new descriptor.
        base.storeRelease(
            IndexDescriptor(region: region, bucketsLog2: log2, generation: generation).rawValue,
            toByteOffset: layout.controlOffset(.indexDescriptor))
        return unplaced
    }
}
