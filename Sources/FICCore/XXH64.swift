/// The 64-bit xxHash function: the checksums of the image tables (pixels, records, headers) and of
/// the originals cache (entry headers, bodies).
///
/// It lives in the lowest layer because it is a hashing utility that several modules share, not a
/// part of the table format. It detects damage, not tampering: keys that must not collide use
/// SHA-256. Implemented from the published xxHash specification (XXH64).
public enum XXH64 {
    @usableFromInline static let p1: UInt64 = 11_400_714_785_074_694_791
    @usableFromInline static let p2: UInt64 = 14_029_467_366_897_019_727
    @usableFromInline static let p3: UInt64 = 1_609_587_929_392_839_161
    @usableFromInline static let p4: UInt64 = 9_650_029_242_287_828_579
    @usableFromInline static let p5: UInt64 = 2_870_177_450_012_600_261

    @inline(__always) @usableFromInline
    static func rotl(_ x: UInt64, _ r: UInt64) -> UInt64 { (x << r) | (x >> (64 - r)) }

    @inline(__always) @usableFromInline
    static func round(_ acc: UInt64, _ input: UInt64) -> UInt64 {
        rotl(acc &+ input &* p2, 31) &* p1
    }

    @inline(__always) @usableFromInline
    static func merge(_ acc: UInt64, _ val: UInt64) -> UInt64 {
        (acc ^ round(0, val)) &* p1 &+ p4
    }

    /// Hashes `count` bytes at `start` with `seed`.
    public static func hash(_ start: UnsafeRawPointer?, count: Int, seed: UInt64 = 0) -> UInt64 {
        guard let p = start, count > 0 else { return finalize(seed &+ p5, total: 0, p: nil, remaining: 0) }
        var offset = 0
        var h: UInt64
        if count >= 32 {
            var v1 = seed &+ p1 &+ p2
            var v2 = seed &+ p2
            var v3 = seed
            var v4 = seed &- p1
            let limit = count - 32
            while offset <= limit {
                v1 = round(v1, p.loadUnaligned(fromByteOffset: offset, as: UInt64.self).littleEndian)
                v2 = round(v2, p.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self).littleEndian)
                v3 = round(v3, p.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self).littleEndian)
                v4 = round(v4, p.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self).littleEndian)
                offset += 32
            }
            h = rotl(v1, 1) &+ rotl(v2, 7) &+ rotl(v3, 12) &+ rotl(v4, 18)
            h = merge(h, v1)
            h = merge(h, v2)
            h = merge(h, v3)
            h = merge(h, v4)
        } else {
            h = seed &+ p5
        }
        return finalize(h, total: count, p: p + offset, remaining: count - offset)
    }

    @inline(__always) @usableFromInline
    static func finalize(_ hIn: UInt64, total: Int, p: UnsafeRawPointer?, remaining: Int) -> UInt64 {
        var h = hIn &+ UInt64(total)
        var offset = 0
        var remaining = remaining
        if let p {
            while remaining >= 8 {
                let k = round(0, p.loadUnaligned(fromByteOffset: offset, as: UInt64.self).littleEndian)
                h = rotl(h ^ k, 27) &* p1 &+ p4
                offset += 8
                remaining -= 8
            }
            if remaining >= 4 {
                let k = UInt64(p.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian)
                h = rotl(h ^ (k &* p1), 23) &* p2 &+ p3
                offset += 4
                remaining -= 4
            }
            while remaining > 0 {
                let k = UInt64(p.load(fromByteOffset: offset, as: UInt8.self))
                h = rotl(h ^ (k &* p5), 11) &* p1
                offset += 1
                remaining -= 1
            }
        }
        h ^= h >> 33
        h = h &* p2
        h ^= h >> 29
        h = h &* p3
        h ^= h >> 32
        return h
    }

    /// Hashes a buffer.
    public static func hash(_ bytes: UnsafeRawBufferPointer, seed: UInt64 = 0) -> UInt64 {
        hash(bytes.baseAddress, count: bytes.count, seed: seed)
    }

    /// Hashes the UTF-8 bytes of a string.
    public static func hash(_ string: String, seed: UInt64 = 0) -> UInt64 {
        var s = string
        return s.withUTF8 { hash(UnsafeRawBufferPointer($0), seed: seed) }
    }
}
