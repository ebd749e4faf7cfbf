#if Server
import FICCore

/// Encoded answers (tile files, rendered regions) kept in memory up to a byte budget, least
/// recently used going first, so that a tile asked again — by the next visitor, or by a CDN
/// revalidating — costs no read and no encode. Thread-safe.
final class EncodedTileCache: Sendable {
    /// One kept answer: the whole response, headers made, and its `ETag` for conditional requests.
    struct Entry: Sendable {
        let response: TileServerResponse
        let etag: String
        let lastModified: String
        var bytes: [UInt8] { response.body }
    }

    /// An entry and the stamp of its last use.
    private struct Slot {
        let entry: Entry
        var stamp: UInt64
    }

    private struct State {
        /// Each key's entry and its place in the recency order.
        var entries: [String: Slot] = [:]
        /// Keys by the stamp of their last use: the oldest stamp is the least recently used.
        var order: [UInt64: String] = [:]
        var nextStamp: UInt64 = 0
        var oldestStamp: UInt64 = 0
        var bytes = 0
        var hits = 0
        var misses = 0
    }

    /// The most bytes kept.
    let byteLimit: Int
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
            s.order[found.stamp] = nil
            s.order[s.nextStamp] = key
            s.entries[key]?.stamp = s.nextStamp
            s.nextStamp += 1
            return found.entry
        }
    }

    /// Keeps `entry` under `key`, evicting the least recently used answers to fit; one larger than
    /// a quarter of the budget is not kept (it would push out dozens of tiles).
    func insert(_ entry: Entry, for key: String) {
        guard entry.bytes.count <= byteLimit / 4 else { return }
        state.withLockedValue { s in
            if let old = s.entries[key] {
                s.order[old.stamp] = nil
                s.bytes -= old.entry.bytes.count
            }
            s.entries[key] = Slot(entry: entry, stamp: s.nextStamp)
            s.order[s.nextStamp] = key
            s.nextStamp += 1
            s.bytes += entry.bytes.count
            // Stamps of used-again entries leave holes; each hole is skipped once.
            while s.bytes > byteLimit, s.oldestStamp < s.nextStamp {
                if let victim = s.order.removeValue(forKey: s.oldestStamp), let removed = s.entries.removeValue(forKey: victim) {
                    s.bytes -= removed.entry.bytes.count
                }
                s.oldestStamp += 1
            }
        }
    }

    /// Bytes kept, hits and misses so far.
    var statistics: (bytes: Int, entries: Int, hits: Int, misses: Int) {
        state.withLockedValue { ($0.bytes, $0.entries.count, $0.hits, $0.misses) }
    }
}
#endif
