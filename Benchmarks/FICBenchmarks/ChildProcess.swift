import Foundation
import Glibc

/// Runs another program and measures it: wall time, CPU time and peak resident set.
///
/// The figures come from `/usr/bin/time` when it is installed: a program started straight from
/// this process would inherit this process's peak resident set (Linux keeps the larger of the two
/// across `exec`), while one started by `time`, a small process, has only its own. Without it,
/// `wait4`'s resource usage is used and the peak is an upper bound.
enum ChildProcess {
    /// What one run of a program took.
    struct Run {
        /// Wall time in seconds.
        var seconds: Double
        /// User plus system CPU time in seconds.
        var cpuSeconds: Double
        /// The child's peak resident set (`ru_maxrss`), in bytes.
        var peakRSSBytes: Int
        /// What it wrote to stdout.
        var output: String
    }

    /// `/usr/bin/time`, if installed.
    static let timeTool: String? = FileManager.default.isExecutableFile(atPath: "/usr/bin/time") ? "/usr/bin/time" : nil

    /// Runs `executable` with `arguments` (stderr discarded unless it fails) and waits for it.
    ///
    /// - Throws: ``BenchmarkError`` when it cannot be started or exits with a status other than 0.
    static func run(_ executable: String, _ arguments: [String], workDirectory: String) throws -> Run {
        guard let timeTool else { return try spawn(executable, arguments, workDirectory: workDirectory) }
        let figures = (workDirectory as NSString).appendingPathComponent("child-time-\(getpid()).txt")
        defer { unlink(figures) }
        var run = try spawn(timeTool, ["-f", "%e %U %S %M", "-o", figures, executable] + arguments, workDirectory: workDirectory)
        let fields = ((try? String(contentsOfFile: figures, encoding: .utf8)) ?? "")
            .split(whereSeparator: \.isNewline).last?.split(separator: " ").compactMap { Double($0) } ?? []
        // Wall time stays this process's own measure, finer than time's %e.
        guard fields.count == 4 else { throw BenchmarkError("could not read /usr/bin/time's figures for \(executable)") }
        run.cpuSeconds = fields[1] + fields[2]
        run.peakRSSBytes = Int(fields[3]) * 1024
        return run
    }

    /// Starts `executable` straight from this process and waits for it.
    private static func spawn(_ executable: String, _ arguments: [String], workDirectory: String) throws -> Run {
        let outPath = (workDirectory as NSString).appendingPathComponent("child-stdout-\(getpid()).txt")
        let errPath = (workDirectory as NSString).appendingPathComponent("child-stderr-\(getpid()).txt")
        defer {
            unlink(outPath)
            unlink(errPath)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let clock = ContinuousClock()
        let start = clock.now
        var pid = pid_t()
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw BenchmarkError("could not start \(executable): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw BenchmarkError("wait4 for \(executable) failed: \(String(cString: strerror(errno)))") }
        }
        let seconds = BenchKit.nanoseconds(clock.now - start) / 1e9
        let output = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        guard status == 0 else {
            let errors = ((try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "").split(separator: "\n").suffix(5).joined(separator: "\n")
            throw BenchmarkError("\((executable as NSString).lastPathComponent) \(arguments.prefix(3).joined(separator: " ")) … failed (wait status \(status)): \(errors)")
        }
        let cpu = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        return Run(seconds: seconds, cpuSeconds: cpu, peakRSSBytes: Int(usage.ru_maxrss) * 1024, output: output)
    }
}

extension ChildProcess {
    /// A program started by ``start(_:_:workDirectory:)`` that runs beside this process until it
    /// is waited for or killed: for benchmarks whose processes run at the same time, are stopped
    /// and killed. Killed and reaped when dropped unreaped, so that none outlives the benchmark.
    final class Started {
        /// Its process id.
        let pid: pid_t
        /// Its program and first arguments, for messages.
        let name: String
        /// Where its stderr goes (stdout is discarded).
        private let errorsPath: String
        /// Its wait status, once reaped.
        private(set) var status: Int32?

        fileprivate init(pid: pid_t, name: String, errorsPath: String) {
            self.pid = pid
            self.name = name
            self.errorsPath = errorsPath
        }

        deinit {
            kill()
            unlink(errorsPath)
        }

        /// Sends `signal` to it (nothing once it is reaped, so that a reused id is never hit).
        func signal(_ signal: Int32) {
            guard status == nil else { return }
            Glibc.kill(pid, signal)
        }

        /// Whether it has ended (reaping it if so), without waiting.
        func hasEnded() -> Bool {
            guard status == nil else { return true }
            var s: Int32 = 0
            guard waitpid(pid, &s, WNOHANG) == pid else { return false }
            status = s
            return true
        }

        /// Waits until it ends. - Throws: ``BenchmarkError`` unless it exited with 0.
        func wait() throws {
            if status == nil {
                var s: Int32 = 0
                while waitpid(pid, &s, 0) < 0 {
                    guard errno == EINTR else { throw BenchmarkError("waitpid for \(name) failed: \(String(cString: strerror(errno)))") }
                }
                status = s
            }
            guard status == 0 else { throw BenchmarkError("\(name) failed (wait status \(status ?? -1)): \(lastErrors())") }
        }

        /// Waits until it has stopped after a `SIGSTOP`. Returns false if it ended instead.
        func waitUntilStopped() -> Bool {
            guard status == nil else { return false }
            var s: Int32 = 0
            while true {
                let r = waitpid(pid, &s, WUNTRACED)
                if r == pid { break }
                if r < 0 && errno == EINTR { continue }
                return false
            }
            // WIFSTOPPED: the low byte is 0x7f.
            if s & 0xff == 0x7f { return true }
            status = s
            return false
        }

        /// Kills it (`SIGKILL`) and reaps it, if it is still running.
        func kill() {
            guard status == nil else { return }
            Glibc.kill(pid, SIGKILL)
            var s: Int32 = 0
            while waitpid(pid, &s, 0) < 0 && errno == EINTR {}
            status = s
        }

        /// The last lines it wrote to stderr.
        func lastErrors() -> String {
            ((try? String(contentsOfFile: errorsPath, encoding: .utf8)) ?? "").split(separator: "\n").suffix(5).joined(separator: "\n")
        }
    }

    /// Starts `executable` with `arguments` straight from this process, stdout discarded and
    /// stderr kept in a file of `workDirectory`, and returns at once.
    ///
    /// - Throws: ``BenchmarkError`` when it cannot be started.
    static func start(_ executable: String, _ arguments: [String], workDirectory: String) throws -> Started {
        let errorsPath = (workDirectory as NSString).appendingPathComponent("child-stderr-\(UUID().uuidString).txt")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errorsPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw BenchmarkError("could not start \(executable): \(String(cString: strerror(spawned)))")
        }
        let name = (([executable] + arguments.prefix(2)).map { ($0 as NSString).lastPathComponent }).joined(separator: " ")
        return Started(pid: pid, name: name, errorsPath: errorsPath)
    }
}
