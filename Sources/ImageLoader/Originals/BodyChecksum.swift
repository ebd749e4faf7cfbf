#if Loader
import FICCore

/// The checksum of an entry's body: XXH64 over blocks of 64 KiB, each block hashed with the
/// previous block's hash as its seed, the last (partial) block and the length mixed in at the end.
/// Computed as bytes arrive in chunks of any size, and checked the same way when read.
///
/// It guards against damage (a torn write after a power failure, a truncated or altered file), not
/// against someone who can write the cache folder (who could write any checksum); the entry's
/// identity is checked by comparing its full URL. Several times faster than SHA-256 here.
package struct BodyChecksum {
    static let blockBytes = 1 << 16
    private var state: UInt64 = 0x4649_434F_5249_4731  // "FICORIG1"
    private var staging: [UInt8] = []
    private var total: UInt64 = 0

    /// A checksum of nothing yet.
    package init() {}

    /// Adds `bytes`.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        total &+= UInt64(bytes.count)
        var rest = bytes
        if !staging.isEmpty {
            let take = min(Self.blockBytes - staging.count, rest.count)
            staging += rest[0..<take]
            rest = UnsafeRawBufferPointer(rebasing: rest[take...])
            if staging.count == Self.blockBytes {
                state = staging.withUnsafeBytes { XXH64.hash($0, seed: state) }
                staging.removeAll(keepingCapacity: true)
            }
        }
        while rest.count >= Self.blockBytes {
            state = XXH64.hash(UnsafeRawBufferPointer(rebasing: rest[0..<Self.blockBytes]), seed: state)
            rest = UnsafeRawBufferPointer(rebasing: rest[Self.blockBytes...])
        }
        if !rest.isEmpty {
            if staging.capacity < Self.blockBytes { staging.reserveCapacity(Self.blockBytes) }
            staging += rest
        }
    }

    /// Adds `bytes`.
    mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The checksum of everything added.
    package func finalize() -> UInt64 {
        let last = staging.withUnsafeBytes { XXH64.hash($0, seed: state) }
        return withUnsafeBytes(of: total.littleEndian) { XXH64.hash($0, seed: last) }
    }

    /// The checksum of `bytes`.
    static func of(_ bytes: [UInt8]) -> UInt64 {
        var c = BodyChecksum()
        c.update(bytes)
        return c.finalize()
    }
}
#endif
