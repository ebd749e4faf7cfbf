import FICCore
import Foundation
import Glibc

/// A program the tests and benchmarks run beside themselves, started the one way they all start
/// children: `posix_spawn`, its standard input from a file and its output into files (no pipe
/// can fill up and block it, and no read of one can wait forever), every wait with a time limit
/// or a kill. Not Foundation's `Process`: its `run()` leaks a weak reference that LeakSanitizer
/// reports, and its wait uses a descriptor a daemon child inherits and keeps.
///
/// A child holds a copy of every descriptor of this process from the moment it is cloned until
/// it execs, when the close-on-exec ones go; glibc's `posix_spawn` returns only after that exec.
/// So a test that must know every copy of a descriptor it closed is gone (the kernel releases a
/// lock when the last copy of its open file description closes) runs inside
/// ``withNoChildStarting(_:)``: no child of the harness is being started meanwhile.
///
/// Killed and reaped when dropped unreaped, so that none outlives its test or benchmark.
public final class ChildProcess: @unchecked Sendable {
    /// How a child process ended.
    public enum Ending: Sendable, Equatable, CustomStringConvertible {
        /// It exited with this status.
        case exited(Int32)
        /// A signal ended it (a crash: SIGSEGV, SIGABRT, SIGILL for a Swift trap, …).
        case signalled(Int32)
        /// It was still running at the time limit, and was killed.
        case timedOut(Duration)

        /// How a failure message names it.
        public var description: String {
            switch self {
            case .exited(let status): return "exited with status \(status)"
            case .signalled(let signal): return "killed by signal \(signal) (\(String(cString: strsignal(signal))))"
            case .timedOut(let limit): return "still running after \(limit) (a hang), killed"
            }
        }

        /// Its exit status, or a status above 128 for a signal (as a shell says), or -1 for a hang.
        public var status: Int32 {
            switch self {
            case .exited(let status): return status
            case .signalled(let signal): return 128 + signal
            case .timedOut: return -1
            }
        }

        /// The ending of a `waitpid` status.
        init(status: Int32) {
            self = status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .signalled(status & 0x7F)
        }
    }

    /// Its process id.
    public let pid: pid_t
    /// Its program and first arguments, for messages.
    public let name: String
    /// The lock of its wait status.
    private let lock = NSLock()
    /// Its wait status, once reaped.
    private var reapedStatus: Int32?

    private init(pid: pid_t, name: String) {
        self.pid = pid
        self.name = name
    }

    deinit {
        kill()
    }

    /// Starts `executable` with `arguments` in this process's environment (or exactly
    /// `environment`, when given), `extraEnvironment` added and `removedEnvironment` left out,
    /// standard input from the file `standardInput`, standard output and error into the files
    /// `standardOutput` and `standardError` (created or truncated: 0644, and 0600) — or its output
    /// into `outputPipe`, read a line at a time with a time limit — and returns at once.
    ///
    /// - Throws: ``HarnessError`` when it cannot be started.
    public static func start(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        extraEnvironment: [String: String] = [:], removedEnvironment: [String] = [],
        standardInput: String = "/dev/null", standardOutput: String = "/dev/null",
        standardError: String = "/dev/null", outputPipe: LinePipe? = nil
    ) throws -> ChildProcess {
        let pid = try spawn(
            executable, arguments, environment: environment, extraEnvironment: extraEnvironment,
            removedEnvironment: removedEnvironment, standardInput: standardInput,
            standardOutput: standardOutput, standardError: standardError, outputPipe: outputPipe)
        let name = ([executable] + arguments.prefix(2)).map { ($0 as NSString).lastPathComponent }.joined(separator: " ")
        return ChildProcess(pid: pid, name: name)
    }

