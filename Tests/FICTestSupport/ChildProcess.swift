import Foundation

/// Runs a program as a child process and says how it ended — by its exit status, by a signal, or
/// not within a time limit (then it is killed) — so that a test can name a crash or a hang of
/// the program instead of sharing it. Started as ``ExternalTools`` starts its tools, which wait
/// for them without a limit.
public enum ChildProcess {
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
        let errorPath = ExternalTools.temporaryErrorFile()
        defer { unlink(errorPath) }
        let pid = try ExternalTools.spawn(executable, arguments, extraEnvironment: extraEnvironment,
                                          standardOutput: "/dev/null", standardError: errorPath)
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
        let said = (try? ExternalTools.bytes(atPath: errorPath)) ?? []
        return Result(ending: ending!, standardError: String(decoding: said, as: UTF8.self))
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
