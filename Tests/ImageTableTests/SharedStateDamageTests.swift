import FICCore
import FICHarness
@testable import ImageTable
import SystemPackage
import Testing

/// The body of a table's side file damaged while it is live and shared: its control fields,
/// holder table, cells and index buckets set to 0, all ones, random bytes (``SplitMix64``, seeded)
/// and values a writer could have written but that lie (links beyond the slots, buckets naming
/// the wrong slot, words of dead writers, versions that went back), written through a mapping of
/// the test's own, as another process's stray writes would be.
///
/// Each round: table object A stores 20 images, filling five of the table's six chunks; the side
/// file is damaged; B joins the table while A has it open; B stores, A stores (growing the
/// table), both store until the table evicts, and only then do both look everything up (so that what A
/// remembers of its entries from before the damage is put to the test); both close, and a fresh
/// open (alone, so it rebuilds the side file from the table's records) looks everything up again.
/// Every image served is compared with the pattern of the seed it was stored with, an
/// independent reference: a lookup may miss, never return wrong pixels; a store succeeds (and
/// is then found, with its pixels, by both) or fails with an ``ImageCacheError`` whose code says
/// why. The fresh open serves every image stored and not evicted, except those in slots whose
/// cells the damage changed.
@Suite final class SharedStateDamageTests {
    let dir = TemporaryDirectory("shared-damage")
    deinit { dir.cleanup() }

    /// 64×64 RGBA images (16 KiB), 4 slots per chunk, 24 slots: 6 chunks.
    static let c = config(64, 64, max: 24, chunkBytes: 4 * 16384)
    /// Entries A stores before the damage: five full chunks.
    static let before = 20
    /// What the stores may fail with: every slot held (by damaged hold bits), the disk, the writer lock.
    static let storeErrors: Set<ImageCacheError.Code> = [.tableFull, .noSpace, .io, .inUse]

    /// The seed of `name`'s pixels: a fixed function of the name (FNV-1a), so that every store
    /// and every check agree without asking the table.
    static func seed(_ name: String) -> UInt64 {
        name.utf8.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
    }

    typealias Value = HostileFieldTests.Value

    // MARK: The side file, as a damaging process sees it

    /// The side file, mapped writable through a descriptor of the test's own (which takes no lock).
    struct SideFile {
        let path: String
        let mapping: MappedRegion
        let layout: SharedStateLayout

        init(_ path: String) throws {
            self.path = path
            layout = try SharedStateLayout(table: TableLayout(configuration: SharedStateDamageTests.c))
            let fd = try FileDescriptor.open(path, .readWrite)
            defer { try? fd.close() }
            mapping = try MappedRegion(descriptor: fd, offset: 0, length: layout.maximumLength, writable: true, path: path)
        }

        var base: UnsafeMutableRawPointer { mapping.base }

        func load(_ offset: Int) -> UInt64 { UnsafeRawPointer(base).loadRelaxed(fromByteOffset: offset) }
        func store(_ offset: Int, _ value: UInt64) { base.storeRelaxed(value, toByteOffset: offset) }
        func store(_ offset: Int, bytes: [UInt8]) {
            for (i, b) in bytes.enumerated() { base.storeBytes(of: b, toByteOffset: offset + i, as: UInt8.self) }
        }

        /// Slots with cells, as the control page says.
        var allocatedSlots: Int {
            layout.slotCount(chunks: Int(min(load(layout.controlOffset(.allocatedChunks)), UInt64(layout.maximumChunks))))
        }

        /// Where the active index's buckets start, and how many there are.
        var activeIndex: (start: Int, buckets: Int) {
            let d = IndexDescriptor(rawValue: load(layout.controlOffset(.indexDescriptor)))
            return (layout.regionOffset(d.region), d.buckets)
        }

        /// Offsets of the active index's buckets.
        var buckets: [Int] {
            let (start, count) = activeIndex
            return (0..<count).map { start + $0 * SharedStateLayout.bucketLength }
        }

        /// Offsets of the active index's buckets that hold an entry.
        var entryBuckets: [Int] {
            buckets.filter {
                let b = IndexBucket(rawValue: load($0))
                return !b.isEmpty && !b.isTombstone
            }
        }

        /// The holders alive now, as the kernel's locks say (asked through a description of the test's own).
        func liveHolders() throws -> [Int] {
            let fd = try FileDescriptor.open(path, .readOnly)
            defer { try? fd.close() }
            return try HolderTable.entries(base + layout.holderTableOffset, through: fd, ownIndex: nil, path: path).filter(\.isAlive).map(
                \.index)
        }
    }

