import FICBenchmarks
import FICHarness
import FICTestSupport
import Foundation
import Testing

@Suite("fic-bench's command line")
struct FicBenchCommandTests {
    /// `fic-bench`, built with the tests.
    static let binary = BuiltExecutable.path("fic-bench")

    /// Runs `fic-bench ARGUMENTS` with a time limit; a hang is a failure.
    static func run(_ arguments: [String]) throws -> ChildProcess.Run {
        let binary = try #require(binary, "fic-bench was not built with the tests")
        let run = try ChildProcess.run(binary, arguments, timeout: .seconds(600))
        if case .timedOut = run.ending { Issue.record("fic-bench \(arguments) was \(run.ending)") }
        return run
    }

    @Test("--help exits 0 and names every benchmark, what it measures, and the hidden child command not at all")
    func help() throws {
        let run = try Self.run(["--help"])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.contains("USAGE: fic-bench"))
        for benchmark in BenchmarkList.all {
            #expect(run.standardOutput.contains("\(benchmark.name):"), "help lacks \(benchmark.name)")
        }
        for option in ["--json", "--testdata", "--work-directory", "--photos", "--count", "--memory-run-count", "--jobs"] {
            #expect(run.standardOutput.contains(option), "help lacks \(option)")
        }
        #expect(!run.standardOutput.contains(BenchmarkExecutables.childCommand + " "))
    }

    @Test("a benchmark that does not exist is a usage error: exit status 2, one line naming it")
    func unknownBenchmark() throws {
        let run = try Self.run(["no-such-benchmark"])
        #expect(run.status == 2, "\(run.standardError)")
        #expect(run.standardError.hasPrefix("fic-bench: ") && run.standardError.contains("'no-such-benchmark'"), "\(run.standardError)")
        #expect(run.standardError.split(separator: "\n").count == 1, "\(run.standardError)")
    }

    /// The first-lookup child of `fic-bench retrieval` on a cache of nothing: it opens the cache,
    /// misses every image and prints its one JSON line.
    @Test("the hidden child command runs a benchmark's process")
    func childCommand() throws {
        let folder = try ExternalTools.makeFolder("fic-bench-child")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let run = try Self.run([BenchmarkExecutables.childCommand, "first-lookups", "--cache", folder, "--count", "3"])
        #expect(run.status == 0, "\(run.standardError)")
        let line = try #require(run.standardOutput.split(separator: "\n").last)
        let figures = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(figures["misses"] as? Int == 3)
    }
}
