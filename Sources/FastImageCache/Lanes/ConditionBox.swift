import Glibc

/// A value reachable only while its lock is held, with a condition variable for waiting until
/// the value changes: ``LockedBox`` plus waiting.
///
/// Built on `pthread_mutex_t` and `pthread_cond_t` (allocated once, never moved), which Thread
/// Sanitizer understands. The condition variable measures timeouts on the monotonic clock.
package final class ConditionBox<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var value: Value

    /// Boxes `value`.
    package init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        precondition(pthread_mutex_init(mutex, nil) == 0, "pthread_mutex_init failed")
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        precondition(pthread_cond_init(condition, &attributes) == 0, "pthread_cond_init failed")
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deinitialize(count: 1)
        condition.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock.
    package func withLockedValue<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }

    /// Runs `body` with the value, holding the lock, until it returns a result: whenever it
    /// returns nil, sleeps (releasing the lock) until woken or until `seconds` pass, and calls it
    /// again; `timedOut` tells it that the last sleep ended by the clock.
    package func withLockedValue<R>(waitingUpTo seconds: Double, _ body: (inout Value, _ timedOut: Bool) -> R?) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        var timedOut = false
        while true {
            if let result = body(&value, timedOut) { return result }
            var deadline = timespec()
            clock_gettime(CLOCK_MONOTONIC, &deadline)
            let whole = Int(seconds)
            deadline.tv_sec += whole
            deadline.tv_nsec += Int((seconds - Double(whole)) * 1e9)
            if deadline.tv_nsec >= 1_000_000_000 {
                deadline.tv_sec += 1
                deadline.tv_nsec -= 1_000_000_000
            }
            timedOut = pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT
        }
    }

    /// Wakes one waiter.
    package func signal() {
        pthread_cond_signal(condition)
    }

    /// Wakes every waiter.
    package func broadcast() {
        pthread_cond_broadcast(condition)
    }
}