    /// What a damage knows of the table it damages, and its random numbers.
    struct Known {
        /// The slot of each entry A stored.
        var slots: [String: Int]
        /// A's holder index.
        var holder: Int
        /// Slots with cells.
        var allocatedSlots: Int
        var random: SplitMix64

        /// `width` bytes: all zero, all ones, or random.
        mutating func bytes(_ value: Value, _ width: Int) -> [UInt8] {
            switch value {
            case .zero: return [UInt8](repeating: 0, count: width)
            case .ones: return [UInt8](repeating: 0xFF, count: width)
            case .random: return (0..<width).map { _ in UInt8.random(in: 0...255, using: &random) }
            }
        }

        /// A word: 0, all ones, or random.
        mutating func word(_ value: Value) -> UInt64 {
            switch value {
            case .zero: return 0
            case .ones: return ~0
            case .random: return random.next()
            }
        }

        /// A random number below `bound`.
        mutating func below(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }
    }

    /// A damage: it changes the side file and returns the slots whose cells it changed (their
    /// entries may be lost).
    typealias Damage = (SideFile, inout Known) throws -> Set<Int>

    // MARK: One round

    /// What the round stored (the latest seed of each name) and which stores failed.
    private struct Ledger {
        var seeds: [String: UInt64] = [:]
        var failures: [String] = []
    }

    /// Stores `name` through `table`: a success is then found, with its pixels, by `table` and by `other`.
    private func store(_ name: String, into table: ImageTable, other: ImageTable?, _ ledger: inout Ledger, round: String) {
        let seed = Self.seed(name)
        do {
            let image = try put(table, name, seed: seed)
            #expect(hasPattern(image, seed: seed), "\(round): \(name) was stored with other pixels")
            ledger.seeds[name] = seed
            for t in [table, other].compactMap({ $0 }) {
                let found = t.image(for: key(name))
                #expect(
                    found.map { hasPattern($0, seed: seed) } == true,
                    "\(round): \(name) just stored is \(found == nil ? "missing" : "wrong")")
            }
        } catch let error as ImageCacheError {
            #expect(Self.storeErrors.contains(error.code) && !error.message.isEmpty, "\(round): storing \(name) failed with \(error)")
            ledger.failures.append("\(name): \(error.code)")
        } catch {
            Issue.record("\(round): storing \(name) failed with \(error), not an ImageCacheError")
        }
    }

    /// Looks up every name through `table`; returns those found. Each found image has its pixels.
    @discardableResult
    private func lookUp(_ names: [String], in table: ImageTable, _ ledger: Ledger, round: String, who: String) -> Set<String> {
        var found: Set<String> = []
        for name in names {
            guard let image = table.image(for: key(name)) else { continue }
            #expect(ledger.seeds[name].map { hasPattern(image, seed: $0) } == true, "\(round): \(who) returned wrong pixels for \(name)")
            found.insert(name)
        }
        return found
    }

    /// Everything else a table object does with its side file, each of which must answer
    /// without trusting it: the entry list, a check of every entry, the open processes, the count.
    private func inspect(_ table: ImageTable, _ ledger: Ledger, round: String, who: String) {
        for entry in table.entries() {
            #expect(
                ledger.seeds[entry.label] != nil && entry.entity == key(entry.label), "\(round): \(who) lists \(entry.label), never stored")
        }
        #expect(table.verify(repair: false).isEmpty, "\(round): no pixels were damaged, and \(who)'s check found some")
        let processes = table.openProcesses()
        #expect(processes.count == 2 && processes.filter(\.isThisTable).count == 1, "\(round): \(who) lists \(processes)")
        let statistics = table.statistics
        #expect((0...Self.c.maximumCount).contains(statistics.count), "\(round): \(who) counts \(statistics.count) entries")
    }

    /// Runs one round with `damage` (see the suite's comment).
    private func round(_ round: String, seed: UInt64 = 1, _ damage: Damage) throws {
        let path = dir.file("\(round.filter { $0.isLetter || $0.isNumber }).fictable")
        var ledger = Ledger()
        let a = try ImageTable(path: path, configuration: Self.c)
        try #require(a.statistics.maximumCount == 24)
        for i in 0..<Self.before {
            let name = "e\(i)"
            try put(a, name, seed: Self.seed(name))
            ledger.seeds[name] = Self.seed(name)
        }
        let side = try SideFile(path + "-shared")
        try #require(side.layout.slotsPerChunk == 4 && side.allocatedSlots == Self.before)
        let holders = try side.liveHolders()
        try #require(holders.count == 1)
        var known = Known(
            slots: Dictionary(uniqueKeysWithValues: a.entries().map { ($0.label, $0.slot) }), holder: holders[0],
            allocatedSlots: side.allocatedSlots, random: SplitMix64(seed: seed))
        let damaged = try damage(side, &known)

        // B joins the damaged state; then stores, before any lookup: B first (it may find too few
        // chunks), A grows the table, and both store until the table evicts.
        let b: ImageTable
        do {
            b = try ImageTable(path: path, configuration: Self.c)
        } catch {
            Issue.record("\(round): B could not join: \(error)")
            a.close()
            return
        }
        for (name, table, other) in [
            ("b0", b, a), ("a0", a, b), ("a1", a, b), ("b1", b, a), ("a2", a, b), ("a3", a, b), ("b2", b, a), ("a4", a, b)
        ] {
            store(name, into: table, other: other, &ledger, round: round)
        }
        let names = ledger.seeds.keys.sorted() + ["never"]
        lookUp(names, in: a, ledger, round: round, who: "A")
        lookUp(names, in: b, ledger, round: round, who: "B")
        inspect(a, ledger, round: round, who: "A")
        inspect(b, ledger, round: round, who: "B")
        let servedAtTheEnd = lookUp(names, in: a, ledger, round: round, who: "A").union(
            lookUp(names, in: b, ledger, round: round, who: "B"))
        b.close()
        a.close()

        // Alone, the opener rebuilds the side file from the records: nothing of the damage stays.
        let fresh = try ImageTable(path: path, configuration: Self.c)
        defer { fresh.close() }
        #expect(!fresh.openReport.lostImages && fresh.openReport.uncleanStop == nil, "\(round): \(fresh.openReport)")
        let served = lookUp(names, in: fresh, ledger, round: round, who: "the fresh open")
        #expect(
            servedAtTheEnd.isSubset(of: served),
            "\(round): served before the close, not after: \(servedAtTheEnd.subtracting(served).sorted())")
        let mayBeLost = known.slots.filter { damaged.contains($0.value) }.count
        let expected = min(ledger.seeds.count, Self.c.maximumCount) - mayBeLost
        #expect(
            served.count >= expected,
            "\(round): the fresh open serves \(served.count) of \(ledger.seeds.count) stored (\(mayBeLost) in damaged slots; failed stores: \(ledger.failures))"
        )
        // The rebuilt side file works: a store and its lookup.
        store("after", into: fresh, other: nil, &ledger, round: round)
    }
}

