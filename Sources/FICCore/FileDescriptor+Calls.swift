import CFICCore
import Glibc
import SystemPackage

// Every system call of the package is made in FICCore (here, in `Directory`, `MappedRegion`,
// `PageBuffer`, `WritesInFlight`, and in CFICCore's C): one EINTR loop per language
// (`retryingSystemCall`, and `FIC_RETRYING_EINTR` in C), one short-read and one short-write loop
// (CFICCore's `fic_read_fully` and `fic_write_fully`, used from Swift and from C alike), and one
// place that turns an `errno` into an error (`ImageCacheError.system`). Other modules call these
// wrappers, never the C library's file calls: a fix to retrying, to short transfers or to error
// mapping then reaches every caller.

/// The running system's page size.
package let systemPageSize: Int = Int(sysconf(Int32(_SC_PAGESIZE)))

/// The `errno` the last failed system call of this thread left, typed.
@inline(__always)
func lastErrno() -> Errno {
    Errno(rawValue: Glibc.errno)
}

/// Runs a system call's closure until it does not fail with `EINTR` (the package's one EINTR
/// loop in Swift; CFICCore's C has `FIC_RETRYING_EINTR`); returns its result, or the error for
/// `call` on `path` with the `errno` it left.
@inline(__always)
package func retryingSystemCall<T: BinaryInteger>(_ call: String, path: String?, _ body: () -> T) throws -> T {
    while true {
        let result = body()
        if result >= 0 { return result }
        let e = lastErrno()
        if e == .interrupted { continue }
        throw ImageCacheError.system(call, path: path, errno: e)
    }
}

/// The status of the file at `path`, following a last-component link when `followLinks`
/// (`stat`), or describing the link itself otherwise (`lstat`).
///
/// For paths a user names (photo folders, image files); the package's own files are looked up
/// relative to their ``Directory`` instead, never through a link.
package func fileStatus(atPath path: String, followLinks: Bool = true) throws -> Glibc.stat {
    var st = Glibc.stat()
    _ = try retryingSystemCall(followLinks ? "stat" : "lstat", path: path) {
        fstatat(AT_FDCWD, path, &st, followLinks ? 0 : AT_SYMLINK_NOFOLLOW)
    }
    return st
}

extension FileDescriptor {
    /// Opens the file at `path` (`open(2)`, always close-on-exec), with `permissions` for a file it
    /// creates. Fails with the `.system` error of `open`, `errno` included.
    ///
    /// For paths a user names (an image to read, a PNG to write); the package's own files are
    /// opened relative to their ``Directory`` instead. Named apart from swift-system's `open`,
    /// which reports a bare `Errno` and has its own EINTR loop.
    package static func open(
        atPath path: String, _ mode: AccessMode, options: OpenOptions = [], permissions: FilePermissions? = nil
    ) throws -> FileDescriptor {
        let flags = mode.rawValue | options.rawValue | O_CLOEXEC
        let raw = try retryingSystemCall("open", path: path) { Glibc.open(path, flags, permissions?.rawValue ?? 0) }
        return FileDescriptor(rawValue: raw)
    }

    /// The text of a small system file (`/proc`, `/sys`), at most `limit` bytes of it; nil when it
    /// cannot be opened or read.
    package static func smallText(atPath path: String, limit: Int) -> String? {
        guard let fd = try? open(atPath: path, .readOnly) else { return nil }
        defer { fd.closeQuietly() }
        var buffer = [UInt8](repeating: 0, count: max(limit, 0))
        guard let count = try? buffer.withUnsafeMutableBytes({ try fd.readAll(into: $0, path: path) }) else { return nil }
        return String(decoding: buffer[0..<count], as: UTF8.self)
    }

    /// A new, empty file that lives in memory only (`memfd_create`), named `name` for
    /// `/proc/PID/fd` listings: for state a process keeps to itself with the same code that would
    /// share it through a file on the disk.
    package static func memoryFile(named name: String) throws -> FileDescriptor {
        FileDescriptor(rawValue: try retryingSystemCall("memfd_create", path: nil) { fic_memfd_create(name) })
    }

    /// A second descriptor of the same open file (`F_DUPFD_CLOEXEC`), closed separately: a
    /// reader may hold it while the owner closes its own.
    package func duplicate(path: String?) throws -> FileDescriptor {
        FileDescriptor(rawValue: try retryingSystemCall("dup", path: path) { fcntl(rawValue, F_DUPFD_CLOEXEC, 0) })
    }

