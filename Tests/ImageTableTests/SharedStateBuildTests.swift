import Testing
@testable import ImageTable

/// Building a side file from records, and looking entities up in it: against a reference model
/// of what every field must hold, and against indexes full of garbage.
@Suite struct SharedStateBuildTests {
    static let binding = SharedStateHeader.Binding(device: 7, inode: 99, tableHeaderChecksum: 0xC0FFEE)
    static let nonce: UInt64 = 0xFEED_FACE

    /// Runs `body` with a page-aligned buffer of `count` bytes, each `fill` (so that what the
    /// build does not write shows).
    static func withBuffer<R>(count: Int, fill: UInt8 = 0xA5, _ body: (UnsafeMutableRawBufferPointer) throws -> R) rethrows -> R {
        let p = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 4096)
        defer { p.deallocate() }
        p.initializeMemory(as: UInt8.self, repeating: fill, count: count)
        return try body(UnsafeMutableRawBufferPointer(start: p, count: count))
    }

    static func u64(_ b: UnsafeMutableRawBufferPointer, _ o: Int) -> UInt64 {
        UInt64(littleEndian: b.load(fromByteOffset: o, as: UInt64.self))
    }
    static func u32(_ b: UnsafeMutableRawBufferPointer, _ o: Int) -> UInt64 {
        UInt64(UInt32(littleEndian: b.load(fromByteOffset: o, as: UInt32.self)))
    }

    /// `n` entries in distinct random slots among `slots`, with random versions, sequences and
    /// saved recency (few distinct values, so that ties occur).
    static func entries(_ n: Int, slots: Int, seed: UInt64) -> [SharedStateBuilder.Entry] {
        var rng = Xorshift(seed: seed)
        var all = Array(0..<slots)
        for i in stride(from: all.count - 1, to: 0, by: -1) { all.swapAt(i, Int(rng.next() % UInt64(i + 1))) }
        return (0..<n).map { i in
            SharedStateBuilder.Entry(
                slot: all[i], entity: TableKey("entity \(seed) \(i)"), version: rng.next() >> 10,
                sequence: rng.next() >> 24, lastAccess: rng.next() % 4)
        }
    }

    /// Geometry, allocated chunks, entries, and the bucket count's log2 worked out by hand:
    /// the next power of two ≥ 2 · allocated slots, at least 2.
    @Test(arguments: [
        (4096, 10, 25, 0, 0, 1),  // no slots: 2 buckets
        (4096, 10, 25, 2, 13, 6),  // 20 slots: 40 → 64
        (4096, 10, 25, 3, 25, 6),  // 25 slots, all committed: 50 → 64
        (16384, 300, 1000, 1, 0, 10),  // 300 slots: 600 → 1024
        (16384, 300, 1000, 4, 700, 11)  // 1000 slots: 2000 → 2048
    ])
    func aBuildHoldsWhatTheRecordsSay(pageSize: Int, slotsPerChunk: Int, maximumCount: Int, chunks: Int, n: Int, bucketsLog2: Int) throws {
        let layout = try SharedStateLayout(pageSize: pageSize, slotsPerChunk: slotsPerChunk, maximumCount: maximumCount)
        let slots = min(chunks * slotsPerChunk, maximumCount)
        let entries = Self.entries(n, slots: slots, seed: UInt64(n + chunks))
        try Self.withBuffer(count: layout.maximumLength) { b in
            let summary = try SharedStateBuilder.build(
                into: b, layout: layout, binding: Self.binding, nonce: Self.nonce,
                allocatedChunks: chunks, entries: entries)
            // The reference: stamps by (saved recency, slot); free slots ascending.
            let bySlot = Dictionary(uniqueKeysWithValues: entries.map { ($0.slot, $0) })
            let ranked = entries.sorted { $0.lastAccess < $1.lastAccess || ($0.lastAccess == $1.lastAccess && $0.slot < $1.slot) }
            let stamp = Dictionary(uniqueKeysWithValues: ranked.enumerated().map { ($0.element.slot, UInt64($0.offset + 1)) })
            let free = (0..<slots).filter { bySlot[$0] == nil }
            let nextSequence = entries.map { $0.sequence + 1 }.max() ?? 1

            #expect(
                summary
                    == SharedStateBuilder.Summary(
                        allocatedSlots: slots, buckets: 1 << bucketsLog2, clock: UInt64(n),
                        nextCommitSequence: nextSequence, freeSlots: free.count, unindexed: []))
            let header = SharedStateHeader.decode(UnsafeRawBufferPointer(b), layout: layout, binding: Self.binding, nonce: Self.nonce)
            #expect(throws: Never.self) { try header.get() }

            let control = layout.controlOffset
            #expect((0..<64).allSatisfy { b[control + $0] == 0 }, "the journal is idle")
            #expect(Self.u64(b, control + 64) == UInt64(chunks))
            #expect(Self.u64(b, control + 128) == UInt64(bucketsLog2) << 1)  // region 0, generation 0
            #expect(Self.u64(b, control + 192) == UInt64(n))
            #expect(Self.u64(b, control + 256) == nextSequence)
            #expect(Self.u64(b, control + 320) == 0)
            #expect(Self.u64(b, control + 384) == UInt64(n))
            #expect(Self.u64(b, control + 392) == 0)
            #expect(Self.u64(b, control + 448) == 0)
            #expect(Self.u64(b, control + 512) == (free.first.map { UInt64($0 + 1) } ?? 0))
            let holders = layout.holderTableOffset
            #expect((holders..<(holders + 128 * 64)).allSatisfy { b[$0] == 0 }, "the holder table is empty")

            for slot in 0..<slots {
                let cell = layout.cellOffset(slot: slot)
                if let e = bySlot[slot] {
                    #expect(Self.u64(b, cell) == e.version << 10 | 1, "slot \(slot) is committed")
                    #expect(Self.u64(b, cell + 8) == stamp[slot])
                } else {
                    #expect(Self.u64(b, cell) == 0, "slot \(slot) is free")
                    #expect(Self.u64(b, cell + 8) == 0)
                }
                #expect(Self.u64(b, cell + 16) == 0 && Self.u64(b, cell + 24) == 0, "slot \(slot) is not held")
            }
            var walked: [Int] = []
            var next = Int(Self.u64(b, control + 512))
            while next != 0, walked.count <= slots {
                walked.append(next - 1)
                next = Int(Self.u32(b, layout.cellOffset(slot: next - 1) + 32))
            }
            #expect(walked == free)

            for e in entries {
                #expect(SharedIndex.lookup(e.entity, in: UnsafeRawBufferPointer(b), layout: layout, allocatedSlots: slots) == e.slot)
            }
            for i in 0..<200 {
                #expect(
                    SharedIndex.lookup(TableKey("absent \(i)"), in: UnsafeRawBufferPointer(b), layout: layout, allocatedSlots: slots) == nil
                )
            }
            // Region 1 is not written: it stays a hole in a file.
            #expect(Self.u64(b, layout.regionOffset(1)) == 0xA5A5_A5A5_A5A5_A5A5)
        }
    }

    @Test func aFullTableFindsEverythingWithinThirtyTwoProbes() throws {
        let layout = try SharedStateLayout(pageSize: 4096, slotsPerChunk: 512, maximumCount: 4096)
        let entries = Self.entries(4096, slots: 4096, seed: 5)
        try Self.withBuffer(count: layout.maximumLength) { b in
            let summary = try SharedStateBuilder.build(
                into: b, layout: layout, binding: Self.binding, nonce: Self.nonce,
                allocatedChunks: 8, entries: entries)
            #expect(summary.buckets == 8192 && summary.unindexed.isEmpty && summary.freeSlots == 0)
            #expect(Self.u64(b, layout.controlOffset + 512) == 0, "no free slot")
            for e in entries {
                #expect(SharedIndex.lookup(e.entity, in: UnsafeRawBufferPointer(b), layout: layout, allocatedSlots: 4096) == e.slot)
            }
            // Every entry sits fewer than 32 buckets from its home, with no empty bucket between.
            let entity = Dictionary(uniqueKeysWithValues: entries.map { ($0.slot, $0.entity) })
            var occupied = 0
            for i in 0..<8192 {
                let raw = Self.u64(b, layout.regionOffset(0) + 8 * i)
                guard raw != 0 else { continue }
                occupied += 1
                let slot = Int(raw & 0x1FF_FFFF) - 1
                let e = try #require(entity[slot])
                #expect(raw >> 25 == e.high >> 25)
                let home = Int(e.low & 8191)
                let distance = (i - home + 8192) & 8191
                #expect(distance < 32, "slot \(slot) is \(distance) buckets from home")
                #expect((0..<distance).allSatisfy { Self.u64(b, layout.regionOffset(0) + 8 * ((home + $0) & 8191)) != 0 })
            }
            #expect(occupied == 4096)
        }
    }

    @Test func entriesBeyondThirtyTwoProbesAreReportedNotLost() throws {
        let layout = try SharedStateLayout(pageSize: 4096, slotsPerChunk: 64, maximumCount: 64)
        // 40 entities with home bucket 0 (low half 0) and distinct fingerprints: 32 fit.
        let entries = (0..<40).map {
            SharedStateBuilder.Entry(slot: $0, entity: TableKey(high: UInt64($0 + 1) << 40, low: 0), version: 1, sequence: 1, lastAccess: 0)
        }
        try Self.withBuffer(count: layout.maximumLength) { b in
            let summary = try SharedStateBuilder.build(
                into: b, layout: layout, binding: Self.binding, nonce: Self.nonce,
                allocatedChunks: 1, entries: entries)
            #expect(summary.buckets == 128 && summary.unindexed.count == 8)
            #expect(Self.u64(b, layout.controlOffset + 384) == 32)
            var found = 0
            for e in entries {
                let slot = SharedIndex.lookup(e.entity, in: UnsafeRawBufferPointer(b), layout: layout, allocatedSlots: 64)
                if let slot { #expect(slot == e.slot); found += 1 } else { #expect(summary.unindexed.contains(e.slot)) }
            }
            #expect(found == 32)
        }
    }

    @Test func invalidRequestsWriteNothing() throws {
        let layout = try SharedStateLayout(pageSize: 4096, slotsPerChunk: 10, maximumCount: 25)
        let good = Self.entries(5, slots: 20, seed: 9)
        var duplicateSlot = good
        duplicateSlot[1].slot = good[0].slot
        var duplicateEntity = good
        duplicateEntity[1].entity = good[0].entity
        var outside = good
        outside[2].slot = 20
        var negative = good
        negative[2].slot = -1
        var version = good
        version[3].version = 1 << 54
        var sequence = good
        sequence[3].sequence = (1 << 62) + 1
        let cases: [(count: Int, chunks: Int, nonce: UInt64, entries: [SharedStateBuilder.Entry])] = [
            (layout.maximumLength, 2, Self.nonce, duplicateSlot),
            (layout.maximumLength, 2, Self.nonce, duplicateEntity),
            (layout.maximumLength, 2, Self.nonce, outside),
            (layout.maximumLength, 2, Self.nonce, negative),
            (layout.maximumLength, 2, Self.nonce, version),
            (layout.maximumLength, 2, Self.nonce, sequence),
            (layout.maximumLength, 4, Self.nonce, good),
            (layout.maximumLength, -1, Self.nonce, good),
            (layout.maximumLength, 2, 0, good),
            (layout.fileLength(chunks: 2, region: 0, buckets: 64) - 1, 2, Self.nonce, good)
        ]
        for (n, c) in cases.enumerated() {
            Self.withBuffer(count: c.count) { b in
                let error = #expect(throws: ImageCacheError.self, "case \(n)") {
                    try SharedStateBuilder.build(
                        into: b, layout: layout, binding: Self.binding, nonce: c.nonce, allocatedChunks: c.chunks, entries: c.entries)
                }
                #expect(error?.code == .invalidArgument)
                #expect(b.allSatisfy { $0 == 0xA5 }, "case \(n) wrote nothing")
            }
        }
        // The smallest mapping that holds the build is enough.
        try Self.withBuffer(count: layout.fileLength(chunks: 2, region: 0, buckets: 64)) { b in
            try SharedStateBuilder.build(
                into: b, layout: layout, binding: Self.binding, nonce: Self.nonce, allocatedChunks: 2, entries: good)
            for e in good {
                #expect(SharedIndex.lookup(e.entity, in: UnsafeRawBufferPointer(b), layout: layout, allocatedSlots: 20) == e.slot)
            }
        }
    }

    enum Garbage: CaseIterable { case random, tombstones, fingerprintsOfAnySlot, slotsBeyondTheTable, oneEntryEverywhere }

    /// Buckets full of garbage: every lookup ends (at most 32 buckets read), and any slot it
    /// returns is below the allocated slots the reader passed; the mapping is exactly as long as
    /// the build needs, so a read past it would leave the allocation.
    @Test(arguments: Garbage.allCases)
    func garbageBucketsNeverGiveASlotOutOfRange(garbage: Garbage) throws {
        let layout = try SharedStateLayout(pageSize: 4096, slotsPerChunk: 10, maximumCount: 25)
        let entries = Self.entries(20, slots: 25, seed: 13)
        let length = layout.fileLength(chunks: 3, region: 0, buckets: 64)
        try Self.withBuffer(count: length) { b in
            try SharedStateBuilder.build(
                into: b, layout: layout, binding: Self.binding, nonce: Self.nonce, allocatedChunks: 3, entries: entries)
            var rng = Xorshift(seed: 17)
            let probes = entries.map(\.entity) + (0..<50).map { TableKey("absent \($0)") }
            for round in 0..<20 {
                for (i, target) in probes.enumerated() {
                    for bucket in 0..<64 {
                        let raw: UInt64
                        switch garbage {
                        case .random: raw = rng.next()
                        case .tombstones: raw = ~0
                        case .fingerprintsOfAnySlot: raw = (target.high >> 25) << 25 | rng.next() & 0x1FF_FFFF
                        case .slotsBeyondTheTable: raw = (target.high >> 25) << 25 | UInt64(26 + Int(rng.next() % ((1 << 25) - 27)))
                        case .oneEntryEverywhere: raw = (target.high >> 25) << 25 | UInt64(1 + (round + i) % 25)
                        }
                        b.storeBytes(of: raw.littleEndian, toByteOffset: layout.bucketOffset(region: 0, bucket: bucket), as: UInt64.self)
                    }
                    // The reader may know fewer slots than the file has.
                    let allocated = [25, 10, 1, 0][round % 4]
                    var offered: [Int] = []
                    let slot = SharedIndex.lookup(target, in: UnsafeRawBufferPointer(b), layout: layout, allocatedSlots: allocated) {
                        offered.append($0)
                        return round % 2 == 0 || offered.count > 3
                    }
                    #expect(offered.allSatisfy { (0..<allocated).contains($0) })
                    #expect(offered.count <= 32)
                    if let slot { #expect((0..<allocated).contains(slot)) }
                    switch garbage {
                    case .tombstones, .slotsBeyondTheTable: #expect(slot == nil)
                    case .oneEntryEverywhere:
                        let named = (round + i) % 25
                        #expect(slot == (named < allocated ? named : nil))
                    case .random, .fingerprintsOfAnySlot: break
                    }
                }
            }
        }
    }

    /// Descriptors of any bits: buckets beyond the layout or the mapping are a miss.
    @Test func garbageDescriptorsNeverReadOutsideTheMapping() throws {
        let layout = try SharedStateLayout(pageSize: 4096, slotsPerChunk: 10, maximumCount: 25)
        let entries = Self.entries(20, slots: 25, seed: 19)
        // Region 0's 64 buckets: region 1 lies beyond the end of this mapping.
        let length = layout.fileLength(chunks: 3, region: 0, buckets: 64)
        try Self.withBuffer(count: length) { b in
            try SharedStateBuilder.build(
                into: b, layout: layout, binding: Self.binding, nonce: Self.nonce, allocatedChunks: 3, entries: entries)
            let descriptorAt = layout.controlOffset(.indexDescriptor)
            var rng = Xorshift(seed: 23)
            var raws: [UInt64] = [0, ~0, 1, 1 | 6 << 1, 7 << 1, 63 << 1, 1 | 63 << 1]
            raws += (0..<500).map { _ in rng.next() }
            for raw in raws {
                b.storeBytes(of: raw.littleEndian, toByteOffset: descriptorAt, as: UInt64.self)
                let d = IndexDescriptor(rawValue: raw)
                for e in entries {
                    let slot = SharedIndex.lookup(e.entity, in: UnsafeRawBufferPointer(b), layout: layout, allocatedSlots: 25)
                    if let slot { #expect((0..<25).contains(slot)) }
                    // Region 1 is not mapped here, and region 0 holds at most 64 buckets.
                    if d.region == 1 || d.bucketsLog2 > 6 { #expect(slot == nil) }
                }
            }
            // Too short to hold the control page: a miss.
            let short = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(b)[0..<(descriptorAt + 7)])
            #expect(SharedIndex.lookup(entries[0].entity, in: short, layout: layout, allocatedSlots: 25) == nil)
        }
    }
}
