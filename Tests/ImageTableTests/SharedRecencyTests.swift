import FICCore
import FICTestSupport
import Testing
@testable import ImageTable

/// A side file in a page-aligned heap buffer, built from records as an opener builds it.
/// Threads are given its address and layout (plain values); `deallocate()` ends it.
struct MemorySideFile {
    let layout: SharedStateLayout
    let address: UInt

    /// A table of `slots` slots (every chunk allocated) holding `entries`.
    init(slots: Int, slotsPerChunk: Int = 64, entries: [SharedStateBuilder.Entry]) throws {
        layout = try SharedStateLayout(pageSize: 4096, slotsPerChunk: min(slotsPerChunk, slots), maximumCount: slots)
        let p = UnsafeMutableRawPointer.allocate(byteCount: layout.maximumLength, alignment: 4096)
        p.initializeMemory(as: UInt8.self, repeating: 0xA5, count: layout.maximumLength)
        address = UInt(bitPattern: p)
        try SharedStateBuilder.build(
            into: UnsafeMutableRawBufferPointer(start: p, count: layout.maximumLength), layout: layout,
            binding: SharedStateBuildTests.binding, nonce: SharedStateBuildTests.nonce,
            allocatedChunks: layout.maximumChunks, entries: entries)
    }

    /// The cells, on whichever thread asks.
    static func cells(address: UInt, layout: SharedStateLayout) -> SlotCells {
        SlotCells(base: UnsafeMutableRawPointer(bitPattern: address)!, layout: layout)
    }

    var cells: SlotCells { Self.cells(address: address, layout: layout) }

    func deallocate() { UnsafeMutableRawPointer(bitPattern: address)!.deallocate() }

    /// Writes `value` into control line `field`, as any process (or damage) could.
    func set(_ field: SharedControlField, _ value: UInt64) {
        cells.base.storeRelaxed(value, toByteOffset: layout.controlOffset(field))
    }

    func get(_ field: SharedControlField) -> UInt64 {
        UnsafeRawPointer(cells.base).loadRelaxed(fromByteOffset: layout.controlOffset(field))
    }

    /// Writes `slot`'s stamp directly.
    func setStamp(_ slot: Int, _ value: UInt64) {
        cells.cell(slot).storeRelaxed(value, toByteOffset: SharedCell.lastUseOffset)
    }

    func stamp(_ slot: Int) -> UInt64 { SharedRecency.stamp(of: slot, in: cells) }
}

/// Shared recency: stamps from one clock and sampled eviction, checked against a reference LRU
/// list, against the rule that says when a use writes, from two threads at once, and on
/// side files whose clock, hand, stamps and words are garbage.
@Suite struct SharedRecencyTests {
    /// `n` committed entries in `slots`, saved recency with ties, as a table's records give them.
    static func entries(_ n: Int, slots: Int, seed: UInt64) -> [SharedStateBuilder.Entry] {
        SharedStateBuildTests.entries(n, slots: slots, seed: seed)
    }

    /// With no slack and no more slots than the sample, a random run of uses, holds, stores into
    /// free slots and evictions picks exactly the victim a reference LRU list picks (as
    /// an exact LRU list does: a use or a store moves a slot to the recent end, the victim is
    /// the least recent slot not held), and `orderedByRecency` is that list, most recent first.
    @Test(arguments: [1, 2, 17, 100, 256])
    func withoutSlackEvictionIsExactLeastRecentlyUsed(slots: Int) throws {
        let entries = Self.entries(max(1, slots * 3 / 4), slots: slots, seed: UInt64(slots))
        let file = try MemorySideFile(slots: slots, slotsPerChunk: 48, entries: entries)
        defer { file.deallocate() }
        let cells = file.cells
        var rng = Xorshift(seed: 0x5EED + UInt64(slots))
        file.set(.evictionHand, rng.next())  // wherever the hand is, all slots are sampled

        // The reference: least recent first, from the records' saved recency (ties: lower slot older).
        var order = entries.sorted { ($0.lastAccess, $0.slot) < ($1.lastAccess, $1.slot) }.map(\.slot)
        var held = Set<Int>()
        func use(_ slot: Int) {
            SharedRecency.touch(slot, in: cells, slack: 0)
            order.removeAll { $0 == slot }
            order.append(slot)
        }
        func usable(_ slot: Int, _ word: SlotWord) -> Bool { word.state == .committed && !held.contains(slot) }

        var evictions = 0
        for step in 0..<3000 {
            switch rng.next() % 10 {
            case 0..<5 where !order.isEmpty:
                use(order[Int(rng.next() % UInt64(order.count))])
            case 5:
                let slot = Int(rng.next() % UInt64(slots))
                if !held.insert(slot).inserted { held.remove(slot) }
            case 6:
                // A store into a free slot: committed, then used.
                if let slot = (0..<slots).first(where: { !order.contains($0) }) {
                    cells.publish(slot, .committed(version: 1))
                    use(slot)
                }
            default:
                let expected = order.first { !held.contains($0) }
                let got = SharedRecency.victim(in: cells, allocatedSlots: slots, isUsable: usable)
                try #require(got == expected, "step \(step): the least recent slot not held")
                if let got {
                    use(got)  // reused for a new entity
                    evictions += 1
                }
            }
        }
        #expect(evictions > 100)
        #expect(SharedRecency.orderedByRecency(cells, allocatedSlots: slots) { _, w in w.state == .committed } == order.reversed())
    }