    /// A new open file description of the same file, opened read-write through its
    /// `/proc/self/fd` name (no path is looked up again, so a file renamed or replaced meanwhile
    /// is still this one): unlike ``duplicate(path:)``, its open-file-description locks conflict
    /// with this one's, so that two threads of one process can exclude each other as two
    /// processes do. Fails where `/proc` is not mounted.
    package func reopened(path: String?) throws -> FileDescriptor {
        let name = "/proc/self/fd/\(rawValue)"
        return FileDescriptor(rawValue: try retryingSystemCall("open", path: path) { Glibc.open(name, O_RDWR | O_CLOEXEC) })
    }

    /// Adds and removes status flags (`F_GETFL`, `F_SETFL`); returns false when the system
    /// refused (the flags are then unchanged).
    private func changeStatusFlags(adding: Int32 = 0, removing: Int32 = 0) -> Bool {
        let flags = fcntl(rawValue, F_GETFL)
        guard flags >= 0 else { return false }
        let wanted = (flags | adding) & ~removing
        return wanted == flags || fcntl(rawValue, F_SETFL, wanted) == 0
    }

    /// Makes reads and writes block again, after an open that used `O_NONBLOCK` only so that a
    /// FIFO or a device could not block the open itself (regular files ignore the flag anyway).
    package func clearNonBlocking() {
        _ = changeStatusFlags(removing: O_NONBLOCK)
    }

    /// Turns `O_DIRECT` on or off: writes then go from the caller's (aligned) memory to the disk
    /// without the page cache. Returns false where the file system refuses it; the file then
    /// stays as it was (buffered), which is always correct, only slower for huge writes.
    @discardableResult
    package func setDirectIO(_ enabled: Bool) -> Bool {
        enabled ? changeStatusFlags(adding: fic_o_direct) : changeStatusFlags(removing: fic_o_direct)
    }

    /// A lock on a whole file, as `flock(2)` takes it: held by the open file description, released
    /// when the last descriptor of it closes.
    package enum LockKind: Sendable {
        /// Many holders may share it.
        case shared
        /// One holder only.
        case exclusive
    }

    /// Takes a `flock` lock. Returns false when `wait` is false and another open file holds a
    /// conflicting lock.
    package func lock(_ kind: LockKind, wait: Bool, path: String?) throws -> Bool {
        let operation = (kind == .shared ? LOCK_SH : LOCK_EX) | (wait ? 0 : LOCK_NB)
        while flock(rawValue, operation) != 0 {
            let e = lastErrno()
            if e == .interrupted { continue }
            if e == .wouldBlock { return false }
            throw ImageCacheError.system("flock", path: path, errno: e)
        }
        return true
    }

    /// Writes the file's data and metadata to the disk.
    package func synchronize(path: String?) throws {
        _ = try retryingSystemCall("fsync", path: path) { fsync(rawValue) }
    }

    /// Starts writing the changed pages of `length` bytes at `offset` to the disk, without
    /// waiting for them (`sync_file_range` with `SYNC_FILE_RANGE_WRITE`): a file written in
    /// pieces and then ``synchronize(path:)``ed is mostly on the disk by then, instead of all of
    /// it being written while the final flush waits. A hint: nothing is promised until that
    /// flush, so its failure (a file system without it) is ignored.
    package func startWriteback(offset: Int, length: Int) {
        guard length > 0 else { return }
        _ = fic_start_writeback(rawValue, Int64(offset), Int64(length))
    }

    /// The file's status.
    package func status(path: String?) throws -> Glibc.stat {
        var st = Glibc.stat()
        _ = try retryingSystemCall("fstat", path: path) { fstat(rawValue, &st) }
        return st
    }

    /// Reserves disk blocks for `[offset, offset + length)`, extending the file when needed, so that
    /// later writes through a mapping cannot fail with SIGBUS on a full disk. File systems without
    /// `fallocate` get zeros written instead, which reports a full disk just as early.
    package func allocate(offset: Int, length: Int, path: String?) throws {
        guard length > 0 else { return }
        let rc = posix_fallocate(rawValue, off_t(offset), off_t(length))
        if rc == 0 { return }
        guard rc == EOPNOTSUPP || rc == EINVAL else {
            throw ImageCacheError.system("posix_fallocate", path: path, errno: Errno(rawValue: rc))
        }
        let zeros = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { zeros.deallocate() }
        zeros.initializeMemory(as: UInt8.self, repeating: 0)
        var done = 0
        while done < length {
            let n = min(zeros.count, length - done)
            try writeAll(UnsafeRawBufferPointer(rebasing: zeros[0..<n]), at: offset + done, path: path)
            done += n
        }
    }

