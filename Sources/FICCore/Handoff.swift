/// A value handed from whichever thread produced it to the task that waits for it: the one way the
/// package hands a thread's result to an async caller (the cache's lanes, ``WorkerThreads``).
///
/// The value passes through a lock, not only through a continuation: a continuation resumed from
/// one of the cache's own threads, possibly before the waiting task has even suspended, is a
/// hand-over Thread Sanitizer cannot follow, and it then reports the value's fields as racing.
/// Through the lock, the hand-over is one it understands.
package final class Handoff<Value: Sendable>: Sendable {
    private struct State {
        var outcome: Result<Value, any Error>?
        var continuation: CheckedContinuation<Void, Never>?
    }

    private let state = LockedBox(State())

    /// A hand-over with nothing delivered yet.
    package init() {}

    /// Waits until ``deliver(_:)`` is called (by `start`, or later by anyone), then returns or
    /// throws what was delivered.
    package func wait(_ start: () -> Void) async throws -> Value {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLockedValue { s -> Bool in
                if s.outcome != nil { return true }
                s.continuation = continuation
                return false
            }
            if ready { continuation.resume() } else { start() }
        }
        let outcome = state.withLockedValue { $0.outcome }
        guard let outcome else { throw ImageCacheError(.cancelled, "the request ended without an outcome") }
        return try outcome.get()
    }

    /// Hands over the outcome (the first one counts) and wakes the waiting task.
    package func deliver(_ outcome: Result<Value, any Error>) {
        let continuation = state.withLockedValue { s -> CheckedContinuation<Void, Never>? in
            guard s.outcome == nil else { return nil }
            s.outcome = outcome
            defer { s.continuation = nil }
            return s.continuation
        }
        continuation?.resume()
    }
}