// MARK: The control page

extension SharedStateDamageTests {
    /// How many bytes of a control field's line the field takes.
    static func width(of field: SharedControlField) -> Int {
        switch field {
        case .journal: return SharedJournalField.checksum + 8
        case .entryCounts: return 16
        default: return 8
        }
    }

    @Test(arguments: SharedControlField.allCases, Value.allCases)
    func controlField(_ field: SharedControlField, _ value: Value) throws {
        try round("control \(field) \(value)", seed: UInt64(field.rawValue + 1)) { side, known in
            side.store(side.layout.controlOffset(field), bytes: known.bytes(value, Self.width(of: field)))
            return []
        }
    }

    /// Control values a writer could have written, that do not hold for this table.
    enum ControlLie: String, CaseIterable, Sendable {
        case oneChunk, chunksBeyondTheFile, chunksBeyondTheMaximum
        case indexInTheOtherRegion, indexOfTheMostBuckets, indexOfOneBucket, indexOfTwoBuckets
        case freeListAtACommittedSlot, freeListBeyondTheSlots, freeListBeyondTheMaximum, freeListBeyond32Bits
        case handNearTheEnd, clockAtTheEnd, sequenceAtTheMaximum, sequenceBackToOne
        case entriesAtIntMax, tombstonesAtTheMaximum, countsBothHalfOfIntMax
    }