    /// Sets the file's length.
    package func truncate(to length: Int, path: String?) throws {
        _ = try retryingSystemCall("ftruncate", path: path) { ftruncate(rawValue, off_t(length)) }
    }

    /// Reads up to `buffer.count` bytes at `offset`; fewer only at the end of the file.
    package func readAll(into buffer: UnsafeMutableRawBufferPointer, at offset: Int, path: String?) throws -> Int {
        // A negative offset (from a damaged file's fields) is the system's EINVAL, not "the current position".
        guard offset >= 0 else { throw ImageCacheError.system("pread", path: path, errno: .invalidArgument) }
        return try readFully(into: buffer, offset: Int64(offset), call: "pread", path: path)
    }

    /// Reads from the current position until `buffer` is full or the file ends (a pipe: until
    /// its writers close it).
    package func readAll(into buffer: UnsafeMutableRawBufferPointer, path: String?) throws -> Int {
        try readFully(into: buffer, offset: -1, call: "read", path: path)
    }

    /// Writes all of `buffer` at `offset`.
    package func writeAll(_ buffer: UnsafeRawBufferPointer, at offset: Int, path: String?) throws {
        guard offset >= 0 else { throw ImageCacheError.system("pwrite", path: path, errno: .invalidArgument) }
        try writeFully(buffer, offset: Int64(offset), call: "pwrite", path: path)
    }

    /// Writes all of `buffer` at the current position.
    package func writeAll(_ buffer: UnsafeRawBufferPointer, path: String?) throws {
        try writeFully(buffer, offset: -1, call: "write", path: path)
    }

    /// CFICCore's short-read loop (`offset` -1: the current position), its `errno` made an error.
    private func readFully(into buffer: UnsafeMutableRawBufferPointer, offset: Int64, call: String, path: String?) throws -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        var done = 0
        let e = fic_read_fully(rawValue, base, buffer.count, offset, &done)
        if e != 0 { throw ImageCacheError.system(call, path: path, errno: Errno(rawValue: e)) }
        return done
    }

    /// CFICCore's short-write loop (`offset` -1: the current position), its `errno` made an error.
    private func writeFully(_ buffer: UnsafeRawBufferPointer, offset: Int64, call: String, path: String?) throws {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        let e = fic_write_fully(rawValue, base, buffer.count, offset, nil)
        if e != 0 { throw ImageCacheError.system(call, path: path, errno: Errno(rawValue: e)) }
    }

    /// Closes the descriptor and reports a failure (a file system that writes back on close, such
    /// as NFS, says only then that the data did not arrive). Never retried: Linux releases the
    /// descriptor even when `close` fails with `EINTR`, which therefore counts as success.
    package func close(path: String?) throws {
        guard Glibc.close(rawValue) != 0 else { return }
        let e = lastErrno()
        if e != .interrupted { throw ImageCacheError.system("close", path: path, errno: e) }
    }

    /// Closes the descriptor, ignoring errors (for cleanup paths, where the original error matters).
    package func closeQuietly() {
        _ = Glibc.close(rawValue)
    }
}

extension Glibc.stat {
    /// Whether this is a regular file.
    package var isRegularFile: Bool { (st_mode & S_IFMT) == S_IFREG }
    /// Whether this is a directory.
    package var isDirectory: Bool { (st_mode & S_IFMT) == S_IFDIR }
    /// Whether this is a symbolic link (only from an `lstat`-like call).
    package var isSymbolicLink: Bool { (st_mode & S_IFMT) == S_IFLNK }
    /// Whether two statuses describe the same file.
    package func isSameFile(as other: Glibc.stat) -> Bool { st_dev == other.st_dev && st_ino == other.st_ino }
}

extension FileDescriptor {
    /// Releases a `flock` lock held through this descriptor.
    package func unlock() {
        _ = flock(rawValue, LOCK_UN)
    }
}
