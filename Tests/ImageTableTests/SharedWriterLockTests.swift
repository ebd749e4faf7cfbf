import FICCore
import FICTestSupport
import Foundation
import Glibc
@testable import ImageTable
import SystemPackage
import Testing

/// The writer lock of a shared table: one holder at a time; a waiter gets it once the holder lets
/// go (or dies); a waiter gives up after its timeout while the holder keeps it — as a stopped
/// process does.
@Suite final class SharedWriterLockTests {
    let dir = TemporaryDirectory("writer-lock")
    var path: String { dir.file("t.fictable-shared") }

    deinit { dir.cleanup() }

    func open() throws -> FileDescriptor {
        try FileDescriptor.open(atPath: path, .readWrite, options: [.create, .closeOnExec], permissions: [.ownerReadWrite])
    }

    @Test func oneWriterAtATimeAndAWaiterGivesUpAfterItsTimeout() throws {
        let a = try open(), b = try open()
        defer { a.closeQuietly(); b.closeQuietly() }
        #expect(try SharedWriterLock.acquire(a, timeout: .zero, path: path))
        #expect(try SharedWriterLock.acquire(b, timeout: .milliseconds(20), path: path) == false)
        try SharedWriterLock.release(a, path: path)
        #expect(try SharedWriterLock.acquire(b, timeout: .zero, path: path))
    }

    /// A waiter on its own thread, seen waiting, is let in once the holder releases.
    @Test func aWaiterGetsTheLockOnceItIsReleased() async throws {
        let a = try open(), b = try open()
        defer { a.closeQuietly(); b.closeQuietly() }
        #expect(try SharedWriterLock.acquire(a, timeout: .zero, path: path))
        let raw = b.rawValue, path = self.path
        let seenWaiting = LockedBox(false)
        async let waited = OwnThread.running {
            try SharedWriterLock.acquire(FileDescriptor(rawValue: raw), timeout: .seconds(600), path: path) {
                seenWaiting.withLockedValue { $0 = true }
            }
        }
        try await waitUntil("the waiter found the lock held") { seenWaiting.withLockedValue { $0 } }
        try SharedWriterLock.release(a, path: path)
        #expect(try await waited)
        #expect(try a.isRangeLockedByOthers(.exclusive, start: SharedWriterLock.byte, length: 1, path: path), "the waiter holds it now")
    }

    /// Another process holds the writer lock: stopped, it keeps it and a writer times out; killed,
    /// its lock is gone and the writer gets it.
    @Test func aStoppedWriterBlocksWritersAndAKilledOneDoesNot() async throws {
        let mine = try open()
        defer { mine.closeQuietly() }
        let child = try await LockHolder.start(file: path, byte: SharedWriterLock.byte, folder: dir.path)
        child.signal(SIGSTOP)
        #expect(try SharedWriterLock.acquire(mine, timeout: .milliseconds(50), path: path) == false)
        child.killAndWait()
        #expect(try SharedWriterLock.acquire(mine, timeout: .seconds(600), path: path))
    }
}
