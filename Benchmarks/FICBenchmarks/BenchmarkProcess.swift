import FICHarness
import Foundation
import Glibc

/// A child a benchmark starts: FICHarness's ``ChildProcess`` (the one way tests and benchmarks
/// start programs), its standard error kept in a file of its own, read for the message when it
/// fails and removed with it. Killed and reaped when dropped unreaped, as the harness's children are.
///
/// Benchmarks wait for their children without a time limit (`wait4`): a benchmark's child has no
/// test input to hang on, takes as long as the machine makes it take, and the person running the
/// benchmark stops it.
final class BenchmarkProcess {
    /// The child.
    let child: ChildProcess
    /// Its program and first arguments, for messages.
    let name: String
    /// The file of its standard error; nil when that goes to /dev/null.
    private let errors: String?

    /// Starts `executable` with `arguments` and returns at once: its standard output into the file
    /// `standardOutput` (or `outputPipe`), its standard error into a file of its own unless
    /// `keepsErrors` is false (then /dev/null: a timed run pays for nothing but the program).
    ///
    /// - Throws: ``HarnessError`` when it cannot be started.
    init(
        _ executable: String, _ arguments: [String], name: String? = nil, standardOutput: String = "/dev/null",
        outputPipe: LinePipe? = nil, keepsErrors: Bool = true
    ) throws {
        let errors = keepsErrors ? Self.temporaryPath("stderr") : nil
        child = try ChildProcess.start(
            executable, arguments, standardOutput: standardOutput, standardError: errors ?? "/dev/null",
            outputPipe: outputPipe)
        self.errors = errors
        self.name = name ?? ([executable] + arguments.prefix(3)).map { ($0 as NSString).lastPathComponent }.joined(separator: " ")
    }

    deinit {
        child.kill()
        if let errors { unlink(errors) }
    }

    /// Whether it has ended (reaping it then), without waiting.
    func hasEnded() -> Bool {
        child.ending() != nil
    }

    /// Waits until it ends.
    ///
    /// - Throws: ``BenchmarkError`` unless it exited with status 0.
    func wait() throws {
        let ending = try child.ending() ?? child.waitMeasuring().ending
        try check(ending)
    }

    /// Throws, with the last lines it wrote to its standard error, unless `ending` is an exit with status 0.
    func check(_ ending: ChildProcess.Ending) throws {
        guard ending == .exited(0) else { throw BenchmarkError("\(name) … failed (\(ending)): \(lastErrors())") }
    }

    /// The last lines it wrote to its standard error.
    func lastErrors() -> String {
        guard let errors else { return "" }
        return ((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "").split(separator: "\n").suffix(5).joined(separator: "\n")
    }

    /// A path of the system's temporary folder no other child of any process uses.
    static func temporaryPath(_ kind: String) -> String {
        NSTemporaryDirectory() + "/fic-bench-\(getpid())-\(UInt64.random(in: 0...UInt64.max))-\(kind).txt"
    }
}

extension BenchmarkProcess {
    /// Runs `executable` with `arguments`, its output discarded, and waits for it; with
    /// `keepsErrors` false its standard error is discarded too (for a timed run).
    ///
    /// - Throws: ``BenchmarkError`` unless it exits with status 0.
    static func run(_ executable: String, _ arguments: [String], keepsErrors: Bool = true) throws {
        try BenchmarkProcess(executable, arguments, keepsErrors: keepsErrors).wait()
    }

    /// Runs `executable` with `arguments`, waits for it and returns its standard output.
    ///
    /// - Throws: ``BenchmarkError`` unless it exits with status 0.
    static func output(of executable: String, _ arguments: [String]) throws -> String {
        let output = temporaryPath("stdout")
        defer { unlink(output) }
        try BenchmarkProcess(executable, arguments, standardOutput: output).wait()
        return (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    }
}
