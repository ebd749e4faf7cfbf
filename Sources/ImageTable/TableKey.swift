import FICCore

/// A 128-bit key that names an entry (an entity) or a source image version in a table.
///
/// Keys are the first 128 bits of the SHA-256 of a string, so that nobody can make two names
/// (or two source versions) share a key: finding such a pair takes about 2⁶⁴ hashes. Tables
/// store keys, never the names themselves.
public struct TableKey: Sendable, Hashable, CustomStringConvertible {
    /// The high 64 bits.
    public var high: UInt64
    /// The low 64 bits.
    public var low: UInt64

    /// Creates a key from its two halves.
    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Derives a key from a string (for example an entity identifier or a source image identifier).
    public init(_ string: String) {
        var s = string
        self = s.withUTF8 { Self(hashing: UnsafeRawBufferPointer($0)) }
    }

    /// Derives a key from bytes.
    public init(hashing bytes: UnsafeRawBufferPointer) {
        (high, low) = SHA256Hex.withDigest(of: bytes) { d in
            (
                UInt64(bigEndian: d.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
                UInt64(bigEndian: d.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            )
        }
    }

    /// Feeds the low half to the hasher: keys are already uniformly distributed hashes.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(low)
    }

    /// The key as 32 hexadecimal digits.
    public var description: String {
        let hs = String(high, radix: 16)
        let ls = String(low, radix: 16)
        return String(repeating: "0", count: 16 - hs.count) + hs + String(repeating: "0", count: 16 - ls.count) + ls
    }
}
