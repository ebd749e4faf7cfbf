/// One entry of a table's index: which entity and source version a slot holds, and the
/// checksum of its pixels. Records live in a mapped array at the start of each chunk, one per
/// slot, so changing an entry writes one 128-byte record: O(1), however full the table is.
///
/// Layout (little-endian):
/// ```
/// 0    entity key                 16 bytes  SHA-256 of the entity identifier, truncated
/// 16   source key                 16 bytes  SHA-256 of the source version, truncated
/// 32   pixel checksum             UInt64    XXH64 of the slot's pixel bytes
/// 40   commit sequence            UInt64    newer commits win when a crash left two records for one entity
/// 48   flags                      UInt32    bit 0: the pixels must be checked before they are served;
///                                           bit 1: in flight, the slot's pixels are being written
/// 52   label length + label       1 + 59 bytes (the start of the entity identifier, for people)
/// 112  record checksum            UInt64    XXH64 of bytes 0..<112, seeded with the slot number
/// 120  last access                UInt64    recency, saved in batches; not covered by the checksum
/// ```
/// A record is committed exactly when its checksum matches, its fields are in range and it is
/// not in flight; anything else is a free slot.
///
/// The write protocol makes every moment of a store recognisable in the file, for a process
/// that is killed at any instruction: before a slot's pixels are overwritten its record becomes
/// an *in-flight* record (sealed, naming the entity being written); the pixels are drawn; then
/// the final record is written with its checksum stored last, with release ordering. Reopened on
/// the same boot, a table therefore holds only committed entries whose pixels are whole, free
/// slots, and in-flight slots, which are dropped (see ``WriterSession``).
struct IndexRecord {
    static let length = 128
    static let flagsOffset = 48
    static let checksumOffset = 112
    static let lastAccessOffset = 120
    static let maximumLabelLength = 59
    /// Sequences beyond this are not ones the engine writes: such a record is damaged.
    static let maximumSequence: UInt64 = 1 << 62
    /// Flag: the entry was written by a session that did not close cleanly, or failed a check.
    static let needsVerification: UInt32 = 1
    /// Flag: the slot's pixels are being written for the entity named; not an entry.
    static let inFlight: UInt32 = 2
    /// Every flag a record may carry.
    static let knownFlags: UInt32 = needsVerification | inFlight

    var entity: TableKey
    var source: TableKey
    var pixelChecksum: UInt64
    var sequence: UInt64
    var flags: UInt32 = 0
    var label: String

    private static func seed(slot: Int) -> UInt64 { 0x5EC0_4D00_0000_0000 ^ UInt64(truncatingIfNeeded: slot) }

    /// Reads the record of `slot` at `p`; nil when the slot is free or its record is damaged.
    static func read(at p: UnsafeRawPointer, slot: Int) -> IndexRecord? {
        let stored = UInt64(littleEndian: p.loadUnaligned(fromByteOffset: checksumOffset, as: UInt64.self))
        guard stored != 0, stored == XXH64.hash(p, count: checksumOffset, seed: seed(slot: slot)) else { return nil }
        func u64(_ o: Int) -> UInt64 { UInt64(littleEndian: p.loadUnaligned(fromByteOffset: o, as: UInt64.self)) }
        let flags = UInt32(littleEndian: p.loadUnaligned(fromByteOffset: flagsOffset, as: UInt32.self))
        let sequence = u64(40)
        guard sequence <= maximumSequence, flags & ~knownFlags == 0 else { return nil }
        let labelLength = min(Int(p.load(fromByteOffset: 52, as: UInt8.self)), maximumLabelLength)
        let label = String(decoding: UnsafeRawBufferPointer(start: p + 53, count: labelLength), as: UTF8.self)
        return IndexRecord(
            entity: TableKey(high: u64(0), low: u64(8)),
            source: TableKey(high: u64(16), low: u64(24)),
            pixelChecksum: u64(32), sequence: sequence, flags: flags, label: label)
    }

    /// Whether the record at `p` names `entity` and `pixelChecksum`, read with relaxed atomic
    /// loads (another process may be rewriting it): for a lookup that already knows the record
    /// and checks that the slot still holds it, without copying and checksumming the whole.
    static func names(_ entity: TableKey, pixelChecksum: UInt64, at p: UnsafeRawPointer) -> Bool {
        p.loadRelaxed(fromByteOffset: 0) == entity.high && p.loadRelaxed(fromByteOffset: 8) == entity.low
            && p.loadRelaxed(fromByteOffset: 32) == pixelChecksum
    }

    /// The in-flight record of a slot whose pixels are about to be written for `entity`.
    static func inFlight(entity: TableKey, source: TableKey, label: String) -> IndexRecord {
        IndexRecord(entity: entity, source: source, pixelChecksum: 0, sequence: 0, flags: inFlight, label: label)
    }

