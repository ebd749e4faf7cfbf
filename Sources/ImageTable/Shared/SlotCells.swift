import FICCore

/// The handshake between processes that look a slot up and a writer that reuses it, on the slots'
/// cells in the shared state, with no lock between them (Dekker's pattern, every step
/// sequentially consistent):
///
/// - a **reader** that found a slot's word `w` sets its holder bit in the slot's hold mask, then
///   reads the word again: still `w`, the slot is held and its pixels are the ones `w` names;
///   changed, it clears its bit and counts a miss — it never waits;
/// - a **writer** (holding the writer lock) first makes the word in flight, then reads the hold
///   mask: a bit of a live holder means the slot is held, and the word goes back as it was;
///   no live bit, the slot is the writer's to draw in.
///
/// Either the reader sees the writer's word, or the writer sees the reader's bit: both cannot miss
/// the other's store, so a held slot is never drawn over, in any process. A holder that died
/// leaves its bits; a writer clears those of holders the kernel says are dead (``HolderTable``),
/// and only then, so a stopped holder's slot stays untouched until it is resumed.
///
/// The cells' memory is the caller's (a shared mapping of the side file it keeps alive); slots
/// are checked against the layout by the caller before they get here.
///
/// `@unchecked Sendable`: every access is an atomic operation on memory that other processes
/// change concurrently anyway; threads of one process are no different.
package struct SlotCells: @unchecked Sendable {
    /// The side file's first byte.
    let base: UnsafeMutableRawPointer
    let layout: SharedStateLayout

    /// The cells of the side file mapped at `base` (the whole file from offset 0), laid out as `layout`.
    package init(base: UnsafeMutableRawPointer, layout: SharedStateLayout) {
        self.base = base
        self.layout = layout
    }

    /// `slot`'s cell.
    @inline(__always)
    func cell(_ slot: Int) -> UnsafeMutableRawPointer { base + layout.cellOffset(slot: slot) }

    /// The hold mask word and bit of `holder`.
    @inline(__always)
    private static func maskBit(_ holder: Int) -> (offset: Int, bit: UInt64) {
        precondition(holder >= 0 && holder < HolderTable.capacity, "a holder of the table")
        return (SharedCell.holdMaskOffset + 8 * (holder / 64), 1 << UInt64(holder % 64))
    }

    /// Where `slot`'s cell is, from the side file's start: for a caller that keeps it, so that
    /// the hot path (a lookup, its hold and its release) skips the layout's arithmetic.
    @inline(__always)
    package func cellOffset(_ slot: Int) -> Int { layout.cellOffset(slot: slot) }

    /// `slot`'s word (acquire: a committed word's record and pixels are visible once it is).
    package func word(_ slot: Int) -> SlotWord {
        word(atCell: cellOffset(slot))
    }

    /// The word of the cell at `offset` (``cellOffset(_:)``).
    @inline(__always)
    package func word(atCell offset: Int) -> SlotWord {
        SlotWord(rawValue: UnsafeRawPointer(base).loadAcquire(fromByteOffset: offset + SharedCell.wordOffset))
    }

    /// A reader's hold on `slot`, whose word it found to be `expected`: sets `holder`'s bit, then
    /// reads the word again. Returns true when it is still `expected` (the slot is held until
    /// ``release(_:holder:)``); otherwise the bit is cleared again and the caller has a miss.
    package func hold(_ slot: Int, holder: Int, expecting expected: SlotWord) -> Bool {
        hold(atCell: cellOffset(slot), holder: holder, expecting: expected)
    }

    /// ``hold(_:holder:expecting:)`` of the slot whose cell is at `offset`.
    @inline(__always)
    package func hold(atCell offset: Int, holder: Int, expecting expected: SlotWord) -> Bool {
        let c = base + offset, (mask, bit) = Self.maskBit(holder)
        c.fetchOr(bit, atByteOffset: mask)
        if UnsafeRawPointer(c).loadSequentiallyConsistent(fromByteOffset: SharedCell.wordOffset) == expected.rawValue { return true }
        c.fetchAnd(~bit, atByteOffset: mask)
        return false
    }

    /// Lets go of `holder`'s hold on `slot`.
    package func release(_ slot: Int, holder: Int) {
        release(atCell: cellOffset(slot), holder: holder)
    }

    /// ``release(_:holder:)`` of the slot whose cell is at `offset`.
    @inline(__always)
    package func release(atCell offset: Int, holder: Int) {
        let (mask, bit) = Self.maskBit(holder)
        (base + offset).fetchAnd(~bit, atByteOffset: mask)
    }

    /// Whether `holder`'s bit is set on `slot`.
    package func isHeld(_ slot: Int, by holder: Int) -> Bool {
        let (offset, bit) = Self.maskBit(holder)
        return UnsafeRawPointer(cell(slot)).loadSequentiallyConsistent(fromByteOffset: offset) & bit != 0
    }

    /// The holders whose bits are set on `slot`, lowest first.
    package func holders(of slot: Int) -> [Int] {
        let c = UnsafeRawPointer(cell(slot))
        var result: [Int] = []
        for word in 0..<HolderTable.capacity / 64 {
            var mask = c.loadSequentiallyConsistent(fromByteOffset: SharedCell.holdMaskOffset + 8 * word)
            while mask != 0 {
                result.append(64 * word + mask.trailingZeroBitCount)
                mask &= mask - 1
            }
        }
        return result
    }

    /// A writer's claim of `slot` (the writer lock held), for `owner` (the writer's own holder):
    /// refused when another live writer has it in flight; otherwise the word becomes in flight,
    /// then the hold mask is read. Bits of holders `isAlive` says are dead are cleared; a live
    /// holder's bit (the writer's own process's too) means the slot is held: the word is put
    /// back as it was, and nil is returned. Otherwise returns the in-flight word: the
    /// slot's pixels and record are the writer's until it publishes.
    package func claim(_ slot: Int, owner: Int, isAlive: (Int) -> Bool) -> SlotWord? {
        let c = cell(slot)
        let before = word(slot)
        if before.state == .inFlight, let writer = before.owner, writer != owner, writer < HolderTable.capacity, isAlive(writer) {
            return nil
        }
        let claimed = SlotWord.inFlight(owner: owner, version: Self.version(after: before.version))
        c.exchange(claimed.rawValue, atByteOffset: SharedCell.wordOffset)
        var held = false
        for holder in holders(of: slot) {
            if isAlive(holder) {
                held = true
            } else {
                let (offset, bit) = Self.maskBit(holder)
                c.fetchAnd(~bit, atByteOffset: offset)
            }
        }
        guard held else { return claimed }
        // Put back exactly what was there: nothing of the slot changed, so a reader that saw
        // that word before may go on trusting it (a new version would name pixels never drawn).
        c.storeSequentiallyConsistent(before.rawValue, toByteOffset: SharedCell.wordOffset)
        return nil
    }

    /// Clears what a dead holder that had the index `holder` left among the first `slots` slots,
    /// for the process that has just registered under that index (the writer lock held): its
    /// hold bits, and its in-flight words, which are freed (`freed` is told each such slot, to
    /// clear its record). Otherwise the new holder, alive, would keep them held and in flight for
    /// every other process.
    package func takeOver(holder: Int, slots: Int, freed: (Int) -> Void) {
        for slot in 0..<min(slots, layout.maximumCount) {
            if isHeld(slot, by: holder) { release(slot, holder: holder) }
            let w = word(slot)
            if w.state == .inFlight, w.owner == holder {
                freed(slot)
                publish(slot, .free(version: Self.version(after: w.version)))
            }
        }
    }

    /// Makes `word` `slot`'s word (release: whatever the writer wrote before is visible to a
    /// reader that sees it).
    package func publish(_ slot: Int, _ word: SlotWord) {
        cell(slot).storeRelease(word.rawValue, toByteOffset: SharedCell.wordOffset)
    }

    /// The version after `version`, wrapping within the word's 54 bits.
    package static func version(after version: UInt64) -> UInt64 {
        version >= SlotWord.maximumVersion ? 0 : version + 1
    }
}
