import FICCore

/// Recency shared by every process that has a table open: each slot's cell holds the stamp of its
/// last use, taken from one shared clock (control line ``SharedControlField/clock``), and a
/// writer evicts by sampling stamps from a shared hand (``SharedControlField/evictionHand``), as
/// CLOCK sweeps a page table — no list to keep in order, so a lookup in any process changes at
/// most its own slot's stamp and the clock, and usually nothing at all:
///
/// - a use re-stamps its slot only when the stamp is more than a *slack* behind the clock, so a
///   gallery showing the same images again and again writes almost nothing (``touch(_:in:slack:)``);
/// - the victim is the least recent of a sample of slots after the hand, which is exact LRU when
///   the table has no more slots than the sample (``victim(in:allocatedSlots:sample:isUsable:)``).
///
/// Every value here comes from a file other processes write, so any clock, hand or stamp is
/// taken as it is: nothing traps on it, every loop is bounded by the slot count, and the worst a
/// garbage value does is order slots wrongly until the side file is rebuilt.
package enum SharedRecency {
    /// How many slots an eviction compares at most before taking the least recent.
    package static let defaultSample = 256

    /// The slack of a table of `allocatedSlots` slots: a stamp may lag the clock by a sixteenth
    /// of the slots before a use writes it again. Zero below 16 slots, so small tables keep
    /// exact LRU (each use is stamped).
    package static func slack(forAllocatedSlots allocatedSlots: Int) -> UInt64 {
        UInt64(max(allocatedSlots, 0) / 16)
    }

    /// The shared clock: the largest stamp given out.
    package static func clock(in cells: SlotCells) -> UInt64 {
        UnsafeRawPointer(cells.base).loadRelaxed(fromByteOffset: cells.layout.controlOffset(.clock))
    }

    /// `slot`'s stamp: the clock value of its last recorded use.
    package static func stamp(of slot: Int, in cells: SlotCells) -> UInt64 {
        UnsafeRawPointer(cells.cell(slot)).loadRelaxed(fromByteOffset: SharedCell.lastUseOffset)
    }

    /// A use of `slot` (in the table's bounds; the caller checks). When `slack` is 0, or the
    /// slot's stamp is more than `slack` behind the clock, the clock ticks and the slot takes the
    /// new value; otherwise nothing is written. A stamp only ever grows: when another use has
    /// meanwhile stamped the slot later, that stamp stays.
    ///
    /// - Returns: whether the clock ticked (each tick is one stamp given out).
    @discardableResult
    package static func touch(_ slot: Int, in cells: SlotCells, slack: UInt64) -> Bool {
        touch(cellAt: cells.cellOffset(slot), in: cells, slack: slack)
    }

    /// ``touch(_:in:slack:)`` of the slot whose cell is at `offset` (``SlotCells/cellOffset(_:)``).
    @discardableResult
    @inline(__always)
    package static func touch(cellAt offset: Int, in cells: SlotCells, slack: UInt64) -> Bool {
        let clockOffset = cells.layout.controlOffset(.clock)
        let cell = cells.base + offset
        let now = UnsafeRawPointer(cells.base).loadRelaxed(fromByteOffset: clockOffset)
        var stamp = UnsafeRawPointer(cell).loadRelaxed(fromByteOffset: SharedCell.lastUseOffset)
        // Compared by subtraction, so that no stamp or clock in the file can overflow the sum.
        // A stamp beyond the clock read is one another use has just given: fresh.
        guard slack == 0 || (stamp < now && now - stamp > slack) else { return false }
        let given = cells.base.fetchAdd(1, atByteOffset: clockOffset) &+ 1
        // Raised only, never lowered: a later stamp written meanwhile by another use wins. Each
        // failed exchange found a different stamp; the bound only guards against a file
        // rewritten under us without end.
        var tries = 0
        while given > stamp, tries < 64 {
            let (exchanged, found) = cell.compareExchange(expected: stamp, desired: given, atByteOffset: SharedCell.lastUseOffset)
            if exchanged { break }
            stamp = found
            tries += 1
        }
        return true
    }

    /// The slot to evict among the first `allocatedSlots` (clamped to the table's maximum): from
    /// the shared hand (taken modulo the slot count, whatever it holds), the slots are examined
    /// `sample` at a time, wrapping; among those `isUsable` accepts (given the slot and its
    /// word: committed, held by no live holder, … — the caller's rules), the one with the smallest
    /// stamp wins, the lower slot on a tie. A sample with no usable slot moves on to the next,
    /// so that nil means that no slot at all is usable. The hand moves past what was examined.
    ///
    /// With no more slots than `sample`, every slot is examined: exact LRU. Each slot is
    /// examined at most once per call. Called with the writer lock held (the hand is one
    /// writer's at a time).
    package static func victim(
        in cells: SlotCells, allocatedSlots: Int, sample: Int = defaultSample,
        isUsable: (Int, SlotWord) -> Bool
    ) -> Int? {
        let count = min(allocatedSlots, cells.layout.maximumCount)
        guard count > 0 else { return nil }
        let window = min(max(sample, 1), count)
        let handOffset = cells.layout.controlOffset(.evictionHand)
        let start = Int(UnsafeRawPointer(cells.base).loadRelaxed(fromByteOffset: handOffset) % UInt64(count))
        var examined = 0
        var best: (stamp: UInt64, slot: Int)?
        while examined < count {
            let end = min(examined + window, count)
            for i in examined..<end {
                let slot = (start + i) % count
                guard isUsable(slot, cells.word(slot)) else { continue }
                let candidate = (stamp: stamp(of: slot, in: cells), slot: slot)
                if best.map({ candidate < $0 }) ?? true { best = candidate }
            }
            examined = end
            if best != nil { break }
        }
        cells.base.storeRelaxed(UInt64((start + examined) % count), toByteOffset: handOffset)
        return best?.slot
    }

    /// The slots among the first `allocatedSlots` (clamped to the table's maximum) that
    /// `include` accepts (given the slot and its word), most recent first. On equal stamps the
    /// higher slot comes first: the lower slot counts as the older, as for
    /// ``victim(in:allocatedSlots:sample:isUsable:)``.
    package static func orderedByRecency(_ cells: SlotCells, allocatedSlots: Int, where include: (Int, SlotWord) -> Bool) -> [Int] {
        let count = max(min(allocatedSlots, cells.layout.maximumCount), 0)
        var stamped: [(stamp: UInt64, slot: Int)] = []
        for slot in 0..<count where include(slot, cells.word(slot)) {
            stamped.append((stamp(of: slot, in: cells), slot))
        }
        return stamped.sorted { $0 > $1 }.map(\.slot)
    }
}
