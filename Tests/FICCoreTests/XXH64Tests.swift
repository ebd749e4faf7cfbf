import FICCore
import Testing

@Suite struct XXH64Tests {
    @Test func xxh64MatchesPublishedVectors() {
        #expect(XXH64.hash("", seed: 0) == 0xEF46_DB37_51D8_E999)
        #expect(XXH64.hash("a", seed: 0) == 0xD24E_C4F1_A98C_6E5B)
        #expect(XXH64.hash("abc", seed: 0) == 0x44BC_2CF5_AD77_0999)
    }

    @Test func longInputsUseAllLanes() {
        let a = String(repeating: "x", count: 100)
        var b = a
        b.replaceSubrange(b.index(b.startIndex, offsetBy: 50)...b.index(b.startIndex, offsetBy: 50), with: "y")
        #expect(XXH64.hash(a) != XXH64.hash(b))
        #expect(XXH64.hash(a) == XXH64.hash(String(repeating: "x", count: 100)))
    }
}
