import FICCore
import FICHarness
import FICTestSupport
import Foundation
@testable import ImageTable
import Testing

/// The writer's changes to the shared index — inserts, removals as tombstones, rebuilds into the
/// other region — against a dictionary as the reference model; a full probe run and a garbage
/// descriptor; and a reader probing without a lock while the writer changes the index, which
/// must never be handed a wrong slot.
@Suite struct SharedIndexWriterTests {
    static let binding = SharedStateHeader.Binding(device: 1, inode: 2, tableHeaderChecksum: 3)

    /// A side file built empty for `chunks` chunks of 64 slots (of at most 1024), in a heap buffer.
    static func withEmptyIndex<R>(chunks: Int = 1, _ body: (UnsafeMutableRawPointer, SharedStateLayout) throws -> R) throws -> R {
        let layout = try SharedStateLayout(pageSize: 4096, slotsPerChunk: 64, maximumCount: 1024)
        return try SharedStateBuildTests.withBuffer(count: layout.maximumLength) { buffer in
            try SharedStateBuilder.build(into: buffer, layout: layout, binding: binding, nonce: 1, allocatedChunks: chunks, entries: [])
            return try body(buffer.baseAddress!, layout)
        }
    }

    static func lookup(
        _ entity: TableKey, _ base: UnsafeMutableRawPointer, _ layout: SharedStateLayout, slots: Int = 1024,
        where accept: (Int) -> Bool = { _ in true }
    ) -> Int? {
        SharedIndex.lookup(
            entity, in: UnsafeRawBufferPointer(start: base, count: layout.maximumLength), layout: layout, allocatedSlots: slots,
            where: accept)
    }

    /// A full table that evicts as it stores (1024 slots, a power of two, so exactly two buckets
    /// each): every store then leaves a tombstone, and a rebuild, which costs a pass over every
    /// entry, comes only once an eighth of the buckets are tombstones, not at every store.
    @Test func aFullTableThatEvictsAsItStoresRebuildsRarely() throws {
        try Self.withEmptyIndex(chunks: 16) { base, layout in
            var slotOf: [TableKey: Int] = [:]
            var order: [TableKey] = []
            for slot in 0..<1024 {
                let entity = TableKey("full-\(slot)")
                #expect(SharedIndexWriter.insert(entity, slot: slot, base: base, layout: layout))
                slotOf[entity] = slot
                order.append(entity)
            }
            var rebuilds = 0
            for step in 0..<10_000 {
                let victim = order.removeFirst(), slot = slotOf.removeValue(forKey: victim)!
                #expect(SharedIndexWriter.remove(victim, slot: slot, base: base, layout: layout))
                let entity = TableKey("next-\(step)")
                // As a store does: rebuild first when needed, and when the entity's probe run has
                // no room (a rare long run of live buckets), rebuild with it.
                if SharedIndexWriter.needsRebuild(base, layout: layout, allocatedSlots: 1024)
                    || !SharedIndexWriter.insert(entity, slot: slot, base: base, layout: layout)
                {
                    slotOf[entity] = slot
                    let unplaced = try SharedIndexWriter.rebuild(
                        slotOf.map { ($0.key, $0.value) }, allocatedSlots: 1024, base: base, layout: layout
                    ) { _ in }
                    #expect(unplaced.isEmpty)
                    rebuilds += 1
                }
                slotOf[entity] = slot
                order.append(entity)
            }
            // 2048 buckets: a rebuild every 256 stores or so.
            #expect(rebuilds <= 10_000 / 200, "\(rebuilds) rebuilds in 10000 stores")
            for (entity, slot) in slotOf {
                #expect(Self.lookup(entity, base, layout) { $0 == slot } == slot)
            }
        }
    }

