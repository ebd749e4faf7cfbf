import FICCore

extension SlotCells {
    /// The committed record of `slot` (its record in the table file at `record`) as one version
    /// of the slot's word names it, read with no lock while a writer in another process may be
    /// changing it, as a seqlock's reader reads: the word (it must be committed), the record's
    /// bytes copied with 8-byte atomic loads, an acquire fence, then the word again. Nil when the
    /// word is not committed or changed meanwhile, or the copy is not a sealed, committed record:
    /// the caller counts a miss and never waits.
    func committedRecord(_ slot: Int, at record: UnsafeRawPointer) -> (word: SlotWord, record: IndexRecord)? {
        let before = word(slot)
        guard before.state == .committed else { return nil }
        return withUnsafeTemporaryAllocation(byteCount: IndexRecord.length, alignment: 8) { copy -> (SlotWord, IndexRecord)? in
            let c = copy.baseAddress!
            for offset in stride(from: 0, to: IndexRecord.length, by: 8) {
                c.storeBytes(of: record.loadRelaxed(fromByteOffset: offset).littleEndian, toByteOffset: offset, as: UInt64.self)
            }
            acquireFence()
            guard word(slot) == before, let parsed = IndexRecord.read(at: UnsafeRawPointer(c), slot: slot), !parsed.isInFlight else {
                return nil
            }
            return (before, parsed)
        }
    }
}
