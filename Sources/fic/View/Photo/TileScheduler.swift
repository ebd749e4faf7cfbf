#if Tool
import FICCore
import FastImageCache
import Foundation
import TiledImage

/// Asks a ``TileTable`` for the tiles a ``TilePlan`` needs, through the cache's lanes: the
/// visible tiles (and the coarsest level, which stands in for anything) on the fast lane, the
/// ring around the view and the next coarser level on the slow lane; a tile that leaves the view
/// but stays near is moved to the slow lane, one that leaves the plan is cancelled. The frame
/// path only hands over plans (when the view changes) and reads the cache's stored tiles; it
/// never waits for a fetch or a decode. A local pyramid's table and a remote service's are asked
/// the same way.
///
/// A tile that fails is remembered and not asked for again in this run (its area keeps the
/// coarser stand-in); a remote loader's back-off per URL would refuse a repeat anyway.
final class TileScheduler: Sendable {
    private struct State {
        /// Tiles asked for on the fast lane for the current plan, and on the slow lane.
        var fast: Set<TileKey> = []
        var slow: Set<TileKey> = []
        /// Fast-lane requests not answered yet.
        var inFlight = 0
        var failed: [TileKey: String] = [:]
        var requested = 0
        var prefetched = 0
        var demoted = 0
        var cancelled = 0
        var stopped = false
    }

    private let tiles: TileTable
    private let state = LockedBox(State())

    init(tiles: TileTable) {
        self.tiles = tiles
    }

    /// Hands over the plan of a view that changed, whose coarsest level is `coarsest`: starts,
    /// moves and cancels requests. Returns at once.
    func update(_ plan: TilePlan, coarsest: Int) {
        // The coarsest level whole is what any tile shows while it loads: as urgent as the visible ones.
        let fastNow = plan.wanted.filter { $0.level == coarsest } + plan.visible
        let fastSet = Set(fastNow)
        let slowNow = plan.wanted.filter { !fastSet.contains($0) }
        let slowSet = Set(slowNow)
        let (previousFast, previousSlow, failed) = state.withLockedValue { s in (s.fast, s.slow, s.failed) }
        func missing(_ key: TileKey) -> Bool {
            failed[key] == nil && tiles.cachedTile(level: key.level, column: key.column, row: key.row) == nil
        }
        // New on screen: the fast lane (joining, and promoting, a request already queued for it).
        let start = fastNow.filter { !previousFast.contains($0) && missing($0) }
        // Left the screen but near: behind everything on screen.
        let demote = previousFast.filter { slowSet.contains($0) && missing($0) }
        // New near the screen: the slow lane.
        let prefetch = slowNow.filter { !previousSlow.contains($0) && !previousFast.contains($0) && missing($0) }
        // Left the plan: dropped (a fetch already running for it is cancelled if nobody else waits).
        let cancel = previousFast.union(previousSlow).filter { !fastSet.contains($0) && !slowSet.contains($0) && missing($0) }
        let going = state.withLockedValue { s -> Bool in
            guard !s.stopped else { return false }
            s.fast = fastSet.filter { s.failed[$0] == nil }
            s.slow = slowSet.filter { s.failed[$0] == nil }
            s.inFlight += start.count
            s.requested += start.count
            s.prefetched += prefetch.count
            s.demoted += demote.count
            s.cancelled += cancel.count
            return true
        }
        guard going else { return }
        for key in cancel { tiles.cancel(level: key.level, column: key.column, row: key.row) }
        for key in demote { tiles.deprioritize(level: key.level, column: key.column, row: key.row) }
        for key in start { request(key) }
        for key in prefetch { tiles.prefetch(level: key.level, column: key.column, row: key.row) }
    }

    /// Asks for `key` on the fast lane, on a task of its own; a failure is remembered (a
    /// cancellation, the view having moved on, is not one).
    private func request(_ key: TileKey) {
        let tiles = self.tiles
        Task.detached(priority: .userInitiated) { [self] in
            var failure: String?
            do {
                _ = try await tiles.tile(level: key.level, column: key.column, row: key.row, priority: .high)
            } catch let error as ImageCacheError where error.code == .cancelled || error.code == .closed {
                // The view moved on (or the viewer closed): not a failure, asked again if it comes back.
            } catch {
                failure = "\(error)"
            }
            state.withLockedValue { s in
                s.inFlight -= 1
                if let failure {
                    s.failed[key] = failure
                    s.fast.remove(key)
                }
            }
        }
    }

    /// Whether `key` failed to load.
    func hasFailed(_ key: TileKey) -> Bool {
        state.withLockedValue { $0.failed[key] != nil }
    }

    /// Whether no fast-lane request waits and the cache's lanes are empty (prefetches done).
    var isIdle: Bool {
        state.withLockedValue { $0.inFlight == 0 } && tiles.cache.requestStatistics.isIdle
    }

    /// Requests made on each lane, moved to the slow lane, cancelled; tiles that failed, and one reason.
    var figures: (requested: Int, prefetched: Int, demoted: Int, cancelled: Int, failed: Int, firstFailure: String?) {
        state.withLockedValue { s in (s.requested, s.prefetched, s.demoted, s.cancelled, s.failed.count, s.failed.values.first) }
    }

    /// Cancels every request and starts no more (the viewer closes).
    func stop() {
        let pending = state.withLockedValue { s -> Set<TileKey> in
            s.stopped = true
            return s.fast.union(s.slow)
        }
        for key in pending { tiles.cancel(level: key.level, column: key.column, row: key.row) }
    }
}
#endif