    /// ``start(_:_:environment:extraEnvironment:removedEnvironment:standardInput:standardOutput:standardError:)``
    /// for a caller that waits for the child itself (`waitpid`): its process id. The one
    /// `posix_spawn` of the tests and benchmarks.
    ///
    /// - Throws: ``HarnessError`` when it cannot be started.
    public static func spawn(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        extraEnvironment: [String: String] = [:], removedEnvironment: [String] = [],
        standardInput: String = "/dev/null", standardOutput: String = "/dev/null",
        standardError: String = "/dev/null", outputPipe: LinePipe? = nil
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, standardInput, O_RDONLY, 0)
        if let outputPipe {
            posix_spawn_file_actions_adddup2(&actions, outputPipe.writeEnd, 1)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, standardOutput, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        }
        posix_spawn_file_actions_addopen(&actions, 2, standardError, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        var variables = environment ?? ProcessInfo.processInfo.environment
        variables.merge(extraEnvironment) { $1 }
        for name in removedEnvironment { variables[name] = nil }
        let envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid = pid_t()
        let rc = spawnGate.shared { posix_spawn(&pid, executable, &actions, nil, argv, envp) }
        outputPipe?.closeWriteEnd()  // the child has its copy: the reader sees the end when the child's goes
        guard rc == 0 else { throw HarnessError("\(executable) could not be started: \(String(cString: strerror(rc)))") }
        return pid
    }

    /// Runs `body` while no child of the harness is being started, so that no child holds a
    /// copy of a descriptor `body` opens and closes.
    public static func withNoChildStarting<R>(_ body: () throws -> R) rethrows -> R {
        try spawnGate.exclusive(body)
    }

    /// Sends `signal` to it (nothing once it is reaped, so that a reused id is never hit).
    public func signal(_ signal: Int32) {
        lock.lock()
        defer { lock.unlock() }
        guard reapedStatus == nil else { return }
        Glibc.kill(pid, signal)
    }

    /// How it ended, if it has (reaping it then), without waiting.
    public func ending() -> Ending? {
        lock.lock()
        defer { lock.unlock() }
        if let reapedStatus { return Ending(status: reapedStatus) }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
        reapedStatus = status
        return Ending(status: status)
    }

    /// Waits until it ends or `timeout` has passed; then it is killed (`SIGKILL`) and reaped.
    /// A thread of its own waits for the child (a blocking `waitpid`), so the time limit holds
    /// however busy Swift's cooperative pool is; the calling thread blocks all the while (from
    /// async code, call it through a thread of its own).
    public func wait(timeout: Duration) -> Ending {
        if let ended = ending() { return ended }
        let reaped = ConditionBox(false)
        let waiter: WorkerThread
        do {
            waiter = try WorkerThread(name: "child waiter") { [self] in
                var status: Int32 = 0
                var result: pid_t
                repeat { result = waitpid(pid, &status, 0) } while result < 0 && errno == EINTR
                lock.lock()
                if result == pid { reapedStatus = status }
                lock.unlock()
                reaped.update { $0 = true }
            }
        } catch {
            preconditionFailure("cannot start a thread to wait for child \(pid): \(error)")
        }
        let inTime = reaped.withLockedValue(waitingUpTo: timeout) { done, timedOut -> Bool? in done ? true : timedOut ? false : nil }
        if !inTime { Glibc.kill(pid, SIGKILL) }  // the waiter then reaps it
        waiter.join()
        return inTime ? ending() ?? .signalled(SIGKILL) : .timedOut(timeout)
    }

    /// Waits until it has stopped after a `SIGSTOP`; false if it ended instead.
    public func waitUntilStopped() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard reapedStatus == nil else { return false }
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, WUNTRACED)
            if result == pid { break }
            if result < 0 && errno == EINTR { continue }
            return false
        }
        if status & 0xFF == 0x7F { return true }  // WIFSTOPPED
        reapedStatus = status
        return false
    }

    /// Waits for it without a time limit and returns its resource usage too: for the
    /// benchmarks, whose children are measured (`wait4`), never hang on a test's input, and are
    /// stopped by the person running them.
    public func waitMeasuring() throws -> (ending: Ending, usage: rusage) {
        lock.lock()
        defer { lock.unlock() }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw HarnessError("wait4 for \(name) failed: \(String(cString: strerror(errno)))") }
        }
        reapedStatus = status
        return (Ending(status: status), usage)
    }

    /// Kills it (`SIGKILL`) and reaps it, if it is still running.
    public func kill() {
        lock.lock()
        defer { lock.unlock() }
        guard reapedStatus == nil else { return }
        Glibc.kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        reapedStatus = status
    }
}

