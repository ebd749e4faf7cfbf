import FICTestSupport
import Foundation
import ImageTable
import Testing

@testable import FastImageCache

/// The memo of table keys a frame's lookup reads without a lock: whatever it holds and whoever
/// writes it meanwhile, the keys it gives are the SHA-256 keys of the names asked for.
@Suite struct KeyMemoTests {
    @Test func givesEachNameItsOwnKeysWhenMoreNamesThanEntriesShareTheSets() {
        let memo = KeyMemo()
        // Three times the capacity: every set overflows, names take ways from each other.
        let names = (0..<(3 * KeyMemo.capacity)).map { "entity-\($0)" }
        for round in 0..<2 {
            for (i, name) in names.enumerated() {
                let source = "v\(i % 3)"
                let keys = memo.keys(name, source)
                #expect(keys.entity == TableKey(name) && keys.source == TableKey(source), "round \(round), \(name)")
            }
        }
        for name in names.prefix(100) { #expect(memo.key(name) == TableKey(name)) }
    }

    @Test func aNewSourceVersionGivesTheNewSourcesKey() {
        let memo = KeyMemo()
        #expect(memo.keys("photo", "v1").source == TableKey("v1"))
        #expect(memo.keys("photo", "v2").source == TableKey("v2"))
        #expect(memo.keys("photo", "v1") == (TableKey("photo"), TableKey("v1")))
        // Swift calls the two spellings equal; the tables key their bytes, so each keeps its own.
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        #expect(composed == decomposed && TableKey(composed) != TableKey(decomposed))
        #expect(memo.keys(composed, "v1").entity == TableKey(composed))
        #expect(memo.keys(decomposed, "v1").entity == TableKey(decomposed))
        #expect(memo.key(composed) == TableKey(composed))
    }

    @Test func readersRacingWritersNeverGetAnotherNamesKeys() async {
        let memo = KeyMemo()
        // More names than entries, so that writers keep replacing the entries readers read.
        let names = (0..<(2 * KeyMemo.capacity)).map { "racing-\($0)" }
        let expected = names.map { (TableKey($0), TableKey($0 + "/v")) }
        let wrong = await withTaskGroup(of: Int.self) { group in
            for thread in 0..<4 {
                group.addTask {
                    await OwnThread.run {
                        var wrong = 0
                        for i in 0..<20_000 {
                            let k = (i * 7919 + thread * 13) % names.count
                            let keys = memo.keys(names[k], names[k] + "/v")
                            if keys.entity != expected[k].0 || keys.source != expected[k].1 { wrong += 1 }
                        }
                        return wrong
                    }
                }
            }
            return await group.reduce(0, +)
        }
        #expect(wrong == 0)
    }

    @Test func aReaderNeverSeesHalfOfOneWriteAndHalfOfTheNext() async {
        let memo = KeyMemo()
        let name = memo.hash("torn", "v")
        let keys = [TableKey(high: 1, low: 1), TableKey(high: 2, low: 2)]
        memo.write(name, entityKey: keys[0], sourceKey: keys[0])
        let iterations = 2_000_000
        async let written: Void = OwnThread.run {
            for i in 0..<iterations { memo.write(name, entityKey: keys[i & 1], sourceKey: keys[i & 1]) }
        }
        let (torn, missing) = await OwnThread.run { () -> (Int, Int) in
            var torn = 0, missing = 0
            for _ in 0..<iterations {
                guard let found = memo.read(name) else {
                    missing += 1
                    continue
                }
                if !keys.contains(found.entity) || found.source != found.entity { torn += 1 }
            }
            return (torn, missing)
        }
        await written
        #expect(torn == 0, "\(torn) reads mixed two writes (\(missing) found the entry being written)")
    }

    /// No two pairs of names feed the hash the same bytes: a name and its source version are not
    /// another split of the same characters, and a name alone is not a name with a source.
    @Test func pairsThatShareTheirCharactersHaveTheirOwnEntries() {
        let memo = KeyMemo()
        #expect(memo.keys("ab", "c") == (TableKey("ab"), TableKey("c")))
        #expect(memo.keys("a", "bc") == (TableKey("a"), TableKey("bc")))
        #expect(memo.key("ab") == TableKey("ab"))
        #expect(memo.keys("ab", "") == (TableKey("ab"), TableKey("")))
        #expect(memo.hash("ab", "c") != memo.hash("a", "bc"))
        #expect(memo.hash("ab", nil) != memo.hash("ab", ""))
        // Each memo has its own key: the same names hash differently in another.
        #expect(KeyMemo().hash("ab", "c") != memo.hash("ab", "c"))
    }
}
