import CFICCore
import Glibc

/// A small pool of dedicated threads (``WorkerThread``s), outside Swift's cooperative pool, for
/// work that blocks (file I/O) or keeps a core busy for long (decoding, drawing).
///
/// Work runs first come, first served on at most ``maximumThreads`` threads. A thread is started
/// when queued work outnumbers idle threads, and ends after a few idle seconds, so an unused pool
/// costs nothing. After ``stop()`` queued work still runs; new work is refused.
package final class WorkerThreads: Sendable {
    private struct State {
        var queue = FIFO<@Sendable () -> Void>()
        var threads = 0
        var idle = 0
        var stopped = false
        var members = Set<pthread_t>()
    }

    /// The threads' name, for debuggers and tests.
    package let name: String
    /// The most threads running at once.
    package let maximumThreads: Int
    /// How much lower than the process's threads these threads run (a nice value added to 0).
    package let niceness: Int32
    private let idleTime: Duration
    private let state = ConditionBox(State())

    /// A pool of at most `maximumThreads` threads named `name` that end after `idleSeconds` idle,
    /// running at `niceness` (0 as the rest of the process; higher runs only what a core has to
    /// spare after the process's other threads, as decoders should beside a frame thread).
    package init(name: String, maximumThreads: Int, idleSeconds: Double = 5, niceness: Int32 = 0) {
        self.name = name
        self.niceness = max(0, min(19, niceness))
        self.maximumThreads = max(1, maximumThreads)
        idleTime = .nanoseconds(Int64(max(0, idleSeconds) * 1e9))
    }

    /// The shared pool for blocking file I/O of every cache and provider in the process.
    package static let blockingIO = WorkerThreads(name: "fic-io", maximumThreads: 8)

    /// Queues `work`. Returns false, without running it, once the pool is stopped.
    @discardableResult
    package func submit(_ work: @escaping @Sendable () -> Void) -> Bool {
        let spawn: Bool? = state.withLockedValue { s in
            if s.stopped { return nil }
            s.queue.append(work)
            guard s.queue.count > s.idle, s.threads < maximumThreads else { return false }
            s.threads += 1
            return true
        }
        guard let spawn else { return false }
        state.signal()
        if spawn {
            do {
                try WorkerThread.detach(name: name) { [self] in loop() }
            } catch {
                // The threads already running take the queued work; with none, it would wait forever.
                let left = state.withLockedValue { s in
                    s.threads -= 1
                    return s.threads
                }
                precondition(left > 0, "the worker threads '\(name)' cannot start a thread: \(error)")
            }
        }
        return true
    }

    /// Runs `body` on one of the pool's threads and returns its result. A task cancelled before
    /// the work is queued throws `CancellationError`; queued work runs to the end.
    package func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try Task.checkCancellation()
        let handoff = Handoff<T>()
        return try await handoff.wait {
            let accepted = submit { handoff.deliver(Result { try body() }) }
            if !accepted { handoff.deliver(.failure(ImageCacheError(.closed, "the worker threads '\(name)' are stopped"))) }
        }
    }

    /// Refuses new work; threads end once the queue is empty.
    package func stop() {
        state.update { $0.stopped = true }
    }

    /// The number of threads now running (for tests).
    package var threadCount: Int { state.withLockedValue { $0.threads } }

    /// Whether the calling thread is one of this pool's.
    package var ownsCurrentThread: Bool {
        let me = pthread_self()
        return state.withLockedValue { $0.members.contains(me) }
    }

    /// A pool thread: takes queued work until the pool is stopped and empty, or nothing came for
    /// the idle time.
    private func loop() {
        // A thread that cannot lower its priority still works, only at the process's.
        if niceness != 0 { _ = fic_set_current_thread_niceness(niceness) }
        let me = pthread_self()
        state.withLockedValue { _ = $0.members.insert(me) }
        while true {
            var counted = false
            let work: (@Sendable () -> Void)? = state.withLockedValue(waitingUpTo: idleTime) { s, timedOut in
                if counted {
                    s.idle -= 1
                    counted = false
                }
                if let next = s.queue.popFirst() { return .some(next) }
                if s.stopped || timedOut {
                    s.threads -= 1
                    s.members.remove(me)
                    return .some(nil)
                }
                s.idle += 1
                counted = true
                return nil
            }
            guard let work else { return }
            work()
        }
    }
}
