import FICCore
import FICHarness
import FICTestSupport
import Foundation
import Glibc
@testable import ImageTable
import SystemPackage
import Testing

/// The holder table of a shared table: each holder registers through an open file description of
/// the shared state, keeps its lock byte, and is alive exactly as long as the kernel says that
/// byte is locked — released when it unregisters, closes or is killed, kept while it is stopped.
/// The other process is Python, locking a holder's byte with `fcntl(F_OFD_SETLK)` itself.
@Suite final class HolderTableTests {
    let dir = TemporaryDirectory("holders")
    var path: String { dir.file("t.fictable-shared") }

    deinit { dir.cleanup() }

    /// An open file description of the shared file, and a writable mapping of its holder table.
    func open() throws -> (FileDescriptor, MappedRegion) {
        let fd = try FileDescriptor.open(atPath: path, .readWrite, options: [.create, .closeOnExec], permissions: [.ownerReadWrite])
        try fd.truncate(to: HolderTable.length, path: path)
        return (fd, try MappedRegion(descriptor: fd, offset: 0, length: HolderTable.length, writable: true, path: path))
    }

    @Test func holdersTakeTheFirstFreeEntryAndAreAliveUntilTheyUnregister() throws {
        let (a, mapA) = try open(), (b, mapB) = try open()
        defer { a.closeQuietly(); b.closeQuietly() }
        let me = try #require(ProcessIdentity.current)
        #expect(try HolderTable.register(a, entries: mapA.base, path: path) == 0)
        #expect(try HolderTable.register(b, entries: mapB.base, path: path) == 1)
        #expect(try HolderTable.isAlive(0, through: b, ownIndex: 1, path: path))
        #expect(try HolderTable.isAlive(2, through: b, ownIndex: 1, path: path) == false)
        let listed = try HolderTable.entries(mapB.base, through: b, ownIndex: 1, path: path)
        #expect(
            listed == [HolderTable.Entry(index: 0, process: me, isAlive: true), HolderTable.Entry(index: 1, process: me, isAlive: true)])

        try HolderTable.unregister(0, a, entries: mapA.base, path: path)
        #expect(try HolderTable.isAlive(0, through: b, ownIndex: 1, path: path) == false)
        #expect(try HolderTable.entries(mapB.base, through: b, ownIndex: 1, path: path).map(\.index) == [1])
        // The freed entry is the next one taken.
        let (c, mapC) = try open()
        defer { c.closeQuietly() }
        #expect(try HolderTable.register(c, entries: mapC.base, path: path) == 0)
    }

    /// The open file description lives as long as a descriptor or a mapping made through it: the
    /// lock goes once both are gone, as when a process dies.
    @Test func aHolderWhoseDescriptionIsGoneIsDeadThoughItsEntryStaysFilledIn() throws {
        let (b, mapB) = try open()
        defer { b.closeQuietly() }
        // A child process started by another test while holder 0's description is open would
        // hold a copy of it, and with it the lock, until it execs: none is started meanwhile.
        try ChildProcess.withNoChildStarting {
            try registerThenCloseKeepingTheMapping()
            #expect(try HolderTable.isAlive(0, through: b, ownIndex: nil, path: path) == false)
        }
        let listed = try HolderTable.entries(mapB.base, through: b, ownIndex: nil, path: path)
        #expect(listed == [HolderTable.Entry(index: 0, process: ProcessIdentity.current, isAlive: false)])
        // Its entry is free for the taking, whatever it still says.
        #expect(try HolderTable.register(b, entries: mapB.base, path: path) == 0)
    }

    /// Registers holder 0 through a description of its own, closes its descriptor and checks
    /// that it is still alive while its mapping lasts; the mapping goes on return.
    func registerThenCloseKeepingTheMapping() throws {
        let (a, map) = try open()
        let (b, other) = try open()
        defer { b.closeQuietly() }
        #expect(try HolderTable.register(a, entries: map.base, path: path) == 0)
        a.closeQuietly()
        #expect(try HolderTable.isAlive(0, through: b, ownIndex: nil, path: path), "its mapping keeps the description open")
        withExtendedLifetime((map, other)) {}
    }

    @Test func theHundredAndTwentyNinthHolderIsRefusedByName() throws {
        var open: [FileDescriptor] = []
        defer { open.forEach { $0.closeQuietly() } }
        var mapping: MappedRegion?
        for expected in 0..<HolderTable.capacity {
            let (fd, map) = try self.open()
            open.append(fd)
            mapping = map
            #expect(try HolderTable.register(fd, entries: map.base, path: path) == expected)
        }
        let (fd, map) = try self.open()
        open.append(fd)
        let error = #expect(throws: ImageCacheError.self) { try HolderTable.register(fd, entries: map.base, path: path) }
        #expect(error?.code == .inUse)
        #expect(error?.message.contains("128 processes") == true, "\(String(describing: error))")
        _ = mapping
    }

    @Test func entriesWhoseBytesAreGarbageNameNoProcessAndAreAliveOnlyByTheirLock() throws {
        let (a, map) = try open()
        defer { a.closeQuietly() }
        var rng = SystemRandomNumberGenerator()
        for offset in stride(from: 0, to: HolderTable.length, by: 8) {
            map.base.storeBytes(of: UInt64.random(in: 0...UInt64.max, using: &rng), toByteOffset: offset, as: UInt64.self)
        }
        // The state word says "registered" but the checksum does not match.
        map.base.storeBytes(of: UInt32(1), toByteOffset: 5 * HolderTable.entryLength, as: UInt32.self)
        #expect(try HolderTable.entries(map.base, through: a, ownIndex: nil, path: path).isEmpty)
        #expect(try HolderTable.register(a, entries: map.base, path: path) == 0)
        #expect(try HolderTable.entries(map.base, through: a, ownIndex: 0, path: path).map(\.index) == [0])
    }

    /// Another process holds entry 7's byte: alive while it runs and while it is stopped, dead
    /// once it is killed.
    @Test func anotherProcessIsAliveUntilKilledAndStoppedIsNotDead() async throws {
        let (mine, _) = try open()
        defer { mine.closeQuietly() }
        let child = try await LockHolder.start(file: path, byte: HolderTable.lockBase + 7, folder: dir.path)
        #expect(try HolderTable.isAlive(7, through: mine, ownIndex: nil, path: path))
        child.signal(SIGSTOP)
        #expect(try HolderTable.isAlive(7, through: mine, ownIndex: nil, path: path), "a stopped holder is alive")
        child.killAndWait()
        try await waitUntil("the killed holder is dead") {
            (try? HolderTable.isAlive(7, through: mine, ownIndex: nil, path: path)) == false
        }
    }
}
