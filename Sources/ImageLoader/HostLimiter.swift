#if Loader
import FICCore

/// At most a fixed number of connections per host: callers wait for a permit, the most urgent
/// task first (then first come, first served); a cancelled waiter leaves the queue.
final class HostLimiter: Sendable {
    let limit: Int
    /// One line of waiters per host; the state is the permits held for each host that has any.
    private let queue: WaiterQueue<String, [String: Int]>

    init(limit: Int) {
        let limit = max(1, limit)
        self.limit = limit
        queue = WaiterQueue([:]) { active, host, _ in
            let held = active[host, default: 0]
            guard held < limit else { return false }
            active[host] = held + 1
            return true
        }
    }

    /// Waits for a permit for `host`; release it with ``release(_:)`` exactly once.
    ///
    /// - Throws: `CancellationError` when the task is cancelled while waiting.
    func acquire(_ host: String) async throws {
        try await queue.wait(in: host, for: 1, urgency: Int(Task.currentPriority.rawValue))
    }

    /// Returns a permit of `host`, handing it to the most urgent waiter if there is one.
    func release(_ host: String) {
        queue.update(granting: host) { active in
            // A host without permits or waiters leaves no entry behind.
            guard let held = active[host] else { return }
            active[host] = held > 1 ? held - 1 : nil
        }
    }

    /// Connections now open to `host` (for tests).
    func active(_ host: String) -> Int {
        queue.read { $0[host] ?? 0 }
    }
}

/// A permit of a ``HostLimiter``, returned when released or when it goes away.
final class HostPermit: Sendable {
    private let limiter: HostLimiter
    private let host: String
    private let held = LockedBox(true)

    init(limiter: HostLimiter, host: String) {
        self.limiter = limiter
        self.host = host
    }

    /// Returns the permit (once; later calls do nothing).
    func release() {
        let wasHeld = held.withLockedValue { h -> Bool in
            defer { h = false }
            return h
        }
        if wasHeld { limiter.release(host) }
    }

    deinit {
        release()
    }
}
#endif
