import Glibc

/// A pthread mutex with one condition variable, for handing work between threads (a producer
/// waits for room, a consumer for data). Thread Sanitizer understands both.
final class ConditionLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    /// Creates the lock and its condition.
    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` holding the lock.
    func withLock<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Waits for a ``broadcast()``; call only inside ``withLock(_:)``.
    func wait() {
        pthread_cond_wait(condition, mutex)
    }

    /// Wakes every waiter; call inside ``withLock(_:)``.
    func broadcast() {
        pthread_cond_broadcast(condition)
    }
}

/// A joinable thread running one closure.
final class WorkerThread: @unchecked Sendable {
    private var thread = pthread_t()

    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// Starts `body` on a new thread.
    init(_ body: @escaping @Sendable () -> Void) throws {
        let box = Unmanaged.passRetained(Body(body)).toOpaque()
        let rc = pthread_create(&thread, nil, { raw in
            let body = Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue()
            body.run()
            return nil
        }, box)
        if rc != 0 {
            Unmanaged<Body>.fromOpaque(box).release()
            throw ImageCacheError(.io, "could not start a worker thread", errno: rc)
        }
    }

    /// Waits for the closure to return.
    func join() {
        pthread_join(thread, nil)
    }
}
