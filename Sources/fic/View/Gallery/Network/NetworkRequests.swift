#if Tool
import FICCommandLine
import FICCore
import FastImageCache
import Foundation
import ImageLoader

/// The network gallery's requests: which photos are asked for on which lane, kept in one
/// `ConditionBox` and acted on by a thread of its own (FICCore's `WorkerThread`), never on the
/// frame path.
///
/// The frame path only posts where the grid is (``post(_:)``, when it changed) and reads a
/// small snapshot (``snapshot()``): one short lock a frame. The thread turns each position into a
/// ``LanePlan`` and tells the cache: visible photos not stored are requested with
/// `image(for:format:priority: .high)` (fast lane), the screens around prefetched (slow lane),
/// requests whose cells scrolled off screen but stay near demoted (`deprioritize`) and raised
/// again when they come back (`setPriority(.high)`), and requests beyond the window cancelled
/// (`cancelRequest`). Results arrive on the cache's threads and land in the tables, where the
/// frame path's `cachedImage` finds them.
final class NetworkRequests: Sendable {
    /// Where the grid is.
    struct Position: Equatable, Sendable {
        var visible: Range<Int>
        var direction: Int
    }

    /// Counters of what was asked of the cache.
    struct Counters: Sendable {
        /// Fast-lane requests made (visible photos not stored).
        var requested = 0
        /// Demoted requests raised again (their cells came back on screen).
        var raised = 0
        /// Requests demoted to the slow lane (their cells scrolled off screen).
        var demoted = 0
        /// Prefetches made.
        var prefetched = 0
        /// Requests and prefetches cancelled (their cells went beyond the prefetch window).
        var cancelled = 0
        /// Fast-lane requests that delivered their image.
        var loaded = 0
        /// Photos whose request failed (404, undecodable, …): shown as error cells.
        var failed = 0
    }

    /// What the frame path reads once a frame.
    struct Snapshot {
        /// Whether no position waits to be acted on and no fast-lane request is outstanding.
        var settled: Bool
        /// Photos that failed, when they changed since `failedVersion`.
        var failed: Set<Int>?
        /// The version of the failed set.
        var failedVersion: Int
    }

    fileprivate struct Book: Sendable {
        var pending: Position?
        /// Whether a position is pending or being acted on.
        var scheduled = false
        var direction = 1
        /// Photos with a caller waiting (fast lane, or demoted), by the token of their request.
        var callers: [Int: UInt64] = [:]
        var demoted: Set<Int> = []
        var prefetched: Set<Int> = []
        var failed: Set<Int> = []
        var failedVersion = 0
        var lastError: String?
        var nextToken: UInt64 = 0
        var counters = Counters()
        var stopped = false
    }

    private let actions: Actions
    private let thread: WorkerThread
    private var book: ConditionBox<Book> { actions.book }

    /// Requests for `entities` in `format` of `cache`; cell `i` shows `entities[photoOfCell(i)]`.
    ///
    /// - Throws: ``CLIError`` when the system cannot start another thread.
    init(
        cache: ImageCache, format: String, entities: [URLImageEntity], layout: GalleryLayout, photoOfCell: @escaping @Sendable (Int) -> Int
    ) throws {
        let actions = Actions(cache: cache, format: format, entities: entities, photoOfCell: photoOfCell, layout: layout)
        self.actions = actions
        thread = try CLIError.starting("the network requests") { try WorkerThread(name: "fic view: requests") { actions.run() } }
    }

    // MARK: The frame path

    /// Posts a new position of the grid (the thread acts on the latest only).
    func post(_ position: Position) {
        book.update { b in
            guard !b.stopped else { return }
            b.pending = position
            b.scheduled = true
        }
    }

    /// The state the frame needs; the failed set only when its version differs from `knownVersion`.
    func snapshot(knownFailedVersion: Int) -> Snapshot {
        book.withLockedValue { b in
            Snapshot(
                settled: !b.scheduled && b.callers.isEmpty,
                failed: b.failedVersion != knownFailedVersion ? b.failed : nil,
                failedVersion: b.failedVersion)
        }
    }

    /// The counters so far, and the last failure's message.
    var counters: (Counters, lastError: String?) { book.withLockedValue { ($0.counters, $0.lastError) } }

    /// Stops acting on positions and cancels every request and prefetch it made.
    func stop() {
        book.update { $0.stopped = true }
        thread.join()
        let photos = book.withLockedValue { b -> Set<Int> in
            defer { b.callers.removeAll(); b.prefetched.removeAll(); b.demoted.removeAll() }
            return Set(b.callers.keys).union(b.prefetched)
        }
        for photo in photos { actions.cache.cancelRequest(for: actions.entities[photo], format: actions.format) }
    }
}

