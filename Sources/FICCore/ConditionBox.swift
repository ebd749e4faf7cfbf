import Glibc

/// A value reachable only while its lock is held, with a condition variable for threads that wait
/// until the value changes: ``LockedBox`` plus waiting (a consumer waits for data, a producer for
/// room, a close for the writers in flight, an idle worker for work).
///
/// Built on a ``Lock`` (`pthread_mutex_t`) and a `pthread_cond_t`, allocated once and never moved,
/// which Thread Sanitizer understands. Timed waits are measured on the monotonic clock, so a change
/// of the wall clock neither cuts them short nor stretches them. Inlinable, like ``LockedBox``:
/// a table's lookups on a frame's path go through one.
public final class ConditionBox<Value> {
    /// Owns the mutex; the box uses the mutex through its own copy of its address.
    @usableFromInline let lock = Lock()
    /// The lock's mutex, every method's: a lookup through the box reaches it without reading the
    /// lock's object, one memory page fewer for a frame's first lookup after idle.
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    @usableFromInline let condition: UnsafeMutablePointer<pthread_cond_t>
    /// Only reached under the lock, so the runtime's exclusivity checks are redundant here.
    @usableFromInline @exclusivity(unchecked) var value: Value

    /// Boxes `value`.
    package init(_ value: Value) {
        self.value = value
        mutex = lock.mutex
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        let rc = pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
        precondition(rc == 0, "pthread_cond_init failed: \(rc)")
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deinitialize(count: 1)
        condition.deallocate()
    }

    /// Runs `body` with the value, holding the lock. Wakes nobody: use ``update(_:)`` for a change
    /// that a waiter may be waiting for.
    @inlinable @inline(__always)
    package func withLockedValue<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }

    /// Waits until `ready` holds, then runs `body`, holding the lock throughout (the waits release it).
    @inlinable
    package func withLockedValue<R, E: Error>(waitingUntil ready: (Value) -> Bool, _ body: (inout Value) throws(E) -> R) throws(E) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !ready(value) { pthread_cond_wait(condition, mutex) }
        return try body(&value)
    }

    /// Runs `body` with the value, holding the lock, until it returns a result: whenever it returns
    /// nil, sleeps (releasing the lock) until woken or until `timeout` has passed since it was
    /// called, and calls it again; `timedOut` tells it that the last sleep ended by the clock.
    package func withLockedValue<R>(waitingUpTo timeout: Duration, _ body: (inout Value, _ timedOut: Bool) -> R?) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        var timedOut = false
        while true {
            if let result = body(&value, timedOut) { return result }
            var deadline = timespec()
            clock_gettime(CLOCK_MONOTONIC, &deadline)
            let (seconds, attoseconds) = max(timeout, .zero).components
            deadline.tv_sec += Int(seconds)
            deadline.tv_nsec += Int(attoseconds / 1_000_000_000)
            if deadline.tv_nsec >= 1_000_000_000 {
                deadline.tv_sec += 1
                deadline.tv_nsec -= 1_000_000_000
            }
            timedOut = pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT
        }
    }

    /// Changes the value and wakes every waiter, which then check whether what they wait for holds.
    @inlinable
    package func update<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        pthread_mutex_lock(mutex)
        defer {
            pthread_cond_broadcast(condition)
            pthread_mutex_unlock(mutex)
        }
        return try body(&value)
    }

    /// Wakes one waiter: for a change that only one of them can act on (one item of work queued).
    package func signal() {
        pthread_cond_signal(condition)
    }

    /// Wakes every waiter.
    package func broadcast() {
        pthread_cond_broadcast(condition)
    }
}

/// Safe to share when its value is: the value is reached only while the lock is held, and the
/// condition variable is the box's own memory, which never moves (pthread objects may not be
/// copied, which is why they live behind pointers that Swift cannot check).
extension ConditionBox: @unchecked Sendable where Value: Sendable {}
