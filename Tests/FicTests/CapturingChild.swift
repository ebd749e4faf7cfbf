import FICHarness
import Foundation
import Glibc
import Testing

/// The command-line tests' children: FICHarness's ``ChildProcess`` (the one way tests start
/// programs), their output into files of a folder of their own (no pipe can fill up), each wait
/// with a time limit; a child still running at its limit is killed, and that is a test failure.
///
/// Unless the given environment names an `XDG_CACHE_HOME`, a child gets one of its own, in that
/// folder: fic's default cache folder is never the person's own `~/.cache/fic`.
extension ChildProcess {
    /// How long a test waits for a child by default: generous, for a loaded 2-core machine, and
    /// still an end to a hang.
    static let testTimeLimit: Duration = .seconds(600)

    /// Runs `executable` with `arguments` (in exactly `environment`, when given, else in this
    /// process's) until it ends or `timeout` has passed, and returns its status and output.
    static func capture(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        timeout: Duration = testTimeLimit
    ) throws -> FicRun {
        try startCapturing(executable, arguments, environment: environment).result(timeout: timeout)
    }

    /// Starts `executable` with `arguments` without waiting for it (see ``capture(_:_:environment:timeout:)``).
    static func startCapturing(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> CapturingChild {
        let scratch = try TemporaryFolder()
        var variables = environment ?? ProcessInfo.processInfo.environment
        if environment?["XDG_CACHE_HOME"] == nil { variables["XDG_CACHE_HOME"] = scratch.path("cache-home") }
        let process = try ChildProcess.start(
            executable, arguments, environment: variables,
            standardOutput: scratch.path("stdout"), standardError: scratch.path("stderr"))
        return CapturingChild(process: process, scratch: scratch)
    }
}

/// A child started by ``ChildProcess/startCapturing(_:_:environment:)``, its output going to files.
final class CapturingChild: @unchecked Sendable {
    /// The child.
    let process: ChildProcess
    /// The folder of its output (and default cache folder), removed with it.
    private let scratch: TemporaryFolder

    init(process: ChildProcess, scratch: TemporaryFolder) {
        self.process = process
        self.scratch = scratch
    }

    /// Whether it still runs (an ended child is reaped here).
    var isRunning: Bool {
        process.ending() == nil
    }

    /// Sends it `signal` (nothing once it has ended).
    func signal(_ signal: Int32) {
        process.signal(signal)
    }

    /// Asks it to end (`SIGTERM`) and waits, up to a minute, for it to: `xvfb-run` then takes its
    /// X server down with it, which a `SIGKILL` would leave running.
    func stop() {
        process.signal(SIGTERM)
        _ = process.wait(timeout: .seconds(60))
    }

    /// Its status and output once it has ended: waits up to `timeout`; a child still running
    /// then is killed, recorded as a failure of the test, and has status -1.
    func result(timeout: Duration = ChildProcess.testTimeLimit) -> FicRun {
        let ending = process.wait(timeout: timeout)
        if case .timedOut = ending {
            Issue.record("\(process.name) was \(ending)")
        }
        return FicRun(
            status: ending.status,
            stdout: (try? String(contentsOfFile: scratch.path("stdout"), encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: scratch.path("stderr"), encoding: .utf8)) ?? "")
    }
}
