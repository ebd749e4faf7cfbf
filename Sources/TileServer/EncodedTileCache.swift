#if Server
import FICCore

/// Encoded answers (tile files, rendered regions) kept in memory up to a byte budget, least
/// recently used going first, so that a tile asked again — by the next visitor, or by a CDN
/// revalidating — costs no read and no encode. Thread-safe.
///
/// An answer is kept under its canonical key (the pyramid's build and the parsed request), and
/// is also found by the raw request paths that asked for it (at most ``pathsPerEntry`` each), so
/// that the event loop's fast path finds a kept answer without parsing the path: a route is
/// parsed once, by ``TileServer/respond(to:)``, whatever path finds it.
final class EncodedTileCache: Sendable {
    /// One kept answer: the whole response, headers made, and its `ETag` for conditional requests.
    struct Entry: Sendable {
        let response: TileServerResponse
        let etag: String
        let lastModified: String
        var bytes: [UInt8] { response.body }
    }

    /// Where a raw request path leads: the canonical key, and the pyramid (by name and build)
    /// whose answer it is, so that a path is served only while that build is the one open.
    struct PathTarget: Sendable, Equatable {
        let key: String
        let name: String
        let build: String
    }

    /// An entry and the raw paths that lead to it.
    private struct Slot {
        let entry: Entry
        var paths: [String] = []
        /// What the slot costs the budget: the answer's bytes and its paths'.
        var cost: Int { entry.bytes.count + paths.reduce(0) { $0 + $1.utf8.count } }
    }

    private struct State {
        /// Each key's entry.
        var entries: [String: Slot] = [:]
        /// The keys, least recently used first, each costing its slot's bytes.
        var recency = RecencyList<String>()
        /// Raw request paths and the kept answers they lead to.
        var paths: [String: PathTarget] = [:]
        var hits = 0
        var misses = 0
    }

    /// The most bytes kept.
    let byteLimit: Int
    /// The most raw paths that lead to one answer (spellings beyond are found by parsing).
    static let pathsPerEntry = 4
    private let state = LockedBox(State())

    /// A cache of at most `byteLimit` bytes of answers (0 keeps none).
    init(byteLimit: Int) {
        self.byteLimit = max(0, byteLimit)
    }

    /// The answer kept under `key`, now the most recently used, or nil. A miss is counted unless
    /// `countingMiss` is false: the event loop's fast path looks first, and a request it does not
    /// find goes on to ``TileServer/respond(to:)``, which looks again and counts the miss once.
    func entry(_ key: String, countingMiss: Bool = true) -> Entry? {
        state.withLockedValue { s in
            guard let found = s.entries[key] else {
                if countingMiss { s.misses += 1 }
                return nil
            }
            s.hits += 1
            s.recency.touch(key)
            return found.entry
        }
    }

    /// Where the raw request path `path` led before, when the answer it led to is still kept.
    /// Counts nothing: the caller looks the answer up by its key next.
    func target(path: String) -> PathTarget? {
        state.withLockedValue { s in
            guard let target = s.paths[path], s.entries[target.key] != nil else { return nil }
            return target
        }
    }

    /// Lets the raw request path `path` find the answer kept under `target.key` (nothing when that
    /// answer is not kept, or already has ``pathsPerEntry`` paths).
    func remember(path: String, for target: PathTarget) {
        state.withLockedValue { s in
            guard s.paths[path] == nil, var slot = s.entries[target.key], slot.paths.count < Self.pathsPerEntry else { return }
            slot.paths.append(path)
            s.paths[path] = target
            s.entries[target.key] = slot
            s.recency.store(target.key, cost: slot.cost)
            Self.evict(&s, limit: byteLimit)
        }
    }

    /// Removes `key`'s slot and the paths that lead to it.
    private static func remove(_ key: String, _ s: inout State) {
        guard let removed = s.entries.removeValue(forKey: key) else { return }
        s.recency.remove(key)
        for path in removed.paths { s.paths[path] = nil }
    }

    /// Evicts the least recently used answers until the kept bytes fit `limit`.
    private static func evict(_ s: inout State, limit: Int) {
        while s.recency.totalCost > limit, let oldest = s.recency.oldest { remove(oldest.key, &s) }
    }

    /// Keeps `entry` under `key`, evicting the least recently used answers to fit; one larger than
    /// a quarter of the budget is not kept (it would push out dozens of tiles).
    func insert(_ entry: Entry, for key: String) {
        guard entry.bytes.count <= byteLimit / 4 else { return }
        state.withLockedValue { s in
            Self.remove(key, &s)
            let slot = Slot(entry: entry)
            s.entries[key] = slot
            s.recency.store(key, cost: slot.cost)
            Self.evict(&s, limit: byteLimit)
        }
    }

    /// Bytes kept, hits and misses so far.
    var statistics: (bytes: Int, entries: Int, hits: Int, misses: Int) {
        state.withLockedValue { ($0.recency.totalCost, $0.entries.count, $0.hits, $0.misses) }
    }
}
#endif
