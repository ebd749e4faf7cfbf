import Testing
@testable import ImageTable

/// The slot word, the index bucket and the index descriptor against bit patterns worked out by hand.
@Suite struct SharedStateWordTests {
    @Test func slotWordsEncodeAsSpecified() {
        // version << 10 | (owner + 1) << 2 | state
        #expect(SlotWord.free(version: 0).rawValue == 0)
        #expect(SlotWord.committed(version: 5).rawValue == 0x1401)
        #expect(SlotWord.inFlight(owner: 3, version: 7).rawValue == 0x1C12)
        #expect(SlotWord.inFlight(owner: 254, version: 0).rawValue == 0x3FE)
        #expect(SlotWord.free(version: (1 << 54) - 1).rawValue == 0xFFFF_FFFF_FFFF_FC00)
        #expect(SlotWord.committed(version: (1 << 54) - 1).rawValue == 0xFFFF_FFFF_FFFF_FC01)
    }

    @Test func slotWordsDecodeAnyBits() {
        let w = SlotWord(rawValue: 0x1C12)
        #expect(w.state == .inFlight && w.owner == 3 && w.version == 7 && w.isWellFormed)
        let c = SlotWord(rawValue: 0x1401)
        #expect(c.state == .committed && c.owner == nil && c.version == 5 && c.isWellFormed)
        // State 3 is never written.
        #expect(SlotWord(rawValue: 3).state == nil && !SlotWord(rawValue: 3).isWellFormed)
        // A committed or free word naming an owner, an in-flight one naming none.
        #expect(!SlotWord(rawValue: 0x5).isWellFormed)
        #expect(!SlotWord(rawValue: 0x4).isWellFormed)
        #expect(!SlotWord(rawValue: 0x2).isWellFormed)
        let ones = SlotWord(rawValue: ~0)
        #expect(ones.state == nil && ones.owner == 254 && ones.version == (1 << 54) - 1)
    }

    @Test func slotWordsRoundTrip() {
        var rng = Xorshift(seed: 7)
        for _ in 0..<10_000 {
            let version = rng.next() >> 10
            let owner = Int(rng.next() % 255)
            let state = rng.next() % 3
            let w: SlotWord =
                state == 0 ? .free(version: version) : state == 1 ? .committed(version: version) : .inFlight(owner: owner, version: version)
            let back = SlotWord(rawValue: w.rawValue)
            #expect(back == w && back.version == version && back.isWellFormed)
            #expect(back.state?.rawValue == state)
            #expect(back.owner == (state == 2 ? owner : nil))
        }
    }

    @Test func bucketsEncodeAsSpecified() {
        // The top 39 bits of the entity's high half, above slot + 1.
        #expect(IndexBucket(entity: TableKey(high: ~0, low: 0), slot: 0).rawValue == 0xFFFF_FFFF_FE00_0001)
        #expect(IndexBucket(entity: TableKey(high: 0x0123_4567_89AB_CDEF, low: 0), slot: 41).rawValue == 0x0123_4567_8800_002A)
        #expect(IndexBucket(entity: TableKey(high: 0, low: 0), slot: (1 << 24) - 1).rawValue == 0x0100_0000)
        #expect(IndexBucket.fingerprint(of: TableKey(high: 0x0123_4567_89AB_CDEF, low: 0)) == 0x91A2_B3C4)
        #expect(IndexBucket.home(of: TableKey(high: 0, low: 0x1234_5678), mask: 0xFF) == 0x78)
        #expect(IndexBucket.home(of: TableKey(high: 0, low: ~0), mask: (1 << 25) - 1) == (1 << 25) - 1)
    }

    @Test func bucketsDecodeAnyBits() {
        #expect(IndexBucket(rawValue: 0).isEmpty && IndexBucket(rawValue: 0).slot == nil)
        #expect(IndexBucket(rawValue: ~0).isTombstone && IndexBucket(rawValue: ~0).slot == nil)
        #expect(IndexBucket(rawValue: 0x0123_4567_8800_002A).slot == 41)
        #expect(IndexBucket(rawValue: 0x0123_4567_8800_002A).fingerprint == 0x91A2_B3C4)
        #expect(IndexBucket(rawValue: 1 << 25).slot == nil)  // slot + 1 = 0
        #expect(IndexBucket(rawValue: 0x0100_0001).slot == nil)  // slot + 1 = 2^24 + 1
        #expect(IndexBucket(rawValue: 0x01FF_FFFF).slot == nil)
        #expect(IndexBucket(rawValue: 0x0100_0000).slot == (1 << 24) - 1)
        let e = TableKey(high: 0x0123_4567_89AB_CDEF, low: 9)
        let b = IndexBucket(entity: e, slot: 3)
        #expect(b.matches(e))
        // Only the top 39 bits are kept: the low 25 bits of the high half do not tell entities apart.
        #expect(b.matches(TableKey(high: 0x0123_4567_8800_0000, low: 1)))
        #expect(!b.matches(TableKey(high: 0x0123_4567_8A00_0000, low: 9)))
        #expect(!IndexBucket.tombstone.matches(TableKey(high: ~0, low: 0)))
        #expect(!IndexBucket.empty.matches(TableKey(high: 0, low: 0)))
    }

    @Test func bucketsRoundTripAndAreNeverEmptyOrTombstones() {
        var rng = Xorshift(seed: 11)
        for _ in 0..<10_000 {
            let e = TableKey(high: rng.next(), low: rng.next())
            let slot = Int(rng.next() % (1 << 24))
            let b = IndexBucket(entity: e, slot: slot)
            #expect(!b.isEmpty && !b.isTombstone)
            #expect(b.slot == slot && b.matches(e) && b.fingerprint == e.high >> 25)
        }
    }

    @Test func descriptorsEncodeAsSpecified() {
        // generation << 7 | log2 << 1 | region
        #expect(IndexDescriptor(region: 1, bucketsLog2: 6, generation: 3).rawValue == 0x18D)
        #expect(IndexDescriptor(region: 0, bucketsLog2: 25, generation: 0).rawValue == 0x32)
        let d = IndexDescriptor(rawValue: ~0)
        #expect(d.region == 1 && d.bucketsLog2 == 63 && d.generation == (1 << 57) - 1)
        let back = IndexDescriptor(rawValue: 0x18D)
        #expect(back.region == 1 && back.bucketsLog2 == 6 && back.generation == 3 && back.buckets == 64)
    }
}
