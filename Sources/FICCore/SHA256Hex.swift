import Crypto

/// SHA-256 digests written as lowercase hexadecimal: the one spelling of the package's content
/// versions, cache entry names and folder namespaces.
package enum SHA256Hex {
    /// The first `length` bytes (all 32 by default) of the SHA-256 of `bytes`, as `2 × length`
    /// lowercase hexadecimal digits.
    package static func digest(of bytes: UnsafeRawBufferPointer, length: Int = 32) -> String {
        precondition((1...32).contains(length), "a SHA-256 digest has 32 bytes")
        return SHA256.hash(data: bytes).withUnsafeBytes { lowercaseHex($0.prefix(length)) }
    }

    /// `bytes` as two lowercase hexadecimal digits each: the one hex encoder of the package (also
    /// the boot identifier's).
    package static func lowercaseHex(_ bytes: some Collection<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(unsafeUninitializedCapacity: 2 * bytes.count) { text in
            for (i, byte) in bytes.enumerated() {
                text[2 * i] = digits[Int(byte >> 4)]
                text[2 * i + 1] = digits[Int(byte & 0x0F)]
            }
            return 2 * bytes.count
        }
    }

    /// The SHA-256 of a string's UTF-8 bytes, as ``digest(of:length:)`` writes it.
    package static func digest(of string: String, length: Int = 32) -> String {
        var copy = string
        return copy.withUTF8 { digest(of: UnsafeRawBufferPointer($0), length: length) }
    }
}
