import Foundation

/// Runs a program as a child process and says how it ended — by its exit status, by a signal, or
/// not within a time limit (then it is killed) — so that a test can name a crash or a hang of
/// the program instead of sharing it. Started with `posix_spawn` rather than Foundation's
/// `Process`, whose `run()` leaks a weak reference that LeakSanitizer reports.
public enum ChildProcess {
    /// How a child process ended.
    public enum Ending: Sendable, Equatable, CustomStringConvertible {
        /// It exited with this status.
        case exited(Int32)
        /// A signal ended it (a crash: SIGSEGV, SIGABRT, SIGILL for a Swift trap, …).
        case signalled(Int32)
        /// It was still running at the time limit, and was killed.
        case timedOut(Duration)

        public var description: String {
            switch self {
            case .exited(let status): return "exited with status \(status)"
            case .signalled(let signal): return "killed by signal \(signal) (\(String(cString: strsignal(signal))))"
            case .timedOut(let limit): return "still running after \(limit) (a hang), killed"
            }
        }
    }

    /// The ending and what the child wrote to its standard error (standard output is discarded).
    public struct Result: Sendable {
        /// How it ended.
        public let ending: Ending
        /// Its standard error, decoded as UTF-8.
        public let standardError: String
    }

    /// Runs `executable` with `arguments` and `extraEnvironment` added to this process's
    /// environment, polling every 2 ms until it ends or `timeout` has passed; then it is killed
    /// with SIGKILL and reaped. Blocks the calling thread all the while, so that the time limit
    /// holds however busy Swift's cooperative pool is: from async code, call it through
    /// ``OwnThread/run(_:)``.
    public static func run(_ executable: String, _ arguments: [String], extraEnvironment: [String: String] = [:],
                           timeout: Duration) throws -> Result {
        let errorPath = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString).stderr").path
        defer { unlink(errorPath) }
        let pid = try spawn(executable, arguments, extraEnvironment: extraEnvironment, standardError: errorPath)
        let deadline = ContinuousClock.now + timeout
        var status: Int32 = 0
        var ending: Ending?
        while ending == nil {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid {
                ending = decode(status)
            } else if reaped < 0 && errno != EINTR {
                killAndReap(pid)
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .ECHILD)
            } else if ContinuousClock.now > deadline {
                killAndReap(pid)
                ending = .timedOut(timeout)
            } else {
                usleep(2_000)
            }
        }
        return Result(ending: ending!, standardError: contents(of: errorPath))
    }

    /// The text of a file, read with POSIX calls: `String(contentsOfFile:)` leaks a buffer for an
    /// empty file in this toolchain, which LeakSanitizer reports in the Address Sanitizer run.
    private static func contents(of path: String) -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return "" }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 14)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Starts the child with standard output on `/dev/null` and standard error into `standardError`.
    private static func spawn(_ executable: String, _ arguments: [String], extraEnvironment: [String: String],
                              standardError: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, standardError, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var environment = ProcessInfo.processInfo.environment
        environment.merge(extraEnvironment) { $1 }
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid = pid_t()
        let rc = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .ENOEXEC) }
        return pid
    }

    /// Kills the child and waits for it (which a SIGKILLed process does not make long).
    private static func killAndReap(_ pid: pid_t) {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }

    /// A `waitpid` status as an ending (the `WIFEXITED` / `WTERMSIG` macros, which Swift does not import).
    private static func decode(_ status: Int32) -> Ending {
        let signal = status & 0x7F
        return signal == 0 ? .exited((status >> 8) & 0xFF) : .signalled(signal)
    }
}
