import FICCore
import Testing

@Suite struct SipHash128Tests {
    /// The reference implementation's vectors (`vectors_sip128` of the SipHash authors' repository):
    /// key 00 01 … 0f, message 00 01 … (n − 1), the 16 output bytes in order. Lengths around each
    /// word boundary, so that every tail length and the length byte are exercised.
    static let vectors: [(length: Int, hex: String)] = [
        (0, "a3817f04ba25a8e66df67214c7550293"), (1, "da87c1d86b99af44347659119b22fc45"),
        (7, "a1f1ebbed8dbc153c0b84aa61ff08239"), (8, "3b62a9ba6258f5610f83e264f31497b4"),
        (15, "5493e99933b0a8117e08ec0f97cfc3d9"), (16, "6ee2a4ca67b054bbfd3315bf85230577"),
        (17, "473d06e8738db89854c066c47ae47740"), (63, "5150d1772f50834a503e069a973fbd7c")
    ]
    static let k0: UInt64 = 0x0706_0504_0302_0100
    static let k1: UInt64 = 0x0f0e_0d0c_0b0a_0908

    /// The 16 output bytes as the vectors write them: `first`, then `second`, each least significant byte first.
    static func hex(_ result: (first: UInt64, second: UInt64)) -> String {
        var bytes: [UInt8] = []
        for word in [result.first, result.second] { withUnsafeBytes(of: word.littleEndian) { bytes += $0 } }
        return SHA256Hex.lowercaseHex(bytes)
    }

    @Test func matchesTheReferenceVectors() {
        for (length, expected) in Self.vectors {
            let message = (0..<length).map { UInt8($0) }
            var hash = SipHash128(k0: Self.k0, k1: Self.k1)
            message.withUnsafeBytes { hash.combine($0) }
            #expect(Self.hex(hash.finalize()) == expected, "\(length) bytes")
        }
    }

    /// The result depends on the bytes only: the 63-byte vector fed in every split into two
    /// pieces, and byte by byte.
    @Test func piecesGiveTheHashOfTheWhole() {
        let message = (0..<63).map { UInt8($0) }
        let expected = Self.vectors.last!.hex
        for split in 0...63 {
            var hash = SipHash128(k0: Self.k0, k1: Self.k1)
            message.withUnsafeBytes { all in
                hash.combine(UnsafeRawBufferPointer(rebasing: all[..<split]))
                hash.combine(UnsafeRawBufferPointer(rebasing: all[split...]))
            }
            #expect(Self.hex(hash.finalize()) == expected, "split at \(split)")
        }
        var bytewise = SipHash128(k0: Self.k0, k1: Self.k1)
        for byte in message { withUnsafeBytes(of: byte) { bytewise.combine($0) } }
        #expect(Self.hex(bytewise.finalize()) == expected)
        // A word fed as a value is its eight little-endian bytes.
        var words = SipHash128(k0: Self.k0, k1: Self.k1)
        words.combine(0x0706_0504_0302_0100)
        words.combine(0x0f0e_0d0c_0b0a_0908)
        #expect(Self.hex(words.finalize()) == "6ee2a4ca67b054bbfd3315bf85230577")
    }
}
