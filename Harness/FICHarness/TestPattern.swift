import Glibc
import ImageTable

/// Deterministic pixel patterns derived from an entry's keys, so that tests and the crash
/// crash self-test's writer can check that a stored image holds exactly the pixels drawn for it.
public enum TestPattern {
    /// The pattern seed of an entry.
    public static func seed(entity: TableKey, source: TableKey) -> UInt64 {
        entity.high ^ (source.low &* 0x9E37_79B9_7F4A_7C15) ^ 0x5DEE_CE66_D
    }

    /// Fills `count` bytes with the pattern of `seed`.
    public static func fill(_ p: UnsafeMutableRawPointer, count: Int, seed: UInt64) {
        var x = seed | 1
        // Whole words through a typed pointer: the harness runs unoptimised (and sanitized) in the
        // tests, where the generic `storeBytes` cost a call into the runtime for every word.
        let words = p.bindMemory(to: UInt64.self, capacity: count / 8)
        var i = 0
        while i < count / 8 {
            x ^= x &<< 13; x ^= x &>> 7; x ^= x &<< 17
            words[i] = x
            i += 1
        }
        i *= 8
        while i < count {
            p.storeBytes(of: UInt8(truncatingIfNeeded: x >> UInt64(i % 8)), toByteOffset: i, as: UInt8.self)
            i += 1
        }
    }

    /// Whether `image` holds exactly the pattern of its own keys.
    public static func matches(_ image: StoredImage) -> Bool {
        let expected = UnsafeMutableRawPointer.allocate(byteCount: image.byteCount, alignment: 64)
        defer { expected.deallocate() }
        fill(expected, count: image.byteCount, seed: seed(entity: image.entity, source: image.source))
        // memcmp, not `elementsEqual`: unoptimised, that compared byte by byte through the generic
        // sequence code, and the crash and torture tests' processes spent a third of their time there.
        return image.withUnsafeBytes { stored in
            stored.count == image.byteCount && (stored.count == 0 || memcmp(stored.baseAddress!, expected, stored.count) == 0)
        }
    }
}
