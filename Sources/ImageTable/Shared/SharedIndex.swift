/// Looks entities up in a side file's shared index, reading only, with no lock: the buckets may
/// be changed by other processes meanwhile, or hold anything at all, so every value read is
/// bounds-checked and the worst a lookup returns is a miss (or a slot in range that the caller
/// then checks against its slot word and record).
enum SharedIndex {
    /// The slot the index names for `entity`, in the side file mapped at `bytes` laid out as
    /// `layout`, among the first `allocatedSlots` slots (the reader's own validated count).
    ///
    /// Reads the index descriptor (acquire), then at most ``IndexBucket/maximumProbes`` buckets
    /// from the home bucket (relaxed, each a whole atomic word), stopping at an empty one. Each
    /// bucket whose fingerprint matches and whose slot is in range is offered to `accept` (the
    /// caller's check of the slot word and record); the first accepted is the answer. A
    /// descriptor whose buckets do not fit in the layout or in `bytes` is a miss.
    static func lookup(
        _ entity: TableKey, in bytes: UnsafeRawBufferPointer, layout: SharedStateLayout, allocatedSlots: Int,
        where accept: (Int) -> Bool = { _ in true }
    ) -> Int? {
        guard let base = bytes.baseAddress, Int(bitPattern: base) % 8 == 0 else { return nil }
        let descriptorOffset = layout.controlOffset(.indexDescriptor)
        guard bytes.count >= descriptorOffset + 8 else { return nil }
        let descriptor = IndexDescriptor(rawValue: base.loadAcquire(fromByteOffset: descriptorOffset))
        guard descriptor.bucketsLog2 <= layout.maximumBucketsLog2 else { return nil }
        let start = layout.regionOffset(descriptor.region)
        let buckets = descriptor.buckets
        guard start <= bytes.count, bytes.count - start >= buckets * SharedStateLayout.bucketLength else { return nil }
        let limit = min(allocatedSlots, layout.maximumCount)
        for i in IndexBucket.probes(from: IndexBucket.home(of: entity, mask: buckets - 1), buckets: buckets) {
            let bucket = IndexBucket(rawValue: base.loadRelaxed(fromByteOffset: start + i * SharedStateLayout.bucketLength))
            if bucket.isEmpty { return nil }
            if bucket.matches(entity), let slot = bucket.slot, slot < limit, accept(slot) { return slot }
        }
        return nil
    }
}
