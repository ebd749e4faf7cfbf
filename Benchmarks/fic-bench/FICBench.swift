#if Tool
import ArgumentParser
import FICBenchmarks
import FICCommandLine
import FastImageCache
import Foundation

/// `fic-bench`: runs the benchmarks and prints their figures, targets and whether each was met.
/// A program of its own, so that `fic` links none of the benchmarks' harness (nginx, a throttled
/// link, test patterns).
@main
struct FICBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fic-bench",
        abstract: "Run the benchmarks (build with -c release: debug figures are meaningless).",
        discussion: BenchmarkList.all.map { "\($0.name): \($0.abstract)" }.joined(separator: " ") + """
             With --json the last line of the output is one JSON object with a member per \
            benchmark run. The baselines come with `scripts/install-deps --bench`; the benchmarks \
            that measure fic (ingest, formats, tiles, view, serve, animation) run the fic built \
            beside fic-bench.
            """)

    @Argument(help: "The benchmark to run: \(BenchmarkChoice.allValueStrings.dropLast().joined(separator: ", ")) or all.")
    var benchmark: BenchmarkChoice = .all

    @Flag(help: "Print the results as one JSON object on the last line.")
    var json = false

    @Option(
        help:
            "The test-data folder (default: ../shared/testdata from the current directory or the executable, else the bundled sample photos)."
    )
    var testdata: String?

    @Option(help: "A folder for temporary files (default: the system's temporary folder).")
    var workDirectory: String?

    @Option(
        help: ArgumentHelp(
            "ingest: a folder of photos (JPEG, PNG, WebP, HEIC, AVIF, JPEG XL, GIF, TIFF, found recursively by content) instead of generated large ones.",
            valueName: "dir"))
    var photos: String?

    @Option(help: ArgumentHelp("ingest: files per kind of input (default 48).", valueName: "n"))
    var count: Int?

    @Option(help: ArgumentHelp("ingest: JPEG files of the memory run (default 240; 0 skips it).", valueName: "n"))
    var memoryRunCount: Int?

    @Option(help: ArgumentHelp("ingest: fic ingest --jobs (default: one per core).", valueName: "n"))
    var jobs: Int?

    @Option(
        help: ArgumentHelp(
            "formats: only the ingest of these kinds, comma-separated (heic, avif, jxl, jxl-vips, tiff, gif; default: everything).",
            valueName: "list"
        ))
    var kinds: String?

    /// Parses the arguments, runs the command and exits with the tool's own statuses, as `fic`
    /// does. `fic-bench child …` is the hidden command of the benchmarks' child processes: a root
    /// command of its own, as ArgumentParser would take `child` for the benchmark argument.
    static func main() async {
        // Decodes of large images one after another must not leave their freed planes resident.
        ImageCache.returnFreedMemoryPromptly()
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == BenchmarkExecutables.childCommand {
            await ExitStatus.main(ChildCommand.self, arguments: Array(arguments.dropFirst()))
        }
        await ExitStatus.main(FICBench.self)
    }

    func run() async throws {
        #if DEBUG
        print(
            "warning: this is a debug build, so these figures are meaningless; build with `swift build -c release` and run `.build/release/fic-bench`"
        )
        #endif
        let executables = BenchmarkExecutables.ofThisProcess()
        let testdata = try TestData.folder(given: testdata, executableFolder: executables.folder)
        let work = workDirectory ?? FileManager.default.temporaryDirectory.appendingPathComponent("fic-bench").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        print("test data: \(testdata)")
        let options = BenchmarkOptions(
            photos: photos, count: count, memoryRunCount: memoryRunCount, jobs: jobs,
            kinds: kinds.map { $0.split(separator: ",").map { String($0) } })
        let context = BenchmarkContext(testdata: testdata, workDirectory: work, executables: executables, options: options) { print($0) }

        var report = BenchmarkReport()
        var failures: [String] = []
        for selected in BenchmarkList.all where benchmark.runs(selected.name) {
            print("\n== \(selected.name) ==")
            do {
                let outcome = try await selected.measure(in: context)
                outcome.summary.forEach { print($0) }
                report.add(outcome)
            } catch {
                print("error: the \(selected.name) benchmark failed: \(error)")
                failures.append(selected.name)
            }
        }

        #if DEBUG
        print("\nwarning: debug build; run `.build/release/fic-bench` (swift build -c release) for meaningful figures")
        #endif
        if json {
            print(try report.jsonLine())
        }
        if !failures.isEmpty { throw ExitCode.failure }
    }
}
#endif
