/// A 128-bit key that names an entry (an entity) or a source image version in a table.
///
/// Keys are derived from strings with two independently seeded 64-bit xxHash values; tables
/// store keys, never the strings themselves, so lookups cost one short hash.
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
        let (h, l) = s.withUTF8 { utf8 -> (UInt64, UInt64) in
            let raw = UnsafeRawBufferPointer(utf8)
            return (XXH64.hash(raw, seed: 0x9E37_79B9_7F4A_7C15), XXH64.hash(raw, seed: 0xC2B2_AE3D_27D4_EB4F))
        }
        self.init(high: h, low: l)
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
