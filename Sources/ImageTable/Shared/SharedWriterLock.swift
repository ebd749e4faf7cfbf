import FICCore
import SystemPackage

/// The one-writer-at-a-time lock of a table shared by several processes: an open-file-description
/// write lock on one byte of the shared state file, far beyond its end. A writer holds it only
/// around reserving a slot and around committing one — never while it draws, never for its
/// lifetime — and the kernel releases it when the writer dies, at whatever instruction, so a
/// killed writer never blocks the others. A stopped one (`SIGSTOP`) does, for as long as it holds
/// it: the others then give up after their timeout, and lookups, which never take it, go on.
package enum SharedWriterLock {
    /// The lock byte.
    package static let byte: Int64 = (1 << 60) + 1
    /// The first pause between two tries, doubled up to ``longestPause``: a store's critical
    /// section lasts microseconds, and a dead writer's lock is free at the next try.
    static let shortestPause = Duration.microseconds(50)
    static let longestPause = Duration.milliseconds(1)

    /// Takes the lock (or the lock on byte `byte`, as the table's open gate does) through
    /// `descriptor`, trying until `timeout` has passed. Returns false when another open file
    /// description held it all that time. `waiting` is called once, when the first try finds the
    /// lock held (to say so in a log, or for a test to know). Pauses between tries grow up to
    /// `longestPause` (a lock held for a whole decode needs no millisecond polling).
    package static func acquire(
        _ descriptor: FileDescriptor, byte: Int64 = byte, kind: FileDescriptor.LockKind = .exclusive, timeout: Duration,
        longestPause: Duration = longestPause, path: String?, waiting: () -> Void = {}
    ) throws -> Bool {
        if try descriptor.lockRange(kind, start: byte, length: 1, wait: false, path: path) { return true }
        waiting()
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var pause = shortestPause
        while clock.now < deadline {
            pauseCurrentThread(min(pause, deadline - clock.now))
            if try descriptor.lockRange(kind, start: byte, length: 1, wait: false, path: path) { return true }
            pause = min(pause * 2, max(longestPause, shortestPause))
        }
        return false
    }

    /// Lets go of the lock (on `byte`) taken through `descriptor`.
    package static func release(_ descriptor: FileDescriptor, byte: Int64 = byte, path: String?) throws {
        try descriptor.unlockRange(start: byte, length: 1, path: path)
    }
}