    /// With more slots than the sample, the victim is the least recent usable slot of the sample
    /// after the hand (or of the first later sample holding one), and the hand moves past the
    /// samples examined.
    @Test func aLargeTableTakesTheLeastRecentOfTheSampleAfterTheHand() throws {
        let slots = 1000, sample = 50
        let file = try MemorySideFile(slots: slots, entries: Self.entries(slots, slots: slots, seed: 3))
        defer { file.deallocate() }
        var rng = Xorshift(seed: 99)
        for round in 0..<200 {
            for slot in 0..<slots { file.setStamp(slot, rng.next() % 100) }  // many ties
            let start = Int(rng.next() % UInt64(slots))
            file.set(.evictionHand, UInt64(start))
            let density = round % 4 == 0 ? 500 : 10  // some rounds: whole samples with nothing usable
            let usable = Set((0..<slots).filter { _ in rng.next() % UInt64(density) == 0 })
            // The reference: the samples after the hand in turn; the first holding a usable slot decides.
            var expected: Int?, examined = 0
            while expected == nil, examined < slots {
                let window = (examined..<min(examined + sample, slots)).map { (start + $0) % slots }
                expected = window.filter(usable.contains).min { (file.stamp($0), $0) < (file.stamp($1), $1) }
                examined += window.count
            }
            let got = SharedRecency.victim(in: file.cells, allocatedSlots: slots, sample: sample) { s, _ in usable.contains(s) }
            try #require(got == expected, "round \(round)")
            #expect(file.get(.evictionHand) == UInt64((start + examined) % slots), "the hand moves past the samples examined")
        }
    }

    /// A victim is never a slot the caller refuses; a single usable slot is found wherever it
    /// lies, beyond the first sample too; none usable is nil. Each slot is examined at most once.
    @Test func heldSlotsAreNeverChosenAndALoneUsableSlotIsFound() throws {
        let slots = 1000
        let file = try MemorySideFile(slots: slots, entries: Self.entries(slots, slots: slots, seed: 4))
        defer { file.deallocate() }
        for hand: UInt64 in [0, 255, 999, 1000, 123_456_789, .max] {
            for lone in [0, 255, 256, 257, 743, 998, 999] {
                file.set(.evictionHand, hand)
                var asked = [Int](repeating: 0, count: slots)
                let got = SharedRecency.victim(in: file.cells, allocatedSlots: slots) { s, _ in
                    asked[s] += 1
                    return s == lone
                }
                #expect(got == lone, "hand \(hand)")
                #expect(asked.allSatisfy { $0 <= 1 })
            }
            var asked = [Int](repeating: 0, count: slots)
            let none = SharedRecency.victim(in: file.cells, allocatedSlots: slots) { s, _ in
                asked[s] += 1
                return false
            }
            #expect(none == nil)
            #expect(asked.allSatisfy { $0 == 1 }, "every slot examined once before giving up")
        }
    }

    @Test func theSlackIsASixteenthOfTheSlots() {
        #expect([0, 1, 15, 16, 31, 32, 320, 1000, -5].map(SharedRecency.slack(forAllocatedSlots:)) == [0, 0, 0, 1, 1, 2, 20, 62, 0])
    }

