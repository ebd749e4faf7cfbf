import CFICCore
import Glibc
import SystemPackage

/// Locks on byte ranges of a file held by the open file description (`F_OFD_SETLK`): released by
/// the kernel when the last descriptor of that description closes or its process dies, whatever
/// state the process was in, and never by another descriptor of the same process closing (as
/// POSIX record locks would be). A range may lie beyond the end of the file: a lock is then a
/// named token that needs no bytes, such as "holder 3 is alive" or "a writer is storing".
extension FileDescriptor {
    /// Takes a read (shared) or write (exclusive) lock on `length` bytes from `start`. Returns
    /// false when `wait` is false and another open file description holds a conflicting lock.
    package func lockRange(_ kind: LockKind, start: Int64, length: Int64, wait: Bool, path: String?) throws -> Bool {
        let e = fic_ofd_lock(rawValue, kind == .shared ? fic_lock_read : fic_lock_write, start, length, wait ? 1 : 0)
        if e == 0 { return true }
        if !wait && (e == EAGAIN || e == EACCES) { return false }
        throw ImageCacheError.system("fcntl(F_OFD_SETLK)", path: path, errno: Errno(rawValue: e))
    }

    /// Releases what this open file description holds of `length` bytes from `start`.
    package func unlockRange(start: Int64, length: Int64, path: String?) throws {
        let e = fic_ofd_lock(rawValue, fic_lock_unlock, start, length, 0)
        if e != 0 { throw ImageCacheError.system("fcntl(F_OFD_SETLK, F_UNLCK)", path: path, errno: Errno(rawValue: e)) }
    }

    /// Whether another open file description holds a lock on `length` bytes from `start` that a
    /// lock of `kind` would conflict with (`F_OFD_GETLK`). Locks of this description do not count.
    package func isRangeLockedByOthers(_ kind: LockKind, start: Int64, length: Int64, path: String?) throws -> Bool {
        var holder: Int32 = 0
        let e = fic_ofd_lock_test(rawValue, kind == .shared ? fic_lock_read : fic_lock_write, start, length, &holder)
        if e != 0 { throw ImageCacheError.system("fcntl(F_OFD_GETLK)", path: path, errno: Errno(rawValue: e)) }
        return holder != fic_lock_unlock
    }
}
