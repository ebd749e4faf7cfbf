import FICHarness
import Foundation
import Glibc

/// A program run to its end and measured: wall time, CPU time and peak resident set.
///
/// The figures come from `/usr/bin/time` when it is installed: a program started straight from
/// this process would inherit this process's peak resident set (`posix_spawn` starts children
/// with `vfork`, and Linux keeps the larger of the two across `exec`), while one started by
/// `time`, a small process, has only its own. Without it, `wait4`'s resource usage is used and
/// the peak is an upper bound. Wall time is this process's own measure, finer than time's `%e`.
struct MeasuredRun {
    /// Wall time in seconds.
    var seconds: Double
    /// User plus system CPU time in seconds.
    var cpuSeconds: Double
    /// The child's peak resident set (`ru_maxrss`), in bytes.
    var peakRSSBytes: Int
    /// What it wrote to its standard output.
    var output: String

    /// `/usr/bin/time`, if installed.
    static let timeTool: String? = FileManager.default.isExecutableFile(atPath: "/usr/bin/time") ? "/usr/bin/time" : nil

    /// Runs `executable` with `arguments` (its standard error kept for the message if it fails)
    /// through ``timeTool`` and waits for it.
    ///
    /// - Throws: ``BenchmarkError`` when it cannot be started, exits with a status other than 0,
    ///   or `time`'s figures cannot be read.
    static func run(_ executable: String, _ arguments: [String]) throws -> MeasuredRun {
        let figures = BenchmarkProcess.temporaryPath("time"), output = BenchmarkProcess.temporaryPath("stdout")
        defer {
            unlink(figures)
            unlink(output)
        }
        let name = (([executable] + arguments.prefix(3)).map { ($0 as NSString).lastPathComponent }).joined(separator: " ")
        let timed = timeTool.map { ($0, ["-f", "%e %U %S %M", "-o", figures, executable] + arguments) }
        let clock = ContinuousClock()
        let start = clock.now
        let process = try BenchmarkProcess(timed?.0 ?? executable, timed?.1 ?? arguments, name: name, standardOutput: output)
        let (ending, usage) = try process.child.waitMeasuring()
        let seconds = BenchKit.nanoseconds(clock.now - start) / 1e9
        try process.check(ending)
        var run = MeasuredRun(
            seconds: seconds, cpuSeconds: usage.cpuSeconds, peakRSSBytes: Int(usage.ru_maxrss) * 1024,
            output: (try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
        guard timed != nil else { return run }
        let fields =
            ((try? String(contentsOfFile: figures, encoding: .utf8)) ?? "")
            .split(whereSeparator: \.isNewline).last?.split(separator: " ").compactMap { Double($0) } ?? []
        guard fields.count == 4 else { throw BenchmarkError("could not read /usr/bin/time's figures for \(executable)") }
        run.cpuSeconds = fields[1] + fields[2]
        run.peakRSSBytes = Int(fields[3]) * 1024
        return run
    }
}

extension rusage {
    /// User plus system CPU time, in seconds.
    var cpuSeconds: Double {
        Double(ru_utime.tv_sec) + Double(ru_utime.tv_usec) / 1e6 + Double(ru_stime.tv_sec) + Double(ru_stime.tv_usec) / 1e6
    }
}