    /// With slack s, a use writes its slot exactly when the stamp lags the clock by more than s:
    /// the clock then ticks once and the slot takes the new value; otherwise neither changes.
    /// Other slots' uses (slack 0) move the clock meanwhile.
    @Test(arguments: [1 as UInt64, 5, 20])
    func aUseWritesOnlyWhenItsStampLagsByMoreThanTheSlack(slack: UInt64) throws {
        let slots = 320
        let file = try MemorySideFile(slots: slots, entries: Self.entries(slots, slots: slots, seed: 5))
        defer { file.deallocate() }
        var rng = Xorshift(seed: slack)
        let watched = 7
        var ticks: UInt64 = 0, writes: UInt64 = 0
        for _ in 0..<2000 {
            for _ in 0..<(rng.next() % 4) {
                let other = 8 + Int(rng.next() % UInt64(slots - 8))
                #expect(SharedRecency.touch(other, in: file.cells, slack: 0), "no slack: every use ticks")
                ticks += 1
            }
            let (clock, stamp) = (file.get(.clock), file.stamp(watched))
            let ticked = SharedRecency.touch(watched, in: file.cells, slack: slack)
            if clock - stamp > slack {
                try #require(ticked)
                #expect(file.get(.clock) == clock + 1 && file.stamp(watched) == clock + 1)
                ticks += 1
                writes += 1
            } else {
                try #require(!ticked)
                #expect(file.get(.clock) == clock && file.stamp(watched) == stamp)
            }
        }
        #expect(file.get(.clock) == UInt64(slots) + ticks, "the clock counts the stamps given")
        #expect(writes > 0 && writes <= ticks / (slack + 1) + 1)
    }

    /// A gallery showing the same 60 images again and again, in a table whose slack (64) is
    /// larger than the gallery: nothing at all is written when they are the most recent; otherwise
    /// an image is stamped at most once per 65 ticks, which bounds the ticks by 650 (780 is
    /// asserted) for 6000 uses, where a slack of 0 would tick 6000 times.
    @Test func aGalleryShowingTheSameImagesWritesAlmostNothing() throws {
        let slots = 1024
        let entries = Self.entries(slots, slots: slots, seed: 6)
        let file = try MemorySideFile(slots: slots, entries: entries)
        defer { file.deallocate() }
        let slack = SharedRecency.slack(forAllocatedSlots: slots)
        let recent = entries.sorted { ($0.lastAccess, $0.slot) < ($1.lastAccess, $1.slot) }.suffix(60).map(\.slot)
        let scattered = (0..<60).map { $0 * 17 }
        for (gallery, most) in [(recent, 0 as UInt64), (scattered, 780)] {
            let before = file.get(.clock)
            for _ in 0..<100 {
                for slot in gallery { SharedRecency.touch(slot, in: file.cells, slack: slack) }
            }
            #expect(file.get(.clock) - before <= most)
            // Each image was at most `slack` behind at its last use; the gallery's own ticks followed.
            #expect(gallery.allSatisfy { file.get(.clock) - file.stamp($0) <= slack + UInt64(gallery.count) })
        }
    }

