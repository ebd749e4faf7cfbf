/// Tasks waiting, without blocking a thread, for a share of something handed out under a lock
/// (bytes of a memory budget, connections to a host), together with the state that decides
/// whether a share is there.
///
/// Waiters stand in lines (one per host, say). In a line the most urgent waiter goes first, then
/// first come, first served, and nobody overtakes the head of its line: a large share is not
/// starved by small ones that would fit sooner. A waiter whose task is cancelled leaves its line
/// with `CancellationError` (it is granted nothing), and the waiters behind it are looked at
/// again, since it may have been what held them back.
///
/// Every check, queueing, change of the state and grant happens under one lock, so a release
/// cannot slip between a waiter's check and its queueing (no lost wake-ups); continuations are
/// resumed after the lock is let go.
package final class WaiterQueue<Line: Hashable & Sendable, State: Sendable>: Sendable {
    /// Takes `amount` of `line`'s share from `state` when it is there, and says whether it did.
    /// Called under the lock: it must not block or call back into the queue.
    package typealias Admit = @Sendable (_ state: inout State, _ line: Line, _ amount: Int) -> Bool

    private struct Waiter: Sendable {
        let id: UInt64
        let amount: Int
        let urgency: Int
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct Inside: Sendable {
        var state: State
        /// The waiters of each line with any, in the order they came.
        var lines: [Line: [Waiter]] = [:]
        var waiting = 0
        var nextID: UInt64 = 0
    }

    private let inside: LockedBox<Inside>
    private let admit: Admit

    /// A queue with no waiters over `state`, whose shares `admit` hands out.
    package init(_ state: State, admit: @escaping Admit) {
        inside = LockedBox(Inside(state: state))
        self.admit = admit
    }

    /// Waits until `admit` has taken `amount` for the caller in `line`: at once when nobody waits
    /// in that line and the share is there; otherwise once every waiter ahead has gone and a
    /// change (``update(granting:_:)``) makes the share available. Among waiters of a line, a
    /// higher `urgency` goes first.
    ///
    /// - Throws: `CancellationError` when the task is cancelled before it is granted; nothing is
    ///   taken then.
    package func wait(in line: Line, for amount: Int, urgency: Int = 0) async throws {
        let id = inside.withLockedValue { s in
            defer { s.nextID += 1 }
            return s.nextID
        }
        let admit = self.admit
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let granted = inside.withLockedValue { s -> Bool? in
                    // Checked under the lock: a cancellation handler that ran before this found no
                    // waiter to remove, but the task was marked cancelled before it ran.
                    if Task.isCancelled { return nil }
                    if s.lines[line] == nil && admit(&s.state, line, amount) { return true }
                    s.lines[line, default: []].append(Waiter(id: id, amount: amount, urgency: urgency, continuation: continuation))
                    s.waiting += 1
                    return false
                }
                switch granted {
                case nil: continuation.resume(throwing: CancellationError())
                case true?: continuation.resume()
                case false?: break
                }
            }
        } onCancel: {
            let (removed, granted) = inside.withLockedValue { s -> (Waiter?, [Waiter]) in
                guard var waiters = s.lines[line], let index = waiters.firstIndex(where: { $0.id == id }) else {
                    return (nil, [])  // granted already, or not queued yet (it sees the cancellation then)
                }
                let removed = waiters.remove(at: index)
                s.lines[line] = waiters.isEmpty ? nil : waiters
                s.waiting -= 1
                // The one that left may have been the head that the others waited behind.
                return (removed, Self.grant(line, in: &s, admit))
            }
            removed?.continuation.resume(throwing: CancellationError())
            for waiter in granted { waiter.continuation.resume() }
        }
    }

    /// Takes `amount` in `line` now if nobody waits there and `admit` finds the share; says whether it did.
    package func tryTake(in line: Line, _ amount: Int) -> Bool {
        inside.withLockedValue { s in s.lines[line] == nil && admit(&s.state, line, amount) }
    }

    /// Changes the state (a share given back), then grants the waiters of `line` in order while
    /// the first of them is admitted.
    @discardableResult
    package func update<R>(granting line: Line, _ body: (inout State) -> R) -> R {
        let admit = self.admit
        let (result, granted) = inside.withLockedValue { s in
            let result = body(&s.state)
            return (result, Self.grant(line, in: &s, admit))
        }
        for waiter in granted { waiter.continuation.resume() }
        return result
    }

    /// Reads the state under the lock.
    package func read<R>(_ body: (State) -> R) -> R {
        inside.withLockedValue { body($0.state) }
    }

    /// The number of waiters, in every line.
    package var waitingCount: Int { inside.withLockedValue { $0.waiting } }

    /// Removes and returns the waiters of `line` that `admit` lets in, head first, stopping at the
    /// first that it does not.
    private static func grant(_ line: Line, in s: inout Inside, _ admit: Admit) -> [Waiter] {
        guard var waiters = s.lines[line] else { return [] }
        var granted: [Waiter] = []
        while let head = headIndex(waiters), admit(&s.state, line, waiters[head].amount) {
            granted.append(waiters.remove(at: head))
        }
        s.lines[line] = waiters.isEmpty ? nil : waiters
        s.waiting -= granted.count
        return granted
    }

    /// The most urgent waiter that came first.
    private static func headIndex(_ waiters: [Waiter]) -> Int? {
        guard var best = waiters.indices.first else { return nil }
        for i in waiters.indices.dropFirst() where waiters[i].urgency > waiters[best].urgency { best = i }
        return best
    }
}
