import FICCore
import Foundation
import Glibc
import Synchronization
import SystemPackage
import Testing

/// FICCore's wrappers of system calls: the one EINTR loop, the one short-read and short-write loop,
/// and the one mapping of an `errno` to an ``ImageCacheError``, checked on real files, folders,
/// pipes and devices. The tests run as root, so the errors are ones root gets too (no `EACCES`).
@Suite final class SystemCallTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("fic-calls-\(UUID().uuidString)").path

    init() throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: root)
    }

    /// The two ends of a local stream socket, used one way, as a pipe. Close-on-exec from the
    /// start (Swift's Glibc has no `pipe2`): other suites start child processes meanwhile, and an
    /// end one of them inherited would keep the stream from ending.
    func makePipe() throws -> (read: FileDescriptor, write: FileDescriptor) {
        var ends: [Int32] = [0, 0]
        try #require(
            socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0, "socketpair: errno \(errno)")
        return (FileDescriptor(rawValue: ends[0]), FileDescriptor(rawValue: ends[1]))
    }

    // MARK: Errors: the errno, typed, with the call, the path and the system's reason

    @Test func openingAMissingFileSaysSoWithItsErrno() throws {
        let path = root + "/missing"
        let error = try #require(throws: ImageCacheError.self) { try FileDescriptor.open(atPath: path, .readOnly) }
        #expect(error.code == .io)
        #expect(error.errno == .noSuchFileOrDirectory)
        #expect(error.path == path)
        #expect(error.description == "open failed (\(path)): No such file or directory [errno 2]")
        let status = try #require(throws: ImageCacheError.self) { try fileStatus(atPath: path) }
        #expect(status.errno == .noSuchFileOrDirectory && status.message == "stat failed")
    }

    @Test func aFileUsedAsAFolderIsNotADirectory() throws {
        let file = try FileDescriptor.open(atPath: root + "/plain", .writeOnly, options: [.create], permissions: .ownerReadWrite)
        file.closeQuietly()
        let error = try #require(throws: ImageCacheError.self) { try FileDescriptor.open(atPath: root + "/plain/child", .readOnly) }
        #expect(error.errno == .notDirectory)
        #expect(error.path == root + "/plain/child")
    }

    @Test func aFolderOpenedForWritingIsADirectory() throws {
        let error = try #require(throws: ImageCacheError.self) { try FileDescriptor.open(atPath: root, .readWrite) }
        #expect(error.errno == .isDirectory)
        #expect(error.code == .io)
    }

    @Test func anExclusiveCreateOfAnExistingFileFails() throws {
        let path = root + "/once"
        try FileDescriptor.open(atPath: path, .writeOnly, options: [.create, .exclusiveCreate], permissions: .ownerReadWrite).closeQuietly()
        let error = try #require(throws: ImageCacheError.self) {
            try FileDescriptor.open(atPath: path, .writeOnly, options: [.create, .exclusiveCreate], permissions: .ownerReadWrite)
        }
        #expect(error.errno == .fileExists)
        let folder = try Directory.open(root, create: false)
        let again = try #require(throws: ImageCacheError.self) {
            try folder.openFile("once", writable: true, create: true, exclusive: true)
        }
        #expect(again.errno == .fileExists)
    }

    /// -1 rather than a closed descriptor: tests run in parallel, and a closed number may be
    /// another test's file a moment later.
    @Test func aDescriptorThatIsNoneIsABadFileDescriptor() throws {
        let none = FileDescriptor(rawValue: -1)
        var buffer = [UInt8](repeating: 0, count: 8)
        let read = try #require(throws: ImageCacheError.self) {
            try buffer.withUnsafeMutableBytes { try none.readAll(into: $0, path: "pipe") }
        }
        #expect(read.errno == .badFileDescriptor && read.message == "read failed" && read.path == "pipe")
        let pread = try #require(throws: ImageCacheError.self) {
            try buffer.withUnsafeMutableBytes { try none.readAll(into: $0, at: 0, path: nil) }
        }
        #expect(pread.errno == .badFileDescriptor && pread.message == "pread failed")
        let write = try #require(throws: ImageCacheError.self) { try buffer.withUnsafeBytes { try none.writeAll($0, path: nil) } }
        #expect(write.errno == .badFileDescriptor && write.message == "write failed")
        let pwrite = try #require(throws: ImageCacheError.self) { try buffer.withUnsafeBytes { try none.writeAll($0, at: 0, path: nil) } }
        #expect(pwrite.errno == .badFileDescriptor && pwrite.message == "pwrite failed")
        let close = try #require(throws: ImageCacheError.self) { try none.close(path: "pipe") }
        #expect(close.errno == .badFileDescriptor && close.message == "close failed")
        let duplicate = try #require(throws: ImageCacheError.self) { try none.duplicate(path: nil) }
        #expect(duplicate.errno == .badFileDescriptor)
    }

    @Test func aDuplicateOutlivesTheOriginal() throws {
        let (reader, writer) = try makePipe()
        let copy = try reader.duplicate(path: nil)
        try reader.close(path: nil)
        try [UInt8]([5, 6]).withUnsafeBytes { try writer.writeAll($0, path: nil) }
        try writer.close(path: nil)
        var buffer = [UInt8](repeating: 0, count: 8)
        #expect(try buffer.withUnsafeMutableBytes { try copy.readAll(into: $0, path: nil) } == 2)
        #expect(buffer[0..<2] == [5, 6])
        try copy.close(path: nil)
    }

    @Test func aFullDeviceIsAFullDisk() throws {
        let full = try FileDescriptor.open(atPath: "/dev/full", .writeOnly)
        defer { full.closeQuietly() }
        let bytes = [UInt8](repeating: 7, count: 4096)
        let error = try #require(throws: ImageCacheError.self) { try bytes.withUnsafeBytes { try full.writeAll($0, path: "/dev/full") } }
        #expect(error.code == .noSpace)
        #expect(error.errno == .noSpace)
        #expect(error.description.contains("No space left on device [errno 28]"))
    }

    // MARK: Short reads and writes

    /// A socket buffers a few hundred KiB: 4 MiB through it take many reads and writes, each
    /// short of the rest.
    @Test func readsAndWritesGoOnUntilEverythingHasPassed() throws {
        let (reader, writer) = try makePipe()
        defer { reader.closeQuietly() }
        let count = 4 << 20
        let sent = (0..<count).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) }
        let failure = LockedBox<ImageCacheError?>(nil)
        let thread = try WorkerThread {
            do {
                try sent.withUnsafeBytes { try writer.writeAll($0, path: "pipe") }
            } catch {
                failure.withLockedValue { $0 = ImageCacheError.adopting(error) }
            }
            writer.closeQuietly()
        }
        var received = [UInt8](repeating: 0, count: count + 10)
        let n = try received.withUnsafeMutableBytes { try reader.readAll(into: $0, path: "pipe") }
        thread.join()
        #expect(failure.withLockedValue { $0 } == nil)
        #expect(n == count, "stops where the pipe ends")
        #expect(received[0..<count].elementsEqual(sent))
    }

    @Test func positionedReadsStopAtTheEndOfTheFile() throws {
        let file = try FileDescriptor.open(atPath: root + "/short", .readWrite, options: [.create], permissions: .ownerReadWrite)
        defer { file.closeQuietly() }
        let bytes: [UInt8] = Array(1...100)
        try bytes.withUnsafeBytes { try file.writeAll($0, at: 10, path: nil) }
        var back = [UInt8](repeating: 0xFF, count: 200)
        #expect(try back.withUnsafeMutableBytes { try file.readAll(into: $0, at: 0, path: nil) } == 110)
        #expect(back[0..<10].allSatisfy { $0 == 0 } && Array(back[10..<110]) == bytes && back[110] == 0xFF)
        #expect(try back.withUnsafeMutableBytes { try file.readAll(into: $0, at: 500, path: nil) } == 0)
        #expect(
            try back.withUnsafeMutableBytes { try file.readAll(into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<0]), at: 0, path: nil) }
                == 0)
    }

    // MARK: EINTR

    /// A signal whose handler does not ask for restarts (no `SA_RESTART`) makes a blocked `read`
    /// fail with `EINTR`. The reader is signalled only once the kernel says it waits in `read`
    /// (`/proc/self/task/TID/syscall`), and its handler has run before data arrives: the read was
    /// interrupted, for certain, and the caller still gets its bytes and no error.
    @Test func anInterruptedReadIsRetried() throws {
        #if arch(x86_64)
        let readNumber = "0"
        #elseif arch(arm64)
        let readNumber = "63"
        #endif
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in interruptions.add(1, ordering: .relaxed) }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        var previous = sigaction()
        try #require(sigaction(SIGUSR2, &action, &previous) == 0)
        defer { sigaction(SIGUSR2, &previous, nil) }
        let before = interruptions.load(ordering: .relaxed)

        let (reader, writer) = try makePipe()
        defer { reader.closeQuietly() }
        let identity = LockedBox<(thread: pthread_t, task: String)?>(nil)
        let result = LockedBox<Result<[UInt8], ImageCacheError>?>(nil)
        let thread = try WorkerThread {
            var unblocked = sigset_t()
            sigemptyset(&unblocked)
            sigaddset(&unblocked, SIGUSR2)
            pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
            // "PID/task/TID": where the kernel describes this thread.
            let task = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? "self/task/unknown"
            identity.withLockedValue { $0 = (pthread_self(), task) }
            var buffer = [UInt8](repeating: 0, count: 4)
            do {
                let n = try buffer.withUnsafeMutableBytes { try reader.readAll(into: $0, path: "pipe") }
                result.withLockedValue { $0 = .success(Array(buffer[0..<n])) }
            } catch {
                result.withLockedValue { $0 = .failure(ImageCacheError.adopting(error)) }
            }
        }
        // However the test ends, the reader gets its bytes or the end of the pipe, and returns.
        defer {
            writer.closeQuietly()
            thread.join()
        }
        let bytes: [UInt8] = [1, 2, 3, 4]
        let deadline = ContinuousClock.now + .seconds(60)
        func waitUntil(_ condition: () -> Bool) throws {
            while !condition() {
                try #require(ContinuousClock.now < deadline, "the reader never reached its read")
                sched_yield()
            }
        }
        try waitUntil { identity.withLockedValue { $0 } != nil }
        let (pthread, task) = try #require(identity.withLockedValue { $0 })
        let syscallFile = "/proc/\(task)/syscall"
        try #require((try? String(contentsOfFile: syscallFile, encoding: .utf8)) != nil, "the kernel says which call a thread waits in")
        let waitsInRead = {
            (try? String(contentsOfFile: syscallFile, encoding: .utf8))?.split(separator: " ").first == Substring(readNumber)
        }
        try waitUntil(waitsInRead)
        #expect(pthread_kill(pthread, SIGUSR2) == 0)
        try waitUntil { interruptions.load(ordering: .relaxed) > before }
        // The read returned EINTR when the handler ran; the loop reads again.
        try waitUntil { waitsInRead() || result.withLockedValue { $0 } != nil }
        try bytes.withUnsafeBytes { try writer.writeAll($0, path: nil) }
        thread.join()
        let outcome = try #require(result.withLockedValue { $0 })
        #expect(try outcome.get() == bytes)
    }

    // MARK: Folders

    @Test func anOpenFileGetsANameOnce() throws {
        let folder = try Directory.open(root, create: false)
        let file = try folder.makeTemporaryFile(for: "named")
        try [UInt8]([9, 8, 7]).withUnsafeBytes { try file.descriptor.writeAll($0, at: 0, path: nil) }
        try folder.link(file.descriptor, as: "named")
        #expect(try folder.status(of: "named")?.st_size == 3)
        let error = try #require(throws: ImageCacheError.self) { try folder.link(file.descriptor, as: "named") }
        #expect(error.errno == .fileExists && error.path == root + "/named")
    }

    @Test func touchingAFileMakesItRecent() throws {
        let folder = try Directory.open(root, create: false)
        try folder.openFile("old", writable: true, create: true).closeQuietly()
        var times = [timespec(tv_sec: 1_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000, tv_nsec: 0)]
        try #require(utimensat(folder.descriptor.rawValue, "old", &times, 0) == 0)
        folder.touch("old")
        folder.touch("missing")  // best effort: nothing to do, no error
        let status = try #require(try folder.status(of: "old"))
        #expect(status.st_mtim.tv_sec > 1_000_000)
        #expect(!folder.isOnReadOnlyFileSystem)
    }

    @Test func statusOfALinkIsTheLinkUnlessFollowed() throws {
        try FileDescriptor.open(atPath: root + "/target", .writeOnly, options: [.create], permissions: .ownerReadWrite).closeQuietly()
        try #require(symlink(root + "/target", root + "/link") == 0)
        #expect(try fileStatus(atPath: root + "/link", followLinks: false).isSymbolicLink)
        #expect(try fileStatus(atPath: root + "/link").isRegularFile)
    }
}

/// Signals handled by ``SystemCallTests/anInterruptedReadIsRetried()``'s handler (which cannot
/// capture anything: it is a C function).
private let interruptions = Atomic<Int>(0)
