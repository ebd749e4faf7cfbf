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

    /// Runs `executable` with `arguments`, `extraEnvironment` added to this process's environment
    /// and the variables `removedEnvironment` left out, until it ends or `timeout` has passed;
    /// then it is killed with SIGKILL and reaped. A thread of its own waits for the child (a
    /// blocking `waitpid`) and says when it has ended; the caller waits for that with the time
    /// limit. Blocks the calling thread all the while, so that the time limit holds however busy
    /// Swift's cooperative pool is: from async code, call it through ``OwnThread/run(_:)``.
    public static func run(_ executable: String, _ arguments: [String], extraEnvironment: [String: String] = [:],
                           removedEnvironment: [String] = [], timeout: Duration) throws -> Result {
        let errorPath = ExternalTools.temporaryErrorFile()
        defer { unlink(errorPath) }
        let pid = try ExternalTools.spawn(executable, arguments, extraEnvironment: extraEnvironment, removedEnvironment: removedEnvironment,
                                          standardOutput: "/dev/null", standardError: errorPath)
        let reaper = Reaper(pid)
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        var ending: Ending
        if reaper.ended.wait(timeout: .now() + seconds) == .success {
            ending = try reaper.ending()
        } else {
            kill(pid, SIGKILL)  // the reaper then reaps it
            reaper.ended.wait()
            ending = .timedOut(timeout)
        }
        let said = (try? ExternalTools.bytes(atPath: errorPath)) ?? []
        return Result(ending: ending, standardError: String(decoding: said, as: UTF8.self))
    }

    /// Waits for a child on a thread of its own and signals ``ended`` once it has reaped it.
    private final class Reaper: @unchecked Sendable {
        /// Signalled once the child has been reaped; ``status`` and ``failure`` are set before.
        let ended = DispatchSemaphore(value: 0)
        private var status: Int32 = 0
        private var failure: Int32 = 0

        init(_ pid: pid_t) {
            let thread = Thread { [self] in
                var status: Int32 = 0
                var result: pid_t
                repeat { result = waitpid(pid, &status, 0) } while result < 0 && errno == EINTR
                self.status = status
                self.failure = result < 0 ? errno : 0
                self.ended.signal()
            }
            thread.start()
        }

        /// How the child ended (after ``ended`` was signalled).
        func ending() throws -> Ending {
            if failure != 0 { throw POSIXError(POSIXErrorCode(rawValue: failure) ?? .ECHILD) }
            return decode(status)
        }
    }

    /// A `waitpid` status as an ending (the `WIFEXITED` / `WTERMSIG` macros, which Swift does not import).
    private static func decode(_ status: Int32) -> Ending {
        let signal = status & 0x7F
        return signal == 0 ? .exited((status >> 8) & 0xFF) : .signalled(signal)
    }
}