    /// Whether this record marks a slot being written rather than an entry.
    var isInFlight: Bool { flags & Self.inFlight != 0 }

    /// Writes the record: its checksum is destroyed first, then the fields are written, then the
    /// new checksum is stored last with release ordering, so that neither the compiler nor the
    /// processor lets a reader (or a process killed midway) see the checksum before the fields
    /// and the pixels written before them. The fields go in as whole 8-byte atomic stores, so a
    /// reader in another process (or thread) copying the record with atomic loads while it
    /// changes (``SlotCells/committedRecord(_:at:)``) races with nothing.
    func write(to p: UnsafeMutableRawPointer, slot: Int) {
        p.storeRelease(0, toByteOffset: Self.checksumOffset)
        releaseFence()
        withUnsafeTemporaryAllocation(byteCount: Self.checksumOffset, alignment: 8) { fields in
            let f = fields.baseAddress!
            f.initializeMemory(as: UInt8.self, repeating: 0, count: Self.checksumOffset)
            f.storeBytes(of: entity.high.littleEndian, toByteOffset: 0, as: UInt64.self)
            f.storeBytes(of: entity.low.littleEndian, toByteOffset: 8, as: UInt64.self)
            f.storeBytes(of: source.high.littleEndian, toByteOffset: 16, as: UInt64.self)
            f.storeBytes(of: source.low.littleEndian, toByteOffset: 24, as: UInt64.self)
            f.storeBytes(of: pixelChecksum.littleEndian, toByteOffset: 32, as: UInt64.self)
            f.storeBytes(of: sequence.littleEndian, toByteOffset: 40, as: UInt64.self)
            f.storeBytes(of: flags.littleEndian, toByteOffset: Self.flagsOffset, as: UInt32.self)
            let bytes = Self.truncatedLabel(label)
            f.storeBytes(of: UInt8(bytes.count), toByteOffset: 52, as: UInt8.self)
            bytes.withUnsafeBytes { (f + 53).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            for offset in stride(from: 0, to: Self.checksumOffset, by: 8) {
                p.storeRelaxed(UInt64(littleEndian: f.load(fromByteOffset: offset, as: UInt64.self)), toByteOffset: offset)
            }
        }
        Self.seal(p, slot: slot)
    }

    /// Writes the checksum of the record bytes at `p` (as ``write(to:slot:)`` does last), with
    /// release ordering.
    static func seal(_ p: UnsafeMutableRawPointer, slot: Int) {
        var sum = XXH64.hash(UnsafeRawPointer(p), count: checksumOffset, seed: seed(slot: slot))
        if sum == 0 { sum = 1 }  // 0 marks a free slot
        p.storeRelease(sum, toByteOffset: checksumOffset)
    }

    /// Rewrites the flags of the committed record of `slot` at `p`, keeping its saved recency.
    /// Returns whether it changed (false for no record, an in-flight one, or the same flags).
    static func rewriteFlags(_ flags: UInt32, at p: UnsafeMutableRawPointer, slot: Int) -> Bool {
        guard var r = read(at: UnsafeRawPointer(p), slot: slot), !r.isInFlight, r.flags != flags else { return false }
        let access = lastAccess(at: UnsafeRawPointer(p))
        r.flags = flags
        r.write(to: p, slot: slot)
        setLastAccess(access, at: p)
        return true
    }

    /// Marks `slot` free by destroying its checksum, ordered before any later store (the
    /// slot's next pixels).
    static func clear(at p: UnsafeMutableRawPointer) {
        p.storeRelease(0, toByteOffset: checksumOffset)
        p.storeBytes(of: UInt64(0), toByteOffset: lastAccessOffset, as: UInt64.self)
        releaseFence()
    }

    /// The saved recency of the record at `p` (any value; used only to order entries).
    static func lastAccess(at p: UnsafeRawPointer) -> UInt64 {
        UInt64(littleEndian: p.loadUnaligned(fromByteOffset: lastAccessOffset, as: UInt64.self))
    }

    /// Saves the recency of the record at `p`.
    static func setLastAccess(_ value: UInt64, at p: UnsafeMutableRawPointer) {
        p.storeBytes(of: value.littleEndian, toByteOffset: lastAccessOffset, as: UInt64.self)
    }

    /// The UTF-8 bytes of `label`, cut at a character boundary to fit.
    static func truncatedLabel(_ label: String) -> [UInt8] {
        var bytes: [UInt8] = []
        for ch in label {
            let u = Array(String(ch).utf8)
            if bytes.count + u.count > maximumLabelLength { break }
            bytes += u
        }
        return bytes
    }
}
