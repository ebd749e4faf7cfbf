#if Loader
import FICCore
import Foundation

/// URLs that failed recently, so that a broken link is not fetched again on every scroll: a
/// failed URL is refused for a back-off period that doubles with each further failure, up to a
/// maximum. A success forgets the URL. At most ``capacity`` URLs are remembered (the oldest
/// failure is forgotten first).
final class FailureMemory: Sendable {
    private struct Failure {
        var error: ImageCacheError
        var count: Int
        var until: ContinuousClock.Instant
        var serial: UInt64
    }

    private struct State {
        var failures: [URL: Failure] = [:]
        var serial: UInt64 = 0
    }

    let base: Duration
    let maximum: Duration
    let capacity: Int
    private let state = LockedBox(State())

    init(base: Duration, maximum: Duration, capacity: Int = 4096) {
        self.base = base
        self.maximum = max(base, maximum)
        self.capacity = max(1, capacity)
    }

    /// The error to throw instead of fetching `url`, while its back-off lasts.
    func refusal(for url: URL) -> ImageCacheError? {
        guard base > .zero else { return nil }
        let now = ContinuousClock.now
        return state.withLockedValue { s in
            guard let f = s.failures[url] else { return nil }
            guard now < f.until else { return nil }
            let seconds = Double((f.until - now).components.seconds) + Double((f.until - now).components.attoseconds) / 1e18
            let times = f.count == 1 ? "once" : "\(f.count) times"
            return ImageCacheError(
                .recentlyFailed, "this URL failed \(times) recently and is not tried again for " + String(format: "%.1f s", seconds),
                path: url.absoluteString, underlying: f.error)
        }
    }

    /// Remembers that `url` failed with `error`.
    func record(_ error: ImageCacheError, for url: URL) {
        guard base > .zero else { return }
        let now = ContinuousClock.now
        state.withLockedValue { s in
            s.serial += 1
            let count = (s.failures[url]?.count ?? 0) + 1
            var backoff = base
            for _ in 1..<min(count, 32) where backoff < maximum { backoff *= 2 }
            s.failures[url] = Failure(error: error, count: count, until: now + min(backoff, maximum), serial: s.serial)
            if s.failures.count > capacity, let oldest = s.failures.min(by: { $0.value.serial < $1.value.serial })?.key {
                s.failures[oldest] = nil
            }
        }
    }

    /// Forgets `url` (after a success).
    func forget(_ url: URL) {
        state.withLockedValue { s in
            if !s.failures.isEmpty { s.failures[url] = nil }
        }
    }

    /// Forgets every failure.
    func forgetAll() {
        state.withLockedValue { $0.failures.removeAll() }
    }
}
#endif
