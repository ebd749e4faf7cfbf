import FICCore

/// The table-file locks this process lets go of, counted, so that an opener that finds a table
/// locked waits for a release instead of sleeping.
///
/// A lock held by another table object of this process is announced here the moment it goes (a
/// close, a handle going away). A lock held by another process cannot be seen from here: its
/// release (the process closes the table, or dies) is found by trying the lock again, which the
/// opener does when its bounded wait ends.
enum TableLockReleases {
    private static let released = ConditionBox<UInt64>(0)

    /// The releases so far; read it before trying a lock, and wait for a later one.
    static var count: UInt64 { released.withLockedValue { $0 } }

    /// A table lock of this process was let go of.
    static func announce() {
        released.update { $0 &+= 1 }
    }

    /// Waits until a release after the `seen` count, or until `timeout` passes.
    static func wait(after seen: UInt64, upTo timeout: Duration) {
        released.withLockedValue(waitingUpTo: timeout) { count, timedOut in
            count != seen || timedOut ? () : nil
        }
    }
}
