import FICCore
import Testing

@Suite struct XXH64Tests {
    @Test func xxh64MatchesPublishedVectors() {
        #expect(XXH64.hash("", seed: 0) == 0xEF46_DB37_51D8_E999)
        #expect(XXH64.hash("a", seed: 0) == 0xD24E_C4F1_A98C_6E5B)
        #expect(XXH64.hash("abc", seed: 0) == 0x44BC_2CF5_AD77_0999)
    }

    /// Inputs of 32 bytes and more go through the four-lane loop. The first value is the one
    /// python-xxhash's documentation publishes; the others were computed with python-xxhash
    /// (the reference C implementation), not with this code.
    @Test func fourLaneInputsMatchTheReferenceImplementation() {
        #expect(XXH64.hash("Nobody inspects the spammish repetition", seed: 0) == 0xFBCE_A83C_8A37_8BF1)
        let seed: UInt64 = 0x9E37_79B1_85EB_CA87
        let cases: [([UInt8], UInt64, UInt64)] = [
            (Array(repeating: UInt8(ascii: "a"), count: 32), 0x856E_8432_98F9_9AD7, 0xB117_8171_79C0_E494),
            (Array(0..<64), 0xF7C6_7301_DB67_13F0, 0x2006_C268_B7D3_4F54),
            (Array(repeating: UInt8(ascii: "x"), count: 100), 0x92F0_DE5A_88A3_C094, 0x7A26_8F0B_8B03_F315),
            (
                Array("The quick brown fox jumps over the lazy dog, twice: the quick brown fox!".utf8), 0xCFE7_3EE5_DC45_53E5,
                0x5F3A_96E6_1753_0775
            )
        ]
        for (bytes, unseeded, seeded) in cases {
            #expect(bytes.withUnsafeBytes { XXH64.hash($0, seed: 0) } == unseeded, "\(bytes.count) bytes")
            #expect(bytes.withUnsafeBytes { XXH64.hash($0, seed: seed) } == seeded, "\(bytes.count) bytes, seeded")
        }
    }

    @Test func longInputsUseAllLanes() {
        let a = String(repeating: "x", count: 100)
        var b = a
        b.replaceSubrange(b.index(b.startIndex, offsetBy: 50)...b.index(b.startIndex, offsetBy: 50), with: "y")
        #expect(XXH64.hash(a) != XXH64.hash(b))
        #expect(XXH64.hash(a) == XXH64.hash(String(repeating: "x", count: 100)))
    }
}
