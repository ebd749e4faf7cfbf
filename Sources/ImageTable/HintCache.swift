/// What this process last found of the entities it looked up (``TableState/Hint``), by key.
///
/// A fixed array of sets of four, found by the key's low bits, rather than a dictionary: a table
/// key is already a uniformly distributed hash, so the lookup a frame makes hashes nothing and
/// reads one set (a dictionary hashes the key again and touches its storage and the hasher's
/// code). A full set gives up one of its hints, which only costs that entity's next lookup a
/// search of the shared index. Keys are compared whole: a hint never answers for another key.
struct HintCache {
    static let ways = 4
    /// The most entries a cache has: beyond it, entities looked up once would only fill memory.
    static let maximumCapacity = 8192

    /// The keys of a set side by side (one cache line), compared before any hint is read.
    private var keys: [TableKey]
    /// Each key's hint; nil where the way is free (its key is then meaningless).
    private var hints: [TableState.Hint?]
    private let setMask: Int

    /// A cache of at least `capacity` entries (a power of two, at most ``maximumCapacity``).
    init(capacity: Int) {
        var entries = Self.ways
        while entries < min(capacity, Self.maximumCapacity) { entries *= 2 }
        keys = Array(repeating: TableKey(high: 0, low: 0), count: entries)
        hints = Array(repeating: nil, count: entries)
        setMask = entries / Self.ways - 1
    }

    /// The first entry of `key`'s set.
    @inline(__always)
    private func set(_ key: TableKey) -> Int {
        (Int(truncatingIfNeeded: key.low) & setMask) * Self.ways
    }

    /// The hint of `key`; setting nil forgets it.
    subscript(key: TableKey) -> TableState.Hint? {
        @inline(__always) get {
            let first = set(key)
            for i in first..<first + Self.ways where keys[i] == key {
                if let hint = hints[i] { return hint }
            }
            return nil
        }
        set {
            let first = set(key)
            var free: Int?
            for i in first..<first + Self.ways {
                guard hints[i] != nil else {
                    if free == nil { free = i }
                    continue
                }
                if keys[i] == key {
                    hints[i] = newValue
                    return
                }
            }
            guard let newValue else { return }
            let i = free ?? first + Int(truncatingIfNeeded: key.high) & (Self.ways - 1)
            keys[i] = key
            hints[i] = newValue
        }
    }

    /// Forgets every hint.
    mutating func removeAll() {
        for i in hints.indices { hints[i] = nil }
    }
}
