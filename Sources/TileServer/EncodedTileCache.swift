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

    /// An entry, the stamp of its last use, and the raw paths that lead to it.
    private struct Slot {
        let entry: Entry
        var stamp: UInt64
        var paths: [String] = []
        /// What the slot costs the budget: the answer's bytes and its paths'.
        var cost: Int { entry.bytes.count + paths.reduce(0) { $0 + $1.utf8.count } }
    }

    private struct State {
        /// Each key's entry and its place in the recency order.
        var entries: [String: Slot] = [:]
        /// Keys by the stamp of their last use: the oldest stamp is the least recently used.
        var order: [UInt64: String] = [:]
        /// Raw request paths and the kept answers they lead to.
        var paths: [String: PathTarget] = [:]
        var nextStamp: UInt64 = 0
        var oldestStamp: UInt64 = 0
        var bytes = 0
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
            Self.touch(key, found, &s)
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
            s.bytes += path.utf8.count
            Self.evict(&s, limit: byteLimit)
        }
    }

    /// Makes `key`'s slot the most recently used.
    private static func touch(_ key: String, _ slot: Slot, _ s: inout State) {
        s.order[slot.stamp] = nil
        s.order[s.nextStamp] = key
        s.entries[key]?.stamp = s.nextStamp
        s.nextStamp += 1
    }

    /// Removes `key`'s slot and the paths that lead to it.
    private static func remove(_ key: String, _ s: inout State) {
        guard let removed = s.entries.removeValue(forKey: key) else { return }
        s.order[removed.stamp] = nil
        for path in removed.paths { s.paths[path] = nil }
        s.bytes -= removed.cost
    }

    /// Evicts the least recently used answers until the kept bytes fit `limit`.
    private static func evict(_ s: inout State, limit: Int) {
        // Stamps of used-again entries leave holes; each hole is skipped once.
        while s.bytes > limit, s.oldestStamp < s.nextStamp {
            if let victim = s.order.removeValue(forKey: s.oldestStamp) { remove(victim, &s) }
            s.oldestStamp += 1
        }
    }

    /// Keeps `entry` under `key`, evicting the least recently used answers to fit; one larger than
    /// a quarter of the budget is not kept (it would push out dozens of tiles).
    func insert(_ entry: Entry, for key: String) {
        guard entry.bytes.count <= byteLimit / 4 else { return }
        state.withLockedValue { s in
            Self.remove(key, &s)
            s.entries[key] = Slot(entry: entry, stamp: s.nextStamp)
            s.order[s.nextStamp] = key
            s.nextStamp += 1
            s.bytes += entry.bytes.count
            Self.evict(&s, limit: byteLimit)
        }
    }

    /// Bytes kept, hits and misses so far.
    var statistics: (bytes: Int, entries: Int, hits: Int, misses: Int) {
        state.withLockedValue { ($0.bytes, $0.entries.count, $0.hits, $0.misses) }
    }
}
#endif