    /// Two threads using the same two slots at once: the clock ends at the number of stamps given
    /// out, no stamp is beyond it, no two slots share one, and no thread ever sees a stamp move
    /// backwards (a later stamp is never overwritten by an earlier one). Each thread reads every
    /// stamp after each use: with a plain store in place of the exchange, 8 runs out of 8 saw
    /// a stamp move back.
    @Test func concurrentUsesGiveEveryStampOnceAndNeverMoveOneBack() async throws {
        let slots = 2
        let file = try MemorySideFile(slots: slots, entries: Self.entries(slots, slots: slots, seed: 7))
        defer { file.deallocate() }
        // A start line, so that the threads run side by side rather than one after the other.
        let gate = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 64)
        defer { gate.deallocate() }
        gate.storeRelaxed(0, toByteOffset: 0)
        let (address, layout, gateAddress) = (file.address, file.layout, UInt(bitPattern: gate))
        @Sendable func run(seed: UInt64) -> (ticks: UInt64, backwards: Int) {
            let cells = MemorySideFile.cells(address: address, layout: layout)
            let gate = UnsafeMutableRawPointer(bitPattern: gateAddress)!
            gate.fetchAdd(1, atByteOffset: 0)
            var spins = 0  // bounded: a thread started late only makes the overlap shorter
            while UnsafeRawPointer(gate).loadAcquire(fromByteOffset: 0) < 2, spins < 100_000_000 { spins += 1 }
            var rng = Xorshift(seed: seed)
            var seen = [UInt64](repeating: 0, count: slots)
            var ticks: UInt64 = 0, backwards = 0
            for _ in 0..<1_000_000 {
                let slot = Int(rng.next() % UInt64(slots))
                if SharedRecency.touch(slot, in: cells, slack: rng.next() % 4 == 0 ? 1 : 0) { ticks += 1 }
                for s in 0..<slots {
                    let stamp = SharedRecency.stamp(of: s, in: cells)
                    if stamp < seen[s] { backwards += 1 }
                    seen[s] = stamp
                }
            }
            return (ticks, backwards)
        }
        async let first = OwnThread.run { run(seed: 1) }
        async let second = OwnThread.run { run(seed: 2) }
        let (a, b) = await (first, second)
        #expect(a.backwards == 0 && b.backwards == 0)
        let clock = file.get(.clock)
        #expect(clock == UInt64(slots) + a.ticks + b.ticks)
        let stamps = (0..<slots).map(file.stamp)
        #expect(stamps.allSatisfy { $0 <= clock })
        #expect(Set(stamps).count == slots)
    }

    /// A stamp never moves backwards, even when a clock full of garbage wraps to a smaller value.
    @Test func aWrappedClockNeverLowersAStamp() throws {
        let file = try MemorySideFile(slots: 8, entries: Self.entries(8, slots: 8, seed: 8))
        defer { file.deallocate() }
        file.set(.clock, .max)
        file.setStamp(3, 5)
        SharedRecency.touch(3, in: file.cells, slack: 0)
        #expect(file.stamp(3) == 5)
        #expect(file.get(.clock) == 0)
    }

    /// Clock, hand, stamps and slot words set to garbage (random, 0, all ones), slot counts and
    /// samples out of range: nothing traps, every call returns, victims are usable slots in range
    /// found with each slot examined at most once, orders are the included slots by stamp, and
    /// no use lowers a stamp.
    @Test(arguments: [1, 7, 300, 1000])
    func garbageRecencyNeverTrapsOrLoops(slots: Int) throws {
        let file = try MemorySideFile(slots: slots, entries: Self.entries(slots / 2, slots: slots, seed: 9))
        defer { file.deallocate() }
        let cells = file.cells
        var rng = Xorshift(seed: UInt64(slots) * 31)
        func garbage() -> UInt64 {
            switch rng.next() % 4 {
            case 0: return 0
            case 1: return .max
            case 2: return .max - rng.next() % 4
            default: return rng.next()
            }
        }
        for _ in 0..<300 {
            file.set(.clock, garbage())
            file.set(.evictionHand, garbage())
            for slot in 0..<slots {
                file.setStamp(slot, garbage())
                cells.cell(slot).storeRelaxed(garbage(), toByteOffset: SharedCell.wordOffset)
            }
            for _ in 0..<20 {
                let slot = Int(rng.next() % UInt64(slots))
                let before = file.stamp(slot)
                SharedRecency.touch(slot, in: cells, slack: [0, 1, 62, .max][Int(rng.next() % 4)])
                #expect(file.stamp(slot) >= before)
            }
            let claimed = [slots, slots + 1, Int.max, 0, -1][Int(rng.next() % 5)]
            let sample = [256, 1, 0, -3, Int.max][Int(rng.next() % 5)]
            let threshold = rng.next()
            var asked = [Int](repeating: 0, count: slots)
            let victim = SharedRecency.victim(in: cells, allocatedSlots: claimed, sample: sample) { s, w in
                asked[s] += 1
                return w.rawValue < threshold
            }
            #expect(asked.allSatisfy { $0 <= 1 })
            if let victim {
                #expect((0..<slots).contains(victim) && cells.word(victim).rawValue < threshold)
            } else {
                #expect(claimed <= 0 || (0..<slots).allSatisfy { cells.word($0).rawValue >= threshold })
            }
            #expect(file.get(.evictionHand) < UInt64(max(slots, 1)) || claimed <= 0)
            let ordered = SharedRecency.orderedByRecency(cells, allocatedSlots: claimed) { _, w in w.isWellFormed }
            let included = claimed <= 0 ? [] : (0..<slots).filter { cells.word($0).isWellFormed }
            #expect(ordered.sorted() == included)
            #expect(zip(ordered, ordered.dropFirst()).allSatisfy { (file.stamp($0), $0) > (file.stamp($1), $1) })
        }
    }
}