/// What the requests' thread does: waits for a position and acts on the latest.
private struct Actions: Sendable {
    let cache: ImageCache
    let format: String
    let entities: [URLImageEntity]
    let photoOfCell: @Sendable (Int) -> Int
    let layout: GalleryLayout
    let book = ConditionBox(NetworkRequests.Book())

    /// Acts on the latest position posted, each in turn, until stopped.
    func run() {
        while true {
            let next = book.withLockedValue(waitingUntil: { $0.stopped || $0.pending != nil }) { b -> NetworkRequests.Position? in
                guard !b.stopped, let p = b.pending else { return nil }
                b.pending = nil
                if p.direction != 0 { b.direction = p.direction }
                return NetworkRequests.Position(visible: p.visible, direction: b.direction)
            }
            guard let next else { return }
            apply(LanePlan(visible: next.visible, direction: next.direction, layout: layout, photoOfCell: photoOfCell))
            // Settled when no newer position came meanwhile.
            book.withLockedValue { b in
                if b.pending == nil { b.scheduled = false }
            }
        }
    }

    private func apply(_ plan: LanePlan) {
        // Visible: on the fast lane.
        for photo in plan.visible {
            let entity = entities[photo]
            enum Step { case none, raise, request }
            let step = book.withLockedValue { b -> Step in
                if b.failed.contains(photo) { return .none }
                b.prefetched.remove(photo)  // a fast request joins a queued prefetch and promotes it
                if b.callers[photo] != nil { return b.demoted.remove(photo) != nil ? .raise : .none }
                return .request
            }
            switch step {
            case .none:
                break
            case .raise:
                cache.setPriority(.high, for: entity, format: format)
                book.withLockedValue { $0.counters.raised += 1 }
            case .request:
                guard !cache.containsImage(for: entity, format: format) else { continue }
                let token = book.withLockedValue { b -> UInt64 in
                    b.nextToken += 1
                    b.callers[photo] = b.nextToken
                    b.counters.requested += 1
                    return b.nextToken
                }
                request(photo, token: token)
            }
        }
        // Near: demote callers, prefetch the rest.
        for (photos, priority) in [(plan.ahead, RequestPriority.low), (plan.behind, RequestPriority.veryLow)] {
            for photo in photos {
                let entity = entities[photo]
                enum Step { case none, demote, prefetch }
                let step = book.withLockedValue { b -> Step in
                    if b.failed.contains(photo) { return .none }
                    if b.callers[photo] != nil { return b.demoted.insert(photo).inserted ? .demote : .none }
                    return b.prefetched.contains(photo) ? .none : .prefetch
                }
                switch step {
                case .none:
                    break
                case .demote:
                    cache.deprioritize(entity, format: format)
                    book.withLockedValue { $0.counters.demoted += 1 }
                case .prefetch:
                    guard !cache.containsImage(for: entity, format: format) else { continue }
                    cache.prefetch(entity, format: format, priority: priority)
                    book.withLockedValue { b in
                        b.prefetched.insert(photo)
                        b.counters.prefetched += 1
                    }
                }
            }
        }
        // Far: cancelled.
        let wanted = plan.wanted
        let far = book.withLockedValue { b -> [Int] in
            let far = Set(b.callers.keys).union(b.prefetched).subtracting(wanted)
            for photo in far {
                b.callers[photo] = nil
                b.demoted.remove(photo)
                b.prefetched.remove(photo)
            }
            b.counters.cancelled += far.count
            return Array(far)
        }
        for photo in far { cache.cancelRequest(for: entities[photo], format: format) }
    }

    /// Asks the cache for `photo` on the fast lane; the result lands in the tables.
    private func request(_ photo: Int, token: UInt64) {
        let cache = self.cache, format = self.format, entity = entities[photo], book = self.book
        Task(priority: .userInitiated) {
            enum Outcome { case loaded, cancelled, failed(String) }
            let outcome: Outcome
            do {
                _ = try await cache.image(for: entity, format: format, priority: .high)
                outcome = .loaded
            } catch let error as ImageCacheError where error.code == .cancelled || error.code == .closed {
                outcome = .cancelled
            } catch is CancellationError {
                outcome = .cancelled
            } catch {
                outcome = .failed("\(error)")
            }
            book.withLockedValue { b in
                guard b.callers[photo] == token else { return }  // cancelled meanwhile
                b.callers[photo] = nil
                b.demoted.remove(photo)
                switch outcome {
                case .loaded:
                    b.counters.loaded += 1
                case .cancelled:
                    break
                case .failed(let message):
                    b.failed.insert(photo)
                    b.failedVersion += 1
                    b.counters.failed += 1
                    b.lastError = message
                }
            }
        }
    }
}
#endif
