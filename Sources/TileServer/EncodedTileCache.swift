#if Server
import FICCore
import HTTPTypes
import NIOCore

/// Encoded answers (tile files, rendered regions) kept in memory up to a byte budget, least
/// recently used going first, so that a tile asked again — by the next visitor, or by a CDN
/// revalidating — costs no read and no encode. Thread-safe.
///
/// An answer is kept under its canonical key (the pyramid's build and the parsed request), and
/// is also found by the raw request paths that asked for it (at most ``pathsPerEntry`` each), so
/// that the event loop's fast path finds a kept answer without parsing the path: a route is
/// parsed once, by ``TileServer/respond(to:)``, whatever path finds it.
final class EncodedTileCache: Sendable {
    /// One kept answer, made once for every request that finds it: its header fields and its
    /// body as the event loops write them (a write shares the body's storage: nothing is copied
    /// per request), and its `ETag` and `Last-Modified` for conditional requests.
    final class Entry: Sendable {
        /// The response's status and headers, without its body.
        private let head: TileServerResponse
        /// The header fields of the HTTP answer, `Content-Length` included.
        let fields: HTTPFields
        /// The body.
        let body: ByteBuffer
        let etag: String
        let lastModified: String

        /// The answer `response`, whose validators are `etag` and `lastModified`.
        init(response: TileServerResponse, etag: String, lastModified: String) {
            head = TileServerResponse(status: response.status, headers: response.headers, body: [])
            fields = TileServer.fields(of: response)
            body = ByteBuffer(bytes: response.body)
            self.etag = etag
            self.lastModified = lastModified
        }

        /// The HTTP status.
        var status: Int { head.status }

        /// The whole response (its body copied out: for the router's answers, not the fast path's).
        var response: TileServerResponse {
            var whole = head
            whole.body = Array(body.readableBytesView)
            return whole
        }

        /// The body's size.
        var byteCount: Int { body.readableBytes }
    }

    /// Where a raw request path leads: the canonical key, and the pyramid (by name and build)
    /// whose answer it is, so that a path is served only while that build is the one open.
    struct PathTarget: Sendable, Equatable {
        let key: String
        let name: String
        let build: String
    }

    /// An entry, its key and the raw paths that lead to it.
    private struct Slot {
        let key: String
        let entry: Entry
        var paths: [String] = []
        /// What the slot costs the budget: the answer's bytes and its paths'.
        var cost: Int { entry.byteCount + paths.reduce(0) { $0 + $1.utf8.count } }
    }

    /// The cache's state. Slots are numbered: a hit through a path hashes the path alone, then
    /// finds the slot and its place in the recency order by an integer, where the canonical keys
    /// (a build identity and a parsed request, some ninety bytes) would be hashed twice more.
    private struct State {
        /// Each key's slot number.
        var numbers: [String: Int] = [:]
        /// The slots by number.
        var slots: [Int: Slot] = [:]
        /// The slot numbers, least recently used first, each costing its slot's bytes.
        var recency = RecencyList<Int>()
        /// Raw request paths, the slot they lead to and where its answer came from.
        var paths: [String: (number: Int, target: PathTarget)] = [:]
        var nextNumber = 0
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
            guard let number = s.numbers[key], let found = s.slots[number] else {
                if countingMiss { s.misses += 1 }
                return nil
            }
            s.hits += 1
            s.recency.touch(number)
            return found.entry
        }
    }

    /// The answer the raw request path `path` led to before, when it is still kept and
    /// `isCurrent` accepts where it came from (the pyramid build still open): then the most
    /// recently used, and counted a hit. Counts no miss (as `entry(_:countingMiss: false)`).
    /// `isCurrent` is called with the cache's lock held: it must not wait, nor use this cache.
    func entry(path: String, isCurrent: (PathTarget) -> Bool) -> Entry? {
        state.withLockedValue { s in
            guard let (number, target) = s.paths[path], let found = s.slots[number]?.entry, isCurrent(target) else { return nil }
            s.hits += 1
            s.recency.touch(number)
            return found
        }
    }

    /// Lets the raw request path `path` find the answer kept under `target.key` (nothing when that
    /// answer is not kept, or already has ``pathsPerEntry`` paths).
    func remember(path: String, for target: PathTarget) {
        state.withLockedValue { s in
            guard s.paths[path] == nil, let number = s.numbers[target.key], var slot = s.slots[number],
                slot.paths.count < Self.pathsPerEntry
            else { return }
            slot.paths.append(path)
            s.paths[path] = (number, target)
            s.slots[number] = slot
            s.recency.store(number, cost: slot.cost)
            Self.evict(&s, limit: byteLimit)
        }
    }

    /// Removes slot `number` and the paths that lead to it.
    private static func remove(_ number: Int, _ s: inout State) {
        guard let removed = s.slots.removeValue(forKey: number) else { return }
        s.numbers[removed.key] = nil
        s.recency.remove(number)
        for path in removed.paths { s.paths[path] = nil }
    }

    /// Evicts the least recently used answers until the kept bytes fit `limit`.
    private static func evict(_ s: inout State, limit: Int) {
        while s.recency.totalCost > limit, let oldest = s.recency.oldest { remove(oldest.key, &s) }
    }

    /// Keeps `entry` under `key`, evicting the least recently used answers to fit; one larger than
    /// a quarter of the budget is not kept (it would push out dozens of tiles).
    func insert(_ entry: Entry, for key: String) {
        guard entry.byteCount <= byteLimit / 4 else { return }
        state.withLockedValue { s in
            if let number = s.numbers[key] { Self.remove(number, &s) }
            let number = s.nextNumber
            s.nextNumber += 1
            let slot = Slot(key: key, entry: entry)
            s.numbers[key] = number
            s.slots[number] = slot
            s.recency.store(number, cost: slot.cost)
            Self.evict(&s, limit: byteLimit)
        }
    }

    /// Bytes kept, hits and misses so far.
    var statistics: (bytes: Int, entries: Int, hits: Int, misses: Int) {
        state.withLockedValue { ($0.recency.totalCost, $0.slots.count, $0.hits, $0.misses) }
    }
}
#endif
