/// One bucket of the shared index: a hint mapping an entity to the slot that may hold it. The
/// slot's word and sealed record are the truth; a bucket only says where to look.
///
/// ```
/// 0                        empty: a probe stops here
/// all ones                 tombstone: an entry was removed; a probe goes on
/// otherwise                fingerprint << 25 | (slot + 1)
/// ```
/// The fingerprint is the top 39 bits of the entity's high half; the entity's low half picks the
/// home bucket. Keys are SHA-256, so both are uniformly distributed. A slot + 1 of at most 2^24
/// keeps every entry different from the tombstone. Probing is linear, at most
/// ``maximumProbes`` buckets from home.
struct IndexBucket: Equatable {
    /// The bucket as stored.
    let rawValue: UInt64

    /// An empty bucket.
    static let empty = IndexBucket(rawValue: 0)
    /// A removed entry's bucket.
    static let tombstone = IndexBucket(rawValue: ~0)
    /// The most buckets a lookup reads, from the home bucket on.
    static let maximumProbes = 32
    /// Bits of a bucket that hold slot + 1.
    static let slotBits = 25
    private static let slotMask: UInt64 = (1 << slotBits) - 1

    /// The bucket `rawValue`, whatever it holds.
    init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// The bucket saying `entity` may be in `slot` (0 ≤ slot < 2^24).
    init(entity: TableKey, slot: Int) {
        precondition((0..<SharedStateLayout.maximumSlots).contains(slot), "a slot a bucket can name")
        rawValue = Self.fingerprint(of: entity) << Self.slotBits | UInt64(slot + 1)
    }

    /// The 39-bit fingerprint a bucket keeps of `entity`.
    static func fingerprint(of entity: TableKey) -> UInt64 { entity.high >> slotBits }

    /// The home bucket of `entity` in an index of `mask` + 1 buckets (a power of two).
    static func home(of entity: TableKey, mask: Int) -> Int { Int(truncatingIfNeeded: entity.low & UInt64(mask)) }

    /// The buckets a probe from bucket `home` reads, in order, in an index of `buckets` buckets
    /// (a power of two): linearly on, wrapping, at most ``maximumProbes`` and never one twice.
    static func probes(from home: Int, buckets: Int) -> some Sequence<Int> {
        (0..<min(maximumProbes, buckets)).lazy.map { (home + $0) & (buckets - 1) }
    }

    /// Whether the bucket is empty.
    var isEmpty: Bool { rawValue == 0 }

    /// Whether the bucket is a tombstone.
    var isTombstone: Bool { rawValue == ~0 }

    /// The slot an entry names; nil for empty buckets, tombstones and a slot + 1 beyond 2^24.
    var slot: Int? {
        guard !isEmpty, !isTombstone else { return nil }
        let slotPlusOne = Int(rawValue & Self.slotMask)
        guard (1...SharedStateLayout.maximumSlots).contains(slotPlusOne) else { return nil }
        return slotPlusOne - 1
    }

    /// The fingerprint an entry keeps.
    var fingerprint: UInt64 { rawValue >> Self.slotBits }

    /// Whether this is an entry whose fingerprint is `entity`'s.
    func matches(_ entity: TableKey) -> Bool {
        !isEmpty && !isTombstone && fingerprint == Self.fingerprint(of: entity)
    }
}