    @Test func insertsRemovalsAndRebuildsKeepEveryEntityFindable() throws {
        try Self.withEmptyIndex { base, layout in
            var model: [TableKey: Int] = [:]
            var stored: [TableKey] = []  // the model's keys, for picking one at random
            var free = Array((0..<1024).reversed())
            var rng = SplitMix64(seed: 24)
            var allocated = 64, rebuilds = 0
            for step in 0..<8_000 {
                let roll = rng.next() % 10
                if roll < 6 || model.isEmpty, let slot = free.popLast() {
                    allocated = max(allocated, (slot / 64 + 1) * 64)
                    let entity = TableKey("entity-\(step)")
                    if SharedIndexWriter.needsRebuild(base, layout: layout, allocatedSlots: allocated) {
                        let unplaced = try SharedIndexWriter.rebuild(
                            model.map { ($0.key, $0.value) }, allocatedSlots: allocated, base: base, layout: layout
                        ) { _ in }
                        #expect(unplaced.isEmpty)
                        rebuilds += 1
                    }
                    #expect(SharedIndexWriter.insert(entity, slot: slot, base: base, layout: layout), "step \(step)")
                    model[entity] = slot
                    stored.append(entity)
                } else {
                    let pick = Int(rng.next() % UInt64(stored.count))
                    stored.swapAt(pick, stored.count - 1)
                    let entity = stored.removeLast(), slot = model[entity]!
                    #expect(SharedIndexWriter.remove(entity, slot: slot, base: base, layout: layout), "step \(step)")
                    #expect(!SharedIndexWriter.remove(entity, slot: slot, base: base, layout: layout), "removed once only")
                    model[entity] = nil
                    free.append(slot)
                }
                if step % 500 == 0 || step == 7_999 {
                    for (entity, slot) in model {
                        #expect(Self.lookup(entity, base, layout) { $0 == slot } == slot, "step \(step): \(entity) at \(slot)")
                    }
                    #expect(SharedIndexWriter.counts(base, layout: layout).entries == model.count)
                    let descriptor = try #require(SharedIndexWriter.active(base, layout: layout))
                    let (entries, tombstones) = SharedIndexWriter.counts(base, layout: layout)
                    #expect(8 * (entries + tombstones) <= 5 * descriptor.buckets, "at most five eighths full")
                }
            }
            #expect(rebuilds > 3, "the index grew and was cleaned of tombstones: \(rebuilds) rebuilds")
            // Removed entities miss.
            #expect(Self.lookup(TableKey("never stored"), base, layout) == nil)
        }
    }

