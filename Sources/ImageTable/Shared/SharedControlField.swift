/// The fields of a side file's control page, one 64-byte line each, so that a field one process
/// changes often (the clock) never shares a cache line with another. Offsets are
/// `controlOffset + rawValue · 64`; values are little-endian.
enum SharedControlField: Int, CaseIterable {
    /// The writer journal: what the writer-lock holder was doing, so that the next one can redo
    /// or undo it after a death. Zero when idle. Fields: see ``SharedJournalField``.
    case journal
    /// UInt64: how many table chunks have cells.
    case allocatedChunks
    /// UInt64: the active index (``IndexDescriptor``).
    case indexDescriptor
    /// UInt64: the largest recency stamp given out.
    case clock
    /// UInt64: the commit sequence the next store gets.
    case nextCommitSequence
    /// UInt64: bumped by every reset, so that a holder of hints sees the entries went.
    case resetEpoch
    /// UInt64 entries at 0, UInt64 tombstones at 8: how full the active index is.
    case entryCounts
    /// UInt64: the slot where the next eviction scan starts.
    case evictionHand
    /// UInt64: the first slot of the free list, as slot + 1 (0: the list is empty); the cells
    /// link the rest (``SharedCell/nextFreeOffset``).
    case freeListHead

    /// Where the tombstone count sits in the ``entryCounts`` line.
    static let tombstonesOffset = 8
}

/// Offsets of the writer journal's fields within its control line.
enum SharedJournalField {
    /// UInt32: what the writer was doing (0: nothing).
    static let state = 0
    /// UInt32: the holder that wrote it.
    static let owner = 4
    /// UInt64: the slot being changed.
    static let slot = 8
    /// UInt64: the slot the entity had before.
    static let oldSlot = 16
    /// 16 bytes: the entity being stored (high, then low).
    static let entity = 24
    /// UInt64: checksum of bytes 0..<40.
    static let checksum = 40
}

/// Offsets of a cell's fields: the shared state of one slot, one cache line.
enum SharedCell {
    /// UInt64: the slot word (``SlotWord``).
    static let wordOffset = 0
    /// UInt64: the recency stamp of the last use.
    static let lastUseOffset = 8
    /// UInt64 × 2: the hold mask, bit h set while holder h holds the slot (holders 0–63, then 64–127).
    static let holdMaskOffset = 16
    /// UInt32: the next slot of the free list, as slot + 1 (0: the end).
    static let nextFreeOffset = 32
}
