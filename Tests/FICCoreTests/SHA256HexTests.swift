import FICCore
import Testing

/// The hexadecimal digests against FIPS 180-2's published SHA-256 examples.
@Suite struct SHA256HexTests {
    @Test func publishedVectors() {
        #expect(SHA256Hex.digest(of: "abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256Hex.digest(of: "") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            SHA256Hex.digest(of: "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test func aPrefixIsTheDigestsFirstBytes() {
        #expect(SHA256Hex.digest(of: "abc", length: 8) == "ba7816bf8f01cfea")
        #expect(SHA256Hex.digest(of: "abc", length: 1) == "ba")
        let bytes: [UInt8] = Array("abc".utf8)
        #expect(bytes.withUnsafeBytes { SHA256Hex.digest(of: $0, length: 16) } == "ba7816bf8f01cfea414140de5dae2223")
    }
}