    @Test(arguments: ControlLie.allCases)
    func controlValueThatLies(_ lie: ControlLie) throws {
        try round("control lie \(lie)") { side, known in
            let l = side.layout
            func set(_ field: SharedControlField, _ value: UInt64, at extra: Int = 0) { side.store(l.controlOffset(field) + extra, value) }
            let descriptor = IndexDescriptor(rawValue: side.load(l.controlOffset(.indexDescriptor)))
            switch lie {
            case .oneChunk: set(.allocatedChunks, 1)
            case .chunksBeyondTheFile: set(.allocatedChunks, UInt64(l.maximumChunks))
            case .chunksBeyondTheMaximum: set(.allocatedChunks, UInt64(l.maximumChunks + 1))
            case .indexInTheOtherRegion:
                set(
                    .indexDescriptor,
                    IndexDescriptor(
                        region: 1 - descriptor.region, bucketsLog2: descriptor.bucketsLog2, generation: descriptor.generation + 1
                    ).rawValue)
            case .indexOfTheMostBuckets:
                set(
                    .indexDescriptor,
                    IndexDescriptor(region: descriptor.region, bucketsLog2: l.maximumBucketsLog2, generation: descriptor.generation)
                        .rawValue)
            case .indexOfOneBucket:
                set(.indexDescriptor, IndexDescriptor(region: descriptor.region, bucketsLog2: 0, generation: 1).rawValue)
            case .indexOfTwoBuckets:
                set(.indexDescriptor, IndexDescriptor(region: descriptor.region, bucketsLog2: 1, generation: 1).rawValue)
            case .freeListAtACommittedSlot: set(.freeListHead, UInt64(known.slots["e7"]! + 1))
            case .freeListBeyondTheSlots: set(.freeListHead, UInt64(known.allocatedSlots + 2))
            case .freeListBeyondTheMaximum: set(.freeListHead, UInt64(l.maximumCount + 1))
            case .freeListBeyond32Bits: set(.freeListHead, 1 << 32 | 1)
            case .handNearTheEnd: set(.evictionHand, ~0 - 1)
            case .clockAtTheEnd: set(.clock, ~0)
            case .sequenceAtTheMaximum: set(.nextCommitSequence, IndexRecord.maximumSequence)
            case .sequenceBackToOne: set(.nextCommitSequence, 1)
            case .entriesAtIntMax: set(.entryCounts, UInt64(Int.max))
            case .tombstonesAtTheMaximum: set(.entryCounts, ~0, at: SharedControlField.tombstonesOffset)
            case .countsBothHalfOfIntMax:
                set(.entryCounts, UInt64(Int.max / 2))
                set(.entryCounts, UInt64(Int.max / 2), at: SharedControlField.tombstonesOffset)
            }
            return []
        }
    }
}

// MARK: The holder table

extension SharedStateDamageTests {
    @Test(arguments: Value.allCases)
    func holderTable(_ value: Value) throws {
        try round("holders \(value)", seed: 11) { side, known in
            side.store(side.layout.holderTableOffset, bytes: known.bytes(value, HolderTable.length))
            return []
        }
    }

    /// Entries that check out (their checksums are right) but name processes that do not hold the table.
    enum HolderLie: String, CaseIterable, Sendable {
        case everyEntryADeadProcess, everyEntryThisProcess, ownEntryADeadProcess, ownEntryCleared
    }

    @Test(arguments: HolderLie.allCases)
    func holderEntryThatLies(_ lie: HolderLie) throws {
        // A process id beyond the kernel's largest (2^22), so that no process has it.
        let dead = ProcessIdentity(pid: 1 << 23, startTime: 12_345)
        try round("holder lie \(lie)") { side, known in
            let entries = side.base + side.layout.holderTableOffset
            switch lie {
            case .everyEntryADeadProcess:
                for h in 0..<HolderTable.capacity { HolderTable.write(h, process: dead, nonce: UInt64(h + 1), into: entries) }
            case .everyEntryThisProcess:
                for h in 0..<HolderTable.capacity {
                    HolderTable.write(h, process: ProcessIdentity.current, nonce: UInt64(h + 1), into: entries)
                }
            case .ownEntryADeadProcess: HolderTable.write(known.holder, process: dead, nonce: 7, into: entries)
            case .ownEntryCleared:
                side.store(side.layout.holderOffset(known.holder), bytes: [UInt8](repeating: 0, count: HolderTable.entryLength))
            }
            return []
        }
    }
}

// MARK: The cells

extension SharedStateDamageTests {
    /// A part of every allocated slot's cell.
    enum CellPart: String, CaseIterable, Sendable {
        case word, lastUse, holdMask, nextFree, wholeCell

