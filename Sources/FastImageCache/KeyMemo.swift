import FICCore
import ImageTable

/// Remembers the table keys of recently used entities, so that a frame's lookups do not hash the
/// same names again and again (a SHA-256 costs more than the rest of a lookup).
///
/// A frame's lookup reads it without taking a lock: after the process has slept, each memory page
/// a lookup touches costs a walk of the page tables, and a lock and a dictionary are a dozen pages
/// of code and data (`fic-bench processes` counts them). Instead each name has a 64-byte entry (one
/// cache line) in one block, in one of the four ways of the set its keyed hash picks, read under a
/// sequence number that a writer makes odd while it changes the entry (a seqlock): a reader that
/// sees it change, or odd, treats the entry as missing. Only misses take the lock, to write.
///
/// An entry is identified by the 128-bit SipHash-2-4 of the UTF-8 bytes of the entity's name and of
/// its source version's, in one pass, keyed at random per memo: as hard to make two names share as
/// the tables' own 128-bit keys, and not predictable from outside the process. A fifth name of a set
/// takes one of the four ways; a name whose entry another took is hashed again with SHA-256 and
/// takes one back.
final class KeyMemo: @unchecked Sendable {
    // @unchecked: the entries are reached only through atomic loads and stores, written under
    // `writer`; the block never moves and is freed with the memo.

    /// Entries (a power of two), in sets of ``ways``.
    static let capacity = 4096
    /// Entries a name may take: the four of its set.
    static let ways = 4

    /// The 128-bit keyed hash that identifies an entry: of an entity's name and its source
    /// version's, or of the name alone. Bytes, as ``TableKey`` hashes them, so that two spellings
    /// Swift's `String` calls equal (composed and decomposed accents) keep the distinct keys the
    /// tables give them.
    struct NameHash: Equatable {
        var first: UInt64
        var second: UInt64
    }

    /// Byte offsets in an entry: the sequence number (0: never written; odd: being written), the
    /// names' hash, the entity's key and the source's key (zero for an entry of a name alone).
    private enum Field {
        static let sequence = 0
        static let hash = 8
        static let entityKey = 24
        static let sourceKey = 40
        static let stride = 64
    }

    private let entries: UnsafeMutableRawPointer
    private let writer = Lock()
    /// The hash's key: random, so that nobody outside the process can choose names that share an entry.
    private let k0: UInt64, k1: UInt64

    init() {
        let bytes = Self.capacity * Field.stride
        entries = .allocate(byteCount: bytes, alignment: 64)
        entries.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
        var random = SystemRandomNumberGenerator()
        k0 = random.next()
        k1 = random.next()
    }

    deinit {
        entries.deallocate()
    }

    /// The hash of an entity's name and, when given, its source version's: the name's length, its
    /// bytes, then 1 and the source's bytes (or 0 alone), so that no two pairs feed the same bytes.
    @inline(__always)
    func hash(_ entityID: String, _ sourceImageID: String?) -> NameHash {
        var hash = SipHash128(k0: k0, k1: k1)
        var name = entityID
        name.withUTF8 { bytes in
            hash.combine(UInt64(bytes.count))
            hash.combine(UnsafeRawBufferPointer(bytes))
        }
        if var source = sourceImageID {
            hash.combine(1)
            source.withUTF8 { hash.combine(UnsafeRawBufferPointer($0)) }
        } else {
            hash.combine(0)
        }
        let (first, second) = hash.finalize()
        return NameHash(first: first, second: second)
    }

    /// The keys of an entity's identifier and source version: no lock and no SHA-256 when seen recently.
    @inline(__always)
    func keys(_ entityID: String, _ sourceImageID: String) -> (entity: TableKey, source: TableKey) {
        let hash = hash(entityID, sourceImageID)
        if let found = read(hash) { return found }
        let made = (entity: TableKey(entityID), source: TableKey(sourceImageID))
        write(hash, entityKey: made.entity, sourceKey: made.source)
        return made
    }

    /// The key of an entity's identifier.
    func key(_ entityID: String) -> TableKey {
        let hash = hash(entityID, nil)
        if let found = read(hash) { return found.entity }
        let made = TableKey(entityID)
        write(hash, entityKey: made, sourceKey: TableKey(high: 0, low: 0))
        return made
    }

    /// The first entry of the set of `hash`.
    @inline(__always)
    private func set(_ hash: NameHash) -> UnsafeMutableRawPointer {
        entries + Int(hash.first & UInt64(Self.capacity / Self.ways - 1)) * Self.ways * Field.stride
    }

    /// The keys of the entry of `hash` in its set, if one holds it.
    @inline(__always)
    func read(_ hash: NameHash) -> (entity: TableKey, source: TableKey)? {
        let first = set(hash)
        for way in 0..<Self.ways {
            if let found = read(hash, at: UnsafeRawPointer(first + way * Field.stride)) { return found }
        }
        return nil
    }

    /// The entry at `e`, read whole between two equal, even sequence numbers; nil when it holds
    /// another name or was being written.
    @inline(__always)
    private func read(_ hash: NameHash, at e: UnsafeRawPointer) -> (entity: TableKey, source: TableKey)? {
        let sequence = e.loadAcquire(fromByteOffset: Field.sequence)
        guard sequence != 0, sequence & 1 == 0 else { return nil }
        let first = e.loadRelaxed(fromByteOffset: Field.hash), second = e.loadRelaxed(fromByteOffset: Field.hash + 8)
        let entityKey = TableKey(
            high: e.loadRelaxed(fromByteOffset: Field.entityKey), low: e.loadRelaxed(fromByteOffset: Field.entityKey + 8))
        let sourceKey = TableKey(
            high: e.loadRelaxed(fromByteOffset: Field.sourceKey), low: e.loadRelaxed(fromByteOffset: Field.sourceKey + 8))
        acquireFence()
        guard e.loadRelaxed(fromByteOffset: Field.sequence) == sequence, first == hash.first, second == hash.second else { return nil }
        return (entityKey, sourceKey)
    }

    /// Writes the entry of `hash` into its set: over its own old entry, else into a way never
    /// written, else over the way its hash picks.
    func write(_ hash: NameHash, entityKey: TableKey, sourceKey: TableKey) {
        let first = set(hash)
        writer.withLock {
            var e = first + Int(hash.second % UInt64(Self.ways)) * Field.stride
            for way in 0..<Self.ways {
                let candidate = first + way * Field.stride
                let held = UnsafeRawPointer(candidate).loadRelaxed(fromByteOffset: Field.sequence)
                if held == 0 || UnsafeRawPointer(candidate).loadRelaxed(fromByteOffset: Field.hash) == hash.first {
                    e = candidate
                    break
                }
            }
            let sequence = UnsafeRawPointer(e).loadRelaxed(fromByteOffset: Field.sequence)
            e.storeRelaxed(sequence + 1, toByteOffset: Field.sequence)
            releaseFence()
            e.storeRelaxed(hash.first, toByteOffset: Field.hash)
            e.storeRelaxed(hash.second, toByteOffset: Field.hash + 8)
            e.storeRelaxed(entityKey.high, toByteOffset: Field.entityKey)
            e.storeRelaxed(entityKey.low, toByteOffset: Field.entityKey + 8)
            e.storeRelaxed(sourceKey.high, toByteOffset: Field.sourceKey)
            e.storeRelaxed(sourceKey.low, toByteOffset: Field.sourceKey + 8)
            e.storeRelease(sequence + 2, toByteOffset: Field.sequence)
        }
    }
}