extension ChildProcess {
    /// What a child run to its end did.
    public struct Run: Sendable {
        /// How it ended.
        public let ending: Ending
        /// Its standard output, decoded as UTF-8.
        public let standardOutput: String
        /// Its standard error, decoded as UTF-8.
        public let standardError: String

        /// Its exit status, or a status above 128 for a signal (as a shell says), or -1 for a hang.
        public var status: Int32 { ending.status }
    }

    /// Runs `executable` with `arguments` (environment as ``start(_:_:environment:extraEnvironment:removedEnvironment:standardInput:standardOutput:standardError:)``)
    /// until it ends or `timeout` has passed (then it is killed), and returns how it ended and
    /// what it wrote, read from files afterwards.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        extraEnvironment: [String: String] = [:], removedEnvironment: [String] = [],
        standardInput: String = "/dev/null", timeout: Duration
    ) throws -> Run {
        let base = NSTemporaryDirectory() + "/fic-child-\(UInt64.random(in: 0...UInt64.max))"
        defer {
            unlink(base + ".out")
            unlink(base + ".err")
        }
        let child = try start(
            executable, arguments, environment: environment, extraEnvironment: extraEnvironment,
            removedEnvironment: removedEnvironment, standardInput: standardInput,
            standardOutput: base + ".out", standardError: base + ".err")
        let ending = child.wait(timeout: timeout)
        return Run(ending: ending, standardOutput: readText(base + ".out"), standardError: readText(base + ".err"))
    }

    /// A file's text (POSIX reads: no Foundation buffers for LeakSanitizer to report), empty when it cannot be read.
    static func readText(_ path: String) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The gate children are started through: starts take it shared (any number at once), and
/// ``ChildProcess/withNoChildStarting(_:)`` takes it alone. A `pthread_rwlock_t` allocated once
/// and never moved, which Thread Sanitizer understands.
let spawnGate = SpawnGate()

/// A readers–writer lock.
final class SpawnGate: @unchecked Sendable {
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>

    init() {
        lock = .allocate(capacity: 1)
        pthread_rwlock_init(lock, nil)
    }

    func shared<R>(_ body: () throws -> R) rethrows -> R {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body()
    }

    func exclusive<R>(_ body: () throws -> R) rethrows -> R {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body()
    }
}

/// A pipe a child writes its standard output into, read here a line at a time, each read with a
/// time limit (`poll`), so that a child that stops talking fails its test instead of hanging it.
public final class LinePipe: @unchecked Sendable {
    /// The end this process reads (close-on-exec: no other child inherits it).
    private let readEnd: Int32
    /// The end the child writes, until it has been started.
    fileprivate private(set) var writeEnd: Int32
    /// Bytes read past the last line returned.
    private var pending: [UInt8] = []

    /// A new pipe.
    ///
    /// - Throws: ``HarnessError`` when the system has no descriptors left.
    public init() throws {
        var ends: [Int32] = [0, 0]
        // pipe2 is not in Swift's Glibc module: pipe, then close-on-exec on both ends, while no
        // child is being started, so that none inherits them in between.
        let made = spawnGate.exclusive { () -> Bool in
            guard pipe(&ends) == 0 else { return false }
            _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
            return true
        }
        guard made else { throw HarnessError("pipe failed: \(String(cString: strerror(errno)))") }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        close(readEnd)
        closeWriteEnd()
    }

    fileprivate func closeWriteEnd() {
        if writeEnd >= 0 { close(writeEnd) }
        writeEnd = -1
    }

    /// The next line the child writes, without its newline; "" once its output has ended, or
    /// nil when no whole line came within `timeout`.
    public func line(timeout: Duration = .seconds(600)) -> String? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                defer { pending.removeSubrange(...newline) }
                return String(decoding: pending[..<newline], as: UTF8.self)
            }
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return nil }
            var descriptor = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            let ready = poll(&descriptor, 1, milliseconds)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }  // the deadline is checked above
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = chunk.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 {  // the end: what is left is the last line, if any
                defer { pending.removeAll() }
                return String(decoding: pending, as: UTF8.self)
            }
            pending.append(contentsOf: chunk[0..<n])
        }
    }
}
