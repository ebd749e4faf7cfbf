/// One budget of bytes shared by decodes running at the same time: each reserves what
/// ``ImageDecoder/estimatedMemory(ofFileAt:options:)`` says it needs before it starts, and waits
/// (without blocking a thread) while the budget is spent.
///
/// Reservations are granted in the order they were asked for, so a large one is not starved by
/// small ones. A reservation larger than the whole budget is granted when nothing else is reserved:
/// that decode then runs alone, rather than never. Thread-safe.
public final class DecodeMemoryBudget: Sendable {
    /// The bytes the budget holds.
    public let capacity: Int

    private struct Waiter {
        let id: UInt64
        let bytes: Int
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var reserved = 0
        var nextID: UInt64 = 0
        var waiters: [Waiter] = []
        var peak = 0
        /// Reservations cancelled before they started waiting.
        var cancelled: Set<UInt64> = []
    }

    private let state = LockedBox(State())

    /// A budget of `capacity` bytes (at least 1).
    public init(capacity: Int) {
        self.capacity = max(capacity, 1)
    }

    /// Bytes reserved right now.
    public var reservedBytes: Int { state.withLockedValue { $0.reserved } }
    /// The most bytes that were reserved at once.
    public var peakReservedBytes: Int { state.withLockedValue { $0.peak } }
    /// Reservations waiting for bytes to be released.
    public var waitingCount: Int { state.withLockedValue { $0.waiters.count } }

    /// Reserves `bytes` (negative counts as 0), waiting until they fit.
    ///
    /// - Throws: `CancellationError` when the task is cancelled while it waits (nothing is reserved then).
    public func reserve(_ bytes: Int) async throws -> Reservation {
        let bytes = max(bytes, 0)
        let id: UInt64 = state.withLockedValue { s in
            defer { s.nextID += 1 }
            return s.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLockedValue { s -> Bool? in
                    if s.cancelled.remove(id) != nil { return nil }
                    if s.waiters.isEmpty && fits(bytes, s) {
                        take(bytes, &s)
                        return true
                    }
                    s.waiters.append(Waiter(id: id, bytes: bytes, continuation: continuation))
                    return false
                }
                switch outcome {
                case nil: continuation.resume(throwing: CancellationError())
                case true?: continuation.resume()
                case false?: break
                }
            }
        } onCancel: {
            let removed = state.withLockedValue { s -> Waiter? in
                guard let index = s.waiters.firstIndex(where: { $0.id == id }) else {
                    s.cancelled.insert(id)  // not waiting yet (or already granted: then it is never looked up)
                    return nil
                }
                return s.waiters.remove(at: index)
            }
            removed?.continuation.resume(throwing: CancellationError())
            // A waiter leaving the head of the queue may let the ones behind it in.
            if removed != nil { grantWaiting() }
        }
        return Reservation(budget: self, bytes: bytes)
    }

    /// Reserves `bytes` now if they fit and nobody is waiting; nil otherwise.
    public func tryReserve(_ bytes: Int) -> Reservation? {
        let bytes = max(bytes, 0)
        let granted = state.withLockedValue { s -> Bool in
            guard s.waiters.isEmpty && fits(bytes, s) else { return false }
            take(bytes, &s)
            return true
        }
        return granted ? Reservation(budget: self, bytes: bytes) : nil
    }

    private func fits(_ bytes: Int, _ s: State) -> Bool {
        s.reserved == 0 || bytes <= capacity - s.reserved
    }

    private func take(_ bytes: Int, _ s: inout State) {
        s.reserved += bytes
        s.peak = max(s.peak, s.reserved)
    }

    fileprivate func release(_ bytes: Int) {
        state.withLockedValue { $0.reserved -= bytes }
        grantWaiting()
    }

    /// Grants waiting reservations in order while the first one fits.
    private func grantWaiting() {
        let granted = state.withLockedValue { s -> [Waiter] in
            var granted: [Waiter] = []
            while let first = s.waiters.first, fits(first.bytes, s) {
                take(first.bytes, &s)
                granted.append(s.waiters.removeFirst())
            }
            return granted
        }
        for waiter in granted { waiter.continuation.resume() }
    }

    /// Bytes reserved from a budget, given back by ``release()`` or when the reservation goes away.
    public final class Reservation: Sendable {
        /// The bytes reserved.
        public let bytes: Int
        private let budget: DecodeMemoryBudget
        private let released = LockedBox(false)

        fileprivate init(budget: DecodeMemoryBudget, bytes: Int) {
            self.budget = budget
            self.bytes = bytes
        }

        deinit {
            release()
        }

        /// Gives the bytes back (once; later calls do nothing).
        public func release() {
            let first = released.withLockedValue { done -> Bool in
                defer { done = true }
                return !done
            }
            if first { budget.release(bytes) }
        }
    }
}
