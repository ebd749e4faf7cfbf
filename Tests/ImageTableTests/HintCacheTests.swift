import Testing

@testable import ImageTable

/// The per-process hints a lookup reads first: a hint answers only for its own key, and a full
/// set gives one up rather than growing.
@Suite struct HintCacheTests {
    static func hint(_ n: Int) -> TableState.Hint {
        TableState.Hint(
            slot: n, cell: 64 * n, word: SlotWord(rawValue: UInt64(n)), source: TableKey(high: 0, low: UInt64(n)),
            pixelChecksum: UInt64(n), verified: true)
    }

    @Test func keysOfOneSetKeepTheirOwnHintsAndAFullSetGivesOneUp() {
        var cache = HintCache(capacity: 64)
        // Same low bits: one set, five keys for its four ways.
        let keys = (0..<5).map { TableKey(high: UInt64($0) << 40 | 7, low: 0xABC0) }
        for (i, key) in keys.enumerated() { cache[key] = Self.hint(i) }
        let found = keys.enumerated().filter { cache[$0.element]?.slot == $0.offset }
        #expect(found.count == HintCache.ways)
        #expect(cache[keys[4]]?.slot == 4, "the newest key keeps its hint")
        for (i, key) in keys.enumerated() { #expect(cache[key] == nil || cache[key]?.slot == i) }
        // A key differing only in its high half is another key.
        #expect(cache[TableKey(high: 99, low: 0xABC0)] == nil)
        cache[keys[4]] = nil
        #expect(cache[keys[4]] == nil)
        cache[keys[4]] = Self.hint(40)
        #expect(cache[keys[4]]?.slot == 40)
        cache.removeAll()
        #expect(keys.allSatisfy { cache[$0] == nil })
    }

    @Test func aChangedHintReplacesTheOld() {
        var cache = HintCache(capacity: 8)
        let key = TableKey("photo")
        cache[key] = Self.hint(1)
        cache[key]?.verified = false
        #expect(cache[key]?.verified == false && cache[key]?.slot == 1)
    }
}
