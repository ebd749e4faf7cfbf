/// SipHash-2-4 with its 128-bit output: a keyed hash that someone who does not know the key cannot
/// make collide, and fast on short inputs (names of a few dozen bytes in a handful of rounds).
///
/// The frame path's memo of table keys identifies names by it (`KeyMemo`): one pass over an
/// entity's name and its source version's instead of four runs of Swift's 64-bit `Hasher`.
/// Implemented from the SipHash paper (Aumasson and Bernstein, 2012); checked against its reference
/// vectors. It hashes a stream of bytes fed in any number of pieces: the result depends only on
/// the bytes, not on how they were split.
public struct SipHash128 {
    @usableFromInline var v0: UInt64, v1: UInt64, v2: UInt64, v3: UInt64
    /// Bytes of an unfinished 8-byte word, from its low end.
    @usableFromInline var tail: UInt64 = 0
    /// Bytes fed so far (only its low byte enters the result, as the algorithm says).
    @usableFromInline var length: Int = 0

    /// A hash keyed by the 128 bits `k0` (the key's first eight bytes, little-endian) and `k1`.
    @inlinable
    package init(k0: UInt64, k1: UInt64) {
        v0 = k0 ^ 0x736f_6d65_7073_6575
        v1 = k1 ^ 0x646f_7261_6e64_6f6d ^ 0xee
        v2 = k0 ^ 0x6c79_6765_6e65_7261
        v3 = k1 ^ 0x7465_6462_7974_6573
    }

    @inlinable @inline(__always)
    static func rotl(_ x: UInt64, _ r: UInt64) -> UInt64 { (x << r) | (x >> (64 - r)) }

    @inlinable @inline(__always)
    mutating func round() {
        v0 &+= v1
        v1 = Self.rotl(v1, 13)
        v1 ^= v0
        v0 = Self.rotl(v0, 32)
        v2 &+= v3
        v3 = Self.rotl(v3, 16)
        v3 ^= v2
        v0 &+= v3
        v3 = Self.rotl(v3, 21)
        v3 ^= v0
        v2 &+= v1
        v1 = Self.rotl(v1, 17)
        v1 ^= v2
        v2 = Self.rotl(v2, 32)
    }

    /// Two compression rounds of one 8-byte word.
    @inlinable @inline(__always)
    mutating func compress(_ m: UInt64) {
        v3 ^= m
        round()
        round()
        v0 ^= m
    }

    /// Feeds `bytes`.
    @inlinable @inline(__always)
    package mutating func combine(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        let count = bytes.count
        var i = 0
        while count - i >= 8 {
            combineWord(UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self)), bytes: 8)
            i += 8
        }
        if i < count {
            var word: UInt64 = 0
            withUnsafeMutableBytes(of: &word) { $0.baseAddress!.copyMemory(from: base + i, byteCount: count - i) }
            combineWord(UInt64(littleEndian: word), bytes: count - i)
        }
    }

    /// Feeds the eight bytes of `value`, little-endian.
    @inlinable @inline(__always)
    package mutating func combine(_ value: UInt64) {
        combineWord(value, bytes: 8)
    }

    /// Feeds the low `n` bytes (1 to 8) of `word`: after the bytes of an unfinished word, the
    /// word is split across it and the next.
    @inlinable @inline(__always)
    mutating func combineWord(_ word: UInt64, bytes n: Int) {
        let filled = length & 7
        length &+= n
        // Smart shifts: by 64 bits they give 0, as an empty tail needs.
        tail |= word << UInt64(8 * filled)
        if filled + n >= 8 {
            compress(tail)
            tail = word >> UInt64(64 - 8 * filled)
        }
    }

    /// The 128-bit result: the first eight bytes of the output, little-endian, then the next eight.
    @inlinable @inline(__always)
    package consuming func finalize() -> (first: UInt64, second: UInt64) {
        compress(tail | UInt64(truncatingIfNeeded: length) << 56)
        v2 ^= 0xee
        round()
        round()
        round()
        round()
        let first = v0 ^ v1 ^ v2 ^ v3
        v1 ^= 0xdd
        round()
        round()
        round()
        round()
        return (first, v0 ^ v1 ^ v2 ^ v3)
    }
}
