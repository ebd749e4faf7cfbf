import Glibc

/// A mutual-exclusion lock built on `pthread_mutex_t`.
///
/// The mutex is allocated once and never moves. It is used instead of `Synchronization.Mutex`
/// because Thread Sanitizer understands pthread mutexes on Linux, while it reports false races
/// inside `Mutex`, which waits on futexes it cannot see. State a lock guards belongs in a
/// ``LockedBox``; a bare lock guards only state that cannot be moved into one (for example a
/// class's fields that readers on a frame's path reach without a closure).
///
/// The type is public and its members `package`: the compiler inlines no inlinable member of a
/// `package` type into another module (it calls the unspecialised generic instead, which a
/// frame's lookup paid for on every hit, in code and in pages touched after idle). An application
/// that imports ImageTable (which re-exports FICCore) sees the type's name and can use none of
/// its members. ``LockedBox``, ``ConditionBox`` and ``SipHash128`` do the same.
///
/// `@unchecked Sendable`: the mutex is reached through a pointer the compiler cannot check; it
/// never moves, and sharing it between threads is what it is for.
public final class Lock: @unchecked Sendable {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// Creates an unlocked lock.
    package init() {
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let rc = pthread_mutex_init(mutex, nil)
        precondition(rc == 0, "pthread_mutex_init failed: \(rc)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` while holding the lock.
    @inlinable @inline(__always)
    package func withLock<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Takes the lock if no one holds it; returns whether it did (pair a true with ``unlock()``).
    @inlinable @inline(__always)
    package func tryLock() -> Bool { pthread_mutex_trylock(mutex) == 0 }

    /// Takes the lock; pair with ``unlock()``.
    @inlinable @inline(__always)
    package func lock() { pthread_mutex_lock(mutex) }

    /// Releases the lock taken with ``lock()``.
    @inlinable @inline(__always)
    package func unlock() { pthread_mutex_unlock(mutex) }
}
