/// A value that is only reachable while its lock is held.
///
/// The lock and the state it guards live together, so no code can touch the state without
/// taking the lock: the type system, not a comment, keeps the discipline. Inlinable, so that a
/// frame's lookup through it is specialised in the module that uses it.
///
/// It is `Sendable` only when its value is: a lock makes sharing a value safe, not handing over
/// a value that something else may still reach (a non-Sendable class inside would escape with
/// every `withLockedValue` that returns it).
public final class LockedBox<Value> {
    @usableFromInline let lock = Lock()
    /// Only reached under the lock, so the runtime's exclusivity checks are redundant here.
    @usableFromInline @exclusivity(unchecked) var value: Value

    /// Boxes `value`.
    @inlinable
    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, holding the lock.
    @inlinable @inline(__always)
    package func withLockedValue<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// The value is reached only while the lock is held (the lock's mutex, a pointer Swift cannot
/// check, is the box's own and never moves).
extension LockedBox: @unchecked Sendable where Value: Sendable {}