    @Test func aRebuildWritesTheOtherRegionAndLeavesTheOldOneAsItWas() throws {
        try Self.withEmptyIndex { base, layout in
            let entities = (0..<40).map { TableKey("e\($0)") }
            for (i, e) in entities.enumerated() { #expect(SharedIndexWriter.insert(e, slot: i, base: base, layout: layout)) }
            let before = try #require(SharedIndexWriter.active(base, layout: layout))
            let old = Array(UnsafeRawBufferPointer(start: base + layout.regionOffset(before.region), count: before.buckets * 8))
            var allocatedRange: Range<Int>?
            _ = try SharedIndexWriter.rebuild(entities.enumerated().map { ($1, $0) }, allocatedSlots: 64, base: base, layout: layout) {
                allocatedRange = $0
            }
            let after = try #require(SharedIndexWriter.active(base, layout: layout))
            #expect(after.region == 1 - before.region)
            #expect(after.generation == before.generation + 1)
            #expect(after.buckets == 128)
            #expect(allocatedRange == layout.regionOffset(after.region)..<(layout.regionOffset(after.region) + 4096))
            #expect(
                Array(UnsafeRawBufferPointer(start: base + layout.regionOffset(before.region), count: before.buckets * 8)) == old,
                "a reader still probing the old region finds what it held")
            for (i, e) in entities.enumerated() { #expect(Self.lookup(e, base, layout) == i) }
        }
    }

    @Test func aFullProbeRunOrAGarbageDescriptorRefusesTheInsert() throws {
        try Self.withEmptyIndex(chunks: 0) { base, layout in
            // Two buckets: two entries fill them.
            #expect(SharedIndexWriter.active(base, layout: layout)?.buckets == 2)
            #expect(SharedIndexWriter.insert(TableKey("a"), slot: 0, base: base, layout: layout))
            #expect(SharedIndexWriter.insert(TableKey("b"), slot: 1, base: base, layout: layout))
            #expect(!SharedIndexWriter.insert(TableKey("c"), slot: 2, base: base, layout: layout))
            #expect(SharedIndexWriter.counts(base, layout: layout).entries == 2)

            for garbage: UInt64 in [0, ~0, 63 << 1, UInt64(layout.maximumBucketsLog2 + 1) << 1] {
                base.storeRelease(garbage, toByteOffset: layout.controlOffset(.indexDescriptor))
                #expect(SharedIndexWriter.needsRebuild(base, layout: layout, allocatedSlots: 0))
                #expect(!SharedIndexWriter.insert(TableKey("d"), slot: 3, base: base, layout: layout))
                #expect(!SharedIndexWriter.remove(TableKey("a"), slot: 0, base: base, layout: layout))
                #expect(Self.lookup(TableKey("a"), base, layout) == nil)
            }
            _ = try SharedIndexWriter.rebuild([(TableKey("a"), 0)], allocatedSlots: 2, base: base, layout: layout) { _ in }
            #expect(Self.lookup(TableKey("a"), base, layout) == 0)
        }
    }

    /// Stable entities that the writer never touches, looked up by another thread while the
    /// writer inserts, removes and rebuilds: any slot the reader is handed is the right one.
    @Test func aReaderWithoutALockIsNeverHandedAWrongSlot() async throws {
        let layout = try SharedStateLayout(pageSize: 4096, slotsPerChunk: 64, maximumCount: 1024)
        let memory = UnsafeMutableRawPointer.allocate(byteCount: layout.maximumLength, alignment: 4096)
        defer { memory.deallocate() }
        memory.initializeMemory(as: UInt8.self, repeating: 0, count: layout.maximumLength)
        try SharedStateBuilder.build(
            into: UnsafeMutableRawBufferPointer(start: memory, count: layout.maximumLength), layout: layout,
            binding: Self.binding, nonce: 1, allocatedChunks: 16, entries: [])
        let stable = (0..<32).map { (TableKey("stable-\($0)"), 1000 + $0 % 24) }
        for (e, s) in stable { #expect(SharedIndexWriter.insert(e, slot: s, base: memory, layout: layout)) }
        let address = UInt(bitPattern: memory)
        let done = LockedBox(false), rounds = LockedBox(0)
        async let reader: (Int, Int) = OwnThread.running {
            let base = UnsafeMutableRawPointer(bitPattern: address)!
            var wrong = 0, found = 0
            while !done.withLockedValue({ $0 }) {
                for (e, s) in stable {
                    guard let slot = Self.lookup(e, base, layout) else { continue }
                    found += 1
                    if slot != s { wrong += 1 }
                }
                rounds.withLockedValue { $0 += 1 }
            }
            return (wrong, found)
        }
        var rng = SplitMix64(seed: 7)
        var model: [TableKey: Int] = [:]
        // The writer starts once the reader runs, and goes on until it has read a while.
        try await waitUntil("the reader runs") { rounds.withLockedValue { $0 } > 0 }
        var step = 0
        while step < 10_000 || rounds.withLockedValue({ $0 }) < 500 {
            step += 1
            if model.count < 400 || rng.next() % 2 == 0 {
                let entity = TableKey("churn-\(step)"), slot = Int(rng.next() % 1000)
                if SharedIndexWriter.needsRebuild(memory, layout: layout, allocatedSlots: 1024) {
                    _ = try SharedIndexWriter.rebuild(
                        model.map { ($0.key, $0.value) } + stable, allocatedSlots: 1024, base: memory, layout: layout
                    ) { _ in }
                }
                if SharedIndexWriter.insert(entity, slot: slot, base: memory, layout: layout) { model[entity] = slot }
            } else if let (entity, slot) = model.first {
                SharedIndexWriter.remove(entity, slot: slot, base: memory, layout: layout)
                model[entity] = nil
            }
        }
        done.withLockedValue { $0 = true }
        let (wrong, found) = try await reader
        #expect(wrong == 0, "\(wrong) of \(found) lookups were handed a wrong slot")
        #expect(found > 0)
    }
}
