import FICCore
import FICHarness
import FICTestSupport
import Foundation
import Glibc
import SystemPackage
import Testing

/// Locks on byte ranges held by the open file description (`F_OFD_SETLK`), as processes sharing
/// a table use them for "a writer is storing" and "holder h is alive": two descriptions conflict
/// even in one process, a lock may lie far beyond the end of the file, and the kernel releases a
/// process's locks when it is killed (and keeps them while it is stopped). The other process is
/// Python, taking its lock with `fcntl(F_OFD_SETLK)` itself.
@Suite final class RangeLockTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("fic-range-locks-\(UUID().uuidString)").path
    /// A byte far beyond the end of any file, as the shared state's lock bytes are.
    static let farByte: Int64 = 1 << 60

    init() throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: root)
    }

    func open(_ path: String) throws -> FileDescriptor {
        try FileDescriptor.open(atPath: path, .readWrite, options: [.create, .closeOnExec], permissions: [.ownerReadWrite])
    }

    @Test func twoDescriptionsInOneProcessConflictAndTheOwnLockDoesNotCount() throws {
        // A child process started by another test while b is open would hold a copy of b's
        // description, and with it b's locks, until it execs: none is started meanwhile.
        try ChildProcess.withNoChildStarting {
            let path = root + "/shared"
            let a = try open(path), b = try open(path)
            defer { a.closeQuietly() }
            #expect(try a.lockRange(.exclusive, start: Self.farByte, length: 1, wait: false, path: path))
            #expect(try a.isRangeLockedByOthers(.exclusive, start: Self.farByte, length: 1, path: path) == false)
            #expect(try b.isRangeLockedByOthers(.shared, start: Self.farByte, length: 1, path: path))
            #expect(try b.lockRange(.shared, start: Self.farByte, length: 1, wait: false, path: path) == false)
            // Another byte is another lock.
            #expect(try b.lockRange(.exclusive, start: Self.farByte + 1, length: 1, wait: false, path: path))
            try a.unlockRange(start: Self.farByte, length: 1, path: path)
            #expect(try b.lockRange(.exclusive, start: Self.farByte, length: 1, wait: false, path: path))
            // Closing b's description releases both of its locks.
            b.closeQuietly()
            #expect(try a.lockRange(.exclusive, start: Self.farByte, length: 2, wait: false, path: path))
        }
    }

    @Test func sharedLocksShareAndExcludeAWriter() throws {
        let path = root + "/shared"
        let a = try open(path), b = try open(path), c = try open(path)
        defer { a.closeQuietly(); b.closeQuietly(); c.closeQuietly() }
        #expect(try a.lockRange(.shared, start: Self.farByte, length: 1, wait: false, path: path))
        #expect(try b.lockRange(.shared, start: Self.farByte, length: 1, wait: false, path: path))
        #expect(try c.lockRange(.exclusive, start: Self.farByte, length: 1, wait: false, path: path) == false)
        #expect(try c.isRangeLockedByOthers(.exclusive, start: Self.farByte, length: 1, path: path))
        #expect(try c.isRangeLockedByOthers(.shared, start: Self.farByte, length: 1, path: path) == false)
    }

    @Test func theKernelReleasesAKilledProcesssLockAndKeepsAStoppedOnes() async throws {
        let path = root + "/shared"
        let mine = try open(path)
        defer { mine.closeQuietly() }
        let child = try await LockHolder.start(file: path, byte: Self.farByte + 64, folder: root)
        #expect(try mine.isRangeLockedByOthers(.exclusive, start: Self.farByte + 64, length: 1, path: path))
        #expect(try mine.lockRange(.exclusive, start: Self.farByte + 64, length: 1, wait: false, path: path) == false)

        // Stopped, it still holds its lock: a stopped holder is not a dead one.
        child.signal(SIGSTOP)
        #expect(try mine.isRangeLockedByOthers(.exclusive, start: Self.farByte + 64, length: 1, path: path))
        child.killAndWait()
        try await waitUntil("the killed process's lock is released") {
            (try? mine.isRangeLockedByOthers(.exclusive, start: Self.farByte + 64, length: 1, path: path)) == false
        }
        #expect(try mine.lockRange(.exclusive, start: Self.farByte + 64, length: 1, wait: false, path: path))
    }
}
