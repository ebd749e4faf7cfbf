/// What this process last found of the entities it looked up (``TableState/Hint``), by key.
///
/// A fixed array of sets of four, found by the key's low bits, rather than a dictionary: a table
/// key is already a uniformly distributed hash, so the lookup a frame makes hashes nothing and
/// reads one set (a dictionary hashes the key again and touches its storage and the hasher's
/// code). A full set gives up one of its hints, which only costs that entity's next lookup a
/// search of the shared index. Keys are compared whole: a hint never answers for another key.
///
/// A set is one run of memory: its four keys side by side (one cache line, compared before any
/// hint is read), then their four hints. One allocation with no header, where two arrays of keys
/// and hints made a lookup after idle touch three pages (each array's header and element): a
/// lookup that waits for its pages to come back is paid by the page.
///
/// Copies share the memory (freed with the last of them): a table's state owns the one it uses.
/// `@unchecked Sendable` for that memory, which only the table's state reaches, under its lock.
struct HintCache: @unchecked Sendable {
    static let ways = 4
    /// The most entries a cache has: beyond it, entities looked up once would only fill memory.
    static let maximumCapacity = 8192

    private static let keysBytes = ways * MemoryLayout<TableKey>.stride
    private static let hintStride = MemoryLayout<TableState.Hint?>.stride
    /// A set's bytes: its keys, then its hints, rounded up to whole cache lines.
    private static let setBytes = (keysBytes + ways * hintStride + 63) / 64 * 64

    /// Frees the memory when the last copy of the cache goes.
    private final class Memory {
        let base: UnsafeMutableRawPointer
        init(byteCount: Int) { base = .allocate(byteCount: byteCount, alignment: 64) }
        deinit { base.deallocate() }
    }

    private let memory: Memory
    /// `memory.base`, kept beside the mask so that a lookup reaches a set without the object.
    private let base: UnsafeMutableRawPointer
    private let setMask: Int

    /// A cache of at least `capacity` entries (a power of two, at most ``maximumCapacity``).
    init(capacity: Int) {
        var entries = Self.ways
        while entries < min(capacity, Self.maximumCapacity) { entries *= 2 }
        let sets = entries / Self.ways
        memory = Memory(byteCount: sets * Self.setBytes)
        base = memory.base
        setMask = sets - 1
        for set in 0..<sets {
            let start = base + set * Self.setBytes
            start.initializeMemory(as: TableKey.self, repeating: TableKey(high: 0, low: 0), count: Self.ways)
            (start + Self.keysBytes).initializeMemory(as: TableState.Hint?.self, repeating: nil, count: Self.ways)
        }
    }

    /// The first byte of `key`'s set.
    @inline(__always)
    private func set(_ key: TableKey) -> UnsafeMutableRawPointer {
        base + (Int(truncatingIfNeeded: key.low) & setMask) * Self.setBytes
    }

    @inline(__always)
    private static func key(_ set: UnsafeMutableRawPointer, _ way: Int) -> TableKey {
        set.load(fromByteOffset: way * MemoryLayout<TableKey>.stride, as: TableKey.self)
    }

    @inline(__always)
    private static func hint(_ set: UnsafeMutableRawPointer, _ way: Int) -> TableState.Hint? {
        set.load(fromByteOffset: keysBytes + way * hintStride, as: TableState.Hint?.self)
    }

    private static func store(_ key: TableKey, _ hint: TableState.Hint?, in set: UnsafeMutableRawPointer, way: Int) {
        set.storeBytes(of: key, toByteOffset: way * MemoryLayout<TableKey>.stride, as: TableKey.self)
        set.storeBytes(of: hint, toByteOffset: keysBytes + way * hintStride, as: TableState.Hint?.self)
    }

    /// The hint of `key`; setting nil forgets it.
    subscript(key: TableKey) -> TableState.Hint? {
        @inline(__always) get {
            let set = set(key)
            for way in 0..<Self.ways where Self.key(set, way) == key {
                if let hint = Self.hint(set, way) { return hint }
            }
            return nil
        }
        set {
            let set = set(key)
            var free: Int?
            for way in 0..<Self.ways {
                guard Self.hint(set, way) != nil else {
                    if free == nil { free = way }
                    continue
                }
                if Self.key(set, way) == key {
                    Self.store(key, newValue, in: set, way: way)
                    return
                }
            }
            guard let newValue else { return }
            Self.store(key, newValue, in: set, way: free ?? Int(truncatingIfNeeded: key.high) & (Self.ways - 1))
        }
    }

    /// Forgets every hint.
    mutating func removeAll() {
        for set in 0...setMask {
            for way in 0..<Self.ways { Self.store(TableKey(high: 0, low: 0), nil, in: base + set * Self.setBytes, way: way) }
        }
    }
}
