/// A doubly linked list of slot numbers in order of use, most recent first, with O(1) touch,
/// insert, remove and "least recent that passes a test". It grows with the table.
struct RecencyList {
    private var next: [Int32] = []
    private var prev: [Int32] = []
    private var member: [Bool] = []
    private var head: Int32 = -1
    private var tail: Int32 = -1
    private(set) var count = 0

    /// Makes room for slots up to `capacity - 1`.
    mutating func grow(to capacity: Int) {
        guard capacity > next.count else { return }
        let extra = capacity - next.count
        next += repeatElement(-1, count: extra)
        prev += repeatElement(-1, count: extra)
        member += repeatElement(false, count: extra)
    }

    /// Puts `slot` at the most recent end (inserting it if absent).
    mutating func touch(_ slot: Int) {
        if member[slot] {
            if head == Int32(slot) { return }
            unlink(slot)
        }
        let s = Int32(slot)
        next[slot] = head
        prev[slot] = -1
        if head >= 0 { prev[Int(head)] = s }
        head = s
        if tail < 0 { tail = s }
        member[slot] = true
        count += 1
    }

    /// Removes `slot` from the list if it is there.
    mutating func remove(_ slot: Int) {
        guard slot < member.count, member[slot] else { return }
        unlink(slot)
    }

    /// Empties the list, keeping its capacity.
    mutating func removeAll() {
        for slot in orderedSlots { unlink(slot) }
    }

    private mutating func unlink(_ slot: Int) {
        let n = next[slot], p = prev[slot]
        if p >= 0 { next[Int(p)] = n } else { head = n }
        if n >= 0 { prev[Int(n)] = p } else { tail = p }
        next[slot] = -1
        prev[slot] = -1
        member[slot] = false
        count -= 1
    }

    /// The least recently used slot for which `eligible` is true, scanning from the old end.
    func leastRecent(where eligible: (Int) -> Bool) -> Int? {
        var s = tail
        while s >= 0 {
            if eligible(Int(s)) { return Int(s) }
            s = prev[Int(s)]
        }
        return nil
    }

    /// Slots from most to least recent.
    var orderedSlots: [Int] {
        var out: [Int] = []
        out.reserveCapacity(count)
        var s = head
        while s >= 0 {
            out.append(Int(s))
            s = next[Int(s)]
        }
        return out
    }
}
