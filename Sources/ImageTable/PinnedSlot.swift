import FICCore

/// One image's slot, pinned for whoever holds this value: its pixels stay mapped and unchanged
/// until the holder lets go with ``ImageTable/unpin(_:)``, exactly once.
///
/// ``StoredImage`` is the object that holds one for the table's users; an object that already
/// exists for each image (the cache's `CachedImage`) holds one itself, so that a hit makes one
/// object, not two.
package struct PinnedSlot: @unchecked Sendable {
    // @unchecked for the pixel pointer alone: the pixels never change while the slot is pinned
    // (its pin is taken under the table's lock, and a close or reset copies them first).

    let slot: Int
    /// The table's generation when the pin was taken: a close or reset starts another, after
    /// which the pin no longer counts.
    let generation: UInt64
    /// Keeps the mapping of the slot's chunk alive while the slot is held.
    let chunk: TableChunk
    /// The first pixel.
    package let baseAddress: UnsafeRawPointer
    /// The version of the source image the pixels were drawn from.
    package let source: TableKey

    /// Lets go of the pin.
    @inline(__always)
    func release(in state: ConditionBox<TableState>) {
        state.withLockedValue { $0.unpin(slot, generation: generation) }
    }

    /// Lets the kernel drop the first `byteCount` bytes' pages from resident memory.
    func releaseResidentPages(byteCount: Int, in state: ConditionBox<TableState>) {
        let length = (byteCount + systemPageSize - 1) / systemPageSize * systemPageSize
        // Under the lock: a close or reset detaches pages under it too, and a detached page
        // must never be dropped (it has no file behind it).
        state.withLockedValue { s in
            if s.generation == generation { chunk.region.releaseResidentPages(baseAddress, count: length) }
        }
    }
}
