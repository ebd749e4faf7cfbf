import FICCore

/// At most a fixed number of connections per host: callers wait for a permit, the most urgent
/// task first (then first come, first served); a cancelled waiter leaves the queue.
final class HostLimiter: Sendable {
    private struct Waiter {
        let id: UInt64
        let priority: UInt8
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct Host {
        var active = 0
        var waiters: [Waiter] = []
    }

    private struct State {
        var hosts: [String: Host] = [:]
        var nextID: UInt64 = 0
    }

    let limit: Int
    private let state = LockedBox(State())

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Waits for a permit for `host`; release it with ``release(_:)`` exactly once.
    ///
    /// - Throws: `CancellationError` when the task is cancelled while waiting.
    func acquire(_ host: String) async throws {
        let priority = Task.currentPriority.rawValue
        let id: UInt64 = state.withLockedValue { s in
            s.nextID += 1
            return s.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Checked under the lock: a cancellation handler that ran before this found nothing
                // to remove, but the task is marked cancelled already.
                let granted = state.withLockedValue { s -> Bool? in
                    if Task.isCancelled { return nil }
                    var h = s.hosts[host, default: Host()]
                    defer { s.hosts[host] = h }
                    if h.active < limit && h.waiters.isEmpty {
                        h.active += 1
                        return true
                    }
                    h.waiters.append(Waiter(id: id, priority: priority, continuation: continuation))
                    return false
                }
                switch granted {
                case nil: continuation.resume(throwing: CancellationError())
                case true?: continuation.resume()
                case false?: break
                }
            }
        } onCancel: {
            let removed: Waiter? = state.withLockedValue { s in
                guard var h = s.hosts[host], let i = h.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                let w = h.waiters.remove(at: i)
                s.hosts[host] = h
                return w
            }
            removed?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Returns a permit of `host`, handing it to the most urgent waiter if there is one.
    func release(_ host: String) {
        let next: Waiter? = state.withLockedValue { s in
            guard var h = s.hosts[host] else { return nil }
            defer { s.hosts[host] = (h.active == 0 && h.waiters.isEmpty) ? nil : h }
            guard let best = h.waiters.indices.max(by: { h.waiters[$0].priority < h.waiters[$1].priority || (h.waiters[$0].priority == h.waiters[$1].priority && h.waiters[$0].id > h.waiters[$1].id) }) else {
                h.active -= 1
                return nil
            }
            return h.waiters.remove(at: best)
        }
        next?.continuation.resume()
    }

    /// Connections now open to `host` (for tests).
    func active(_ host: String) -> Int {
        state.withLockedValue { $0.hosts[host]?.active ?? 0 }
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
