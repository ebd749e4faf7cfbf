import FICCore
import ImageTable

/// Remembers the table keys of recently used entities, so that a frame's lookups do not hash the
/// same names again and again (a SHA-256 costs more than the rest of a lookup).
///
/// A frame's lookup reads it without taking a lock: after the process has slept, each memory page
/// a lookup touches costs a walk of the page tables, and a lock and a dictionary are a dozen pages
/// of code and data (`fic-bench processes` counts them). Instead each name has an 80-byte entry
/// in one block, in one of the four ways of the set its keyed hash picks, read under a sequence
/// number that a writer makes odd while it changes the entry (a seqlock): a reader that sees it
/// change, or odd, treats the entry as missing. Only misses take the lock, to write.
///
/// An entry is identified by 128 bits of the process's own keyed hash (Swift's `Hasher`, seeded at
/// random per process, run twice with different prefixes) of the UTF-8 bytes of the entity's name
/// and of its source version's: as hard to make two names share as the tables' own 128-bit keys, and not
/// predictable from outside the process. A fifth name of a set takes one of the four ways; a name
/// whose entry another took is hashed again with SHA-256 and takes one back.
final class KeyMemo: @unchecked Sendable {
    // @unchecked: the entries are reached only through atomic loads and stores, written under
    // `writer`; the block never moves and is freed with the memo.

    /// Entries (a power of two), in sets of ``ways``.
    static let capacity = 4096
    /// Entries a name may take: the four of its set.
    static let ways = 4

    /// The 128-bit keyed hash of a name's UTF-8 bytes: bytes, as ``TableKey`` hashes them, so that
    /// two spellings Swift's `String` calls equal (composed and decomposed accents) keep the
    /// distinct keys the tables give them.
    struct NameHash: Equatable {
        var first: UInt64
        var second: UInt64

        init(_ name: String) {
            var a = Hasher(), b = Hasher()
            a.combine(0x6669_635f_6b65_7931 as UInt64)
            b.combine(0x6669_635f_6b65_7932 as UInt64)
            var name = name
            name.withUTF8 { bytes in
                a.combine(bytes: UnsafeRawBufferPointer(bytes))
                b.combine(bytes: UnsafeRawBufferPointer(bytes))
            }
            first = UInt64(UInt(bitPattern: a.finalize()))
            second = UInt64(UInt(bitPattern: b.finalize()))
        }
    }

    /// Byte offsets in an entry: the sequence number (0: never written; odd: being written), the
    /// name's hash, the source version's hash, the entity's key and the source's key.
    private enum Field {
        static let sequence = 0
        static let name = 8
        static let source = 24
        static let entityKey = 40
        static let sourceKey = 56
        static let stride = 72 + 8
    }

    private let entries: UnsafeMutableRawPointer
    private let writer = Lock()

    init() {
        let bytes = Self.capacity * Field.stride
        entries = .allocate(byteCount: bytes, alignment: 64)
        entries.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
    }

    deinit {
        entries.deallocate()
    }

    /// The keys of an entity's identifier and source version: no lock and no SHA-256 when seen recently.
    func keys(_ entityID: String, _ sourceImageID: String) -> (entity: TableKey, source: TableKey) {
        let name = NameHash(entityID), source = NameHash(sourceImageID)
        if let found = read(name), found.source == source { return (found.entityKey, found.sourceKey) }
        let made = (entity: TableKey(entityID), source: TableKey(sourceImageID))
        write(name, source: source, entityKey: made.entity, sourceKey: made.source)
        return made
    }

    /// The key of an entity's identifier.
    func key(_ entityID: String) -> TableKey {
        read(NameHash(entityID))?.entityKey ?? TableKey(entityID)
    }

    /// The first entry of the set of `name`.
    private func set(_ name: NameHash) -> UnsafeMutableRawPointer {
        entries + Int(name.first & UInt64(Self.capacity / Self.ways - 1)) * Self.ways * Field.stride
    }

    /// The entry of `name` in its set, if one holds it.
    func read(_ name: NameHash) -> (source: NameHash, entityKey: TableKey, sourceKey: TableKey)? {
        let first = set(name)
        for way in 0..<Self.ways {
            if let found = read(name, at: UnsafeRawPointer(first + way * Field.stride)) { return found }
        }
        return nil
    }

    /// The entry at `e`, read whole between two equal, even sequence numbers; nil when it holds
    /// another name or was being written.
    @inline(__always)
    private func read(_ name: NameHash, at e: UnsafeRawPointer) -> (source: NameHash, entityKey: TableKey, sourceKey: TableKey)? {
        let sequence = e.loadAcquire(fromByteOffset: Field.sequence)
        guard sequence != 0, sequence & 1 == 0 else { return nil }
        let first = e.loadRelaxed(fromByteOffset: Field.name), second = e.loadRelaxed(fromByteOffset: Field.name + 8)
        var source = name
        source.first = e.loadRelaxed(fromByteOffset: Field.source)
        source.second = e.loadRelaxed(fromByteOffset: Field.source + 8)
        let entityKey = TableKey(
            high: e.loadRelaxed(fromByteOffset: Field.entityKey), low: e.loadRelaxed(fromByteOffset: Field.entityKey + 8))
        let sourceKey = TableKey(
            high: e.loadRelaxed(fromByteOffset: Field.sourceKey), low: e.loadRelaxed(fromByteOffset: Field.sourceKey + 8))
        acquireFence()
        guard e.loadRelaxed(fromByteOffset: Field.sequence) == sequence, first == name.first, second == name.second else { return nil }
        return (source, entityKey, sourceKey)
    }

    /// Writes the entry of `name` into its set: over its own old entry, else into a way never
    /// written, else over the way its hash picks.
    func write(_ name: NameHash, source: NameHash, entityKey: TableKey, sourceKey: TableKey) {
        let first = set(name)
        writer.withLock {
            var e = first + Int(name.second % UInt64(Self.ways)) * Field.stride
            for way in 0..<Self.ways {
                let candidate = first + way * Field.stride
                let held = UnsafeRawPointer(candidate).loadRelaxed(fromByteOffset: Field.sequence)
                if held == 0 || UnsafeRawPointer(candidate).loadRelaxed(fromByteOffset: Field.name) == name.first {
                    e = candidate
                    break
                }
            }
            let sequence = UnsafeRawPointer(e).loadRelaxed(fromByteOffset: Field.sequence)
            e.storeRelaxed(sequence + 1, toByteOffset: Field.sequence)
            releaseFence()
            e.storeRelaxed(name.first, toByteOffset: Field.name)
            e.storeRelaxed(name.second, toByteOffset: Field.name + 8)
            e.storeRelaxed(source.first, toByteOffset: Field.source)
            e.storeRelaxed(source.second, toByteOffset: Field.source + 8)
            e.storeRelaxed(entityKey.high, toByteOffset: Field.entityKey)
            e.storeRelaxed(entityKey.low, toByteOffset: Field.entityKey + 8)
            e.storeRelaxed(sourceKey.high, toByteOffset: Field.sourceKey)
            e.storeRelaxed(sourceKey.low, toByteOffset: Field.sourceKey + 8)
            e.storeRelease(sequence + 2, toByteOffset: Field.sequence)
        }
    }
}