        var range: Range<Int> {
            switch self {
            case .word: return SharedCell.wordOffset..<(SharedCell.wordOffset + 8)
            case .lastUse: return SharedCell.lastUseOffset..<(SharedCell.lastUseOffset + 8)
            case .holdMask: return SharedCell.holdMaskOffset..<(SharedCell.holdMaskOffset + 16)
            case .nextFree: return SharedCell.nextFreeOffset..<(SharedCell.nextFreeOffset + 4)
            case .wholeCell: return 0..<SharedStateLayout.cellLength
            }
        }

        /// Whether damage to it may lose the slot's entry: its word says what the slot holds.
        var losesEntries: Bool { self == .word || self == .wholeCell }
    }

    @Test(arguments: CellPart.allCases, Value.allCases)
    func everyCell(_ part: CellPart, _ value: Value) throws {
        try round("cells \(part) \(value)", seed: UInt64(part.range.lowerBound + 100)) { side, known in
            for slot in 0..<known.allocatedSlots {
                side.store(side.layout.cellOffset(slot: slot) + part.range.lowerBound, bytes: known.bytes(value, part.range.count))
            }
            return part.losesEntries ? Set(0..<known.allocatedSlots) : []
        }
    }

    @Test(arguments: CellPart.allCases)
    func randomCells(_ part: CellPart) throws {
        try round("random cells \(part)", seed: UInt64(part.range.lowerBound + 200)) { side, known in
            var damaged: Set<Int> = []
            for _ in 0..<known.allocatedSlots / 3 {
                let slot = known.below(known.allocatedSlots)
                side.store(side.layout.cellOffset(slot: slot) + part.range.lowerBound, bytes: known.bytes(.random, part.range.count))
                damaged.insert(slot)
            }
            return part.losesEntries ? damaged : []
        }
    }

    /// Cell values a writer could have written, that do not hold for this slot.
    enum CellLie: String, CaseIterable, Sendable {
        /// A version two back: a writer taking the slot then commits the very word that was there.
        case committedTwoVersionsBack, freeTwoVersionsBack
        case inFlightOfThisHolder, inFlightOfTheNextHolder, inFlightOfADeadHolder, inFlightOfAHolderBeyondTheTable
        case heldByThisHolder, heldByTheNextHolder, heldByDeadHolders
        case nextFreeBeyondTheSlots, nextFreeBeyondTheMaximum, nextFreeToItself, nextFreeToTheFirst
    }

    @Test(arguments: CellLie.allCases)
    func cellValueThatLies(_ lie: CellLie) throws {
        try round("cell lie \(lie)") { side, known in
            let l = side.layout
            let slots = 0..<known.allocatedSlots
            for slot in slots {
                let cell = l.cellOffset(slot: slot)
                let word = SlotWord(rawValue: side.load(cell + SharedCell.wordOffset))
                let back = word.version >= 2 ? word.version - 2 : SlotWord.maximumVersion - 1 + word.version
                func mask(_ holder: Int) {
                    side.store(
                        cell + SharedCell.holdMaskOffset + 8 * (holder / 64),
                        side.load(cell + SharedCell.holdMaskOffset + 8 * (holder / 64)) | 1 << UInt64(holder % 64))
                }
                func next(_ slotPlusOne: UInt32) {
                    side.store(cell + SharedCell.nextFreeOffset, bytes: withUnsafeBytes(of: slotPlusOne.littleEndian) { Array($0) })
                }
                switch lie {
                case .committedTwoVersionsBack: side.store(cell, SlotWord.committed(version: back).rawValue)
                case .freeTwoVersionsBack: side.store(cell, SlotWord.free(version: back).rawValue)
                case .inFlightOfThisHolder: side.store(cell, SlotWord.inFlight(owner: known.holder, version: word.version + 1).rawValue)
                case .inFlightOfTheNextHolder:
                    side.store(cell, SlotWord.inFlight(owner: known.holder + 1, version: word.version + 1).rawValue)
                case .inFlightOfADeadHolder: side.store(cell, SlotWord.inFlight(owner: 100, version: word.version + 1).rawValue)
                case .inFlightOfAHolderBeyondTheTable: side.store(cell, SlotWord.inFlight(owner: 200, version: word.version + 1).rawValue)
                case .heldByThisHolder: mask(known.holder)
                case .heldByTheNextHolder: mask(known.holder + 1)
                case .heldByDeadHolders: mask(100); mask(63); mask(64)
                case .nextFreeBeyondTheSlots: next(UInt32(known.allocatedSlots + 1 + slot))
                case .nextFreeBeyondTheMaximum: next(UInt32.max - UInt32(slot))
                case .nextFreeToItself: next(UInt32(slot + 1))
                case .nextFreeToTheFirst: next(1)
                }
            }
            // The free list starts among the damaged links.
            if [.nextFreeBeyondTheSlots, .nextFreeBeyondTheMaximum, .nextFreeToItself, .nextFreeToTheFirst].contains(lie) {
                side.store(l.controlOffset(.freeListHead), 4)
            }
            switch lie {
            case .committedTwoVersionsBack, .freeTwoVersionsBack, .inFlightOfThisHolder, .inFlightOfTheNextHolder,
                .inFlightOfADeadHolder, .inFlightOfAHolderBeyondTheTable:
                return Set(slots)
            default:
                return []
            }
        }
    }
}

