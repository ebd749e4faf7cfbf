/// A value that is only reachable while its lock is held.
///
/// The lock and the state it guards live together, so no code can touch the state without
/// taking the lock: the type system, not a comment, keeps the discipline.
package final class LockedBox<Value>: @unchecked Sendable {
    private let lock = Lock()
    /// Only reached under the lock, so the runtime's exclusivity checks are redundant here.
    @exclusivity(unchecked) private var value: Value

    /// Boxes `value`.
    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, holding the lock.
    @inline(__always)
    package func withLockedValue<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        try lock.withLock { () throws(E) -> R in try body(&value) }
    }
}