// MARK: The index

extension SharedStateDamageTests {
    @Test(arguments: Value.allCases)
    func everyBucket(_ value: Value) throws {
        try round("buckets \(value)", seed: 300) { side, known in
            for b in side.buckets { side.store(b, known.word(value)) }
            return []
        }
    }

    /// Buckets a writer could have written, that name the wrong slots.
    enum BucketLie: String, CaseIterable, Sendable {
        case anotherCommittedSlot, swappedInPairs, slotBeyondTheAllocated, slotBeyondTheMaximum, slotBeyond24Bits
        case everyEmptyBucketAnotherSlot, otherRegionGarbage
    }

    @Test(arguments: BucketLie.allCases)
    func bucketThatLies(_ lie: BucketLie) throws {
        try round("bucket lie \(lie)", seed: 400) { side, known in
            let l = side.layout
            let entries = side.entryBuckets
            try #require(entries.count == Self.before)
            /// The bucket at `offset` with its slot replaced by `slotPlusOne` (its fingerprint kept).
            func redirect(_ offset: Int, to slotPlusOne: UInt64) {
                side.store(offset, side.load(offset) & ~((1 << IndexBucket.slotBits) - 1) | slotPlusOne)
            }
            switch lie {
            case .anotherCommittedSlot:
                for b in entries { redirect(b, to: UInt64(known.below(known.allocatedSlots) + 1)) }
            case .swappedInPairs:
                for i in stride(from: 0, to: entries.count - 1, by: 2) {
                    let (x, y) = (side.load(entries[i]), side.load(entries[i + 1]))
                    redirect(entries[i], to: y & ((1 << IndexBucket.slotBits) - 1))
                    redirect(entries[i + 1], to: x & ((1 << IndexBucket.slotBits) - 1))
                }
            case .slotBeyondTheAllocated:
                for b in entries { redirect(b, to: UInt64(known.allocatedSlots + 1 + known.below(l.maximumCount - known.allocatedSlots))) }
            case .slotBeyondTheMaximum:
                for b in entries { redirect(b, to: UInt64(l.maximumCount + 1 + known.below(1000))) }
            case .slotBeyond24Bits:
                for b in entries { redirect(b, to: UInt64(SharedStateLayout.maximumSlots + 1 + known.below(1000))) }
            case .everyEmptyBucketAnotherSlot:
                // Each empty bucket takes the fingerprint of the entry before it and names a random
                // slot, so that every probe runs through wrong candidates up to its limit.
                for b in side.buckets where side.load(b) == 0 {
                    let owner = entries.last { $0 < b } ?? entries.last!
                    let fingerprint = IndexBucket(rawValue: side.load(owner)).fingerprint
                    side.store(b, fingerprint << UInt64(IndexBucket.slotBits) | UInt64(known.below(known.allocatedSlots) + 1))
                }
            case .otherRegionGarbage:
                let descriptor = IndexDescriptor(rawValue: side.load(l.controlOffset(.indexDescriptor)))
                let other = l.regionOffset(1 - descriptor.region)
                for b in 0..<descriptor.buckets { side.store(other + b * SharedStateLayout.bucketLength, known.random.next()) }
                side.store(
                    l.controlOffset(.indexDescriptor),
                    IndexDescriptor(
                        region: 1 - descriptor.region, bucketsLog2: descriptor.bucketsLog2,
                        generation: descriptor.generation + 1
                    ).rawValue)
            }
            return []
        }
    }
}
