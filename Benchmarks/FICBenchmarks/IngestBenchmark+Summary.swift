import Foundation

/// `fic-bench ingest`: the benchmark's name, its run with the command line's context, and its table.
extension IngestBenchmark: Benchmark {
    /// `ingest`.
    public static let name = "ingest"

    /// What it measures, for the help.
    public static let abstract =
        "photos into a two-format family against vipsthumbnail (run first by \"all\", so that its memory figures are its own)."

    /// Runs it with the context's test data and work folder.
    public static func run(in context: BenchmarkContext) async throws -> IngestBenchmarkResult {
        var options = Options()
        options.photos = context.options.photos
        if let count = context.options.count { options.count = max(1, count) }
        if let memoryRunCount = context.options.memoryRunCount { options.memoryRunCount = max(0, memoryRunCount) }
        options.jobs = context.options.jobs
        return try run(
            fic: context.executables.fic(), testdata: context.testdata, workDirectory: context.workDirectory, options: options,
            log: context.log)
    }

    /// Its figures, targets and verdicts.
    public static func summary(of r: IngestBenchmarkResult) -> [String] {
        var table = SummaryTable()
        table.line(
            "\n  fic ingest --jobs \(r.jobs) (memory runs: --memory \(r.memoryBudgetMiB)) into \(r.formats.joined(separator: ", ")); inputs: \(r.inputs)"
        )
        table.row("figure", "value", "target", nil)
        for f in r.results {
            table.line("  \(f.kind): \(f.files) files, \(BenchKit.mebibytes(f.inputBytes))")
            table.row("  fic ingest", String(format: "%.1f photos/s", f.ficPhotosPerSecond))
            table.row("    CPU per photo", String(format: "%.1f ms", f.ficCPUMillisecondsPerPhoto))
            table.row("    its peak RSS", BenchKit.mebibytes(f.ficPeakRSSBytes))
            if let v = f.vipsPhotosPerSecond, let ratio = f.ficOverVips {
                table.row("  vipsthumbnail", String(format: "%.1f photos/s", v))
                if let c = f.vipsCPUMillisecondsPerPhoto { table.row("    CPU per photo", String(format: "%.1f ms", c)) }
                if let p = f.vipsPeakRSSBytes { table.row("    its peak RSS", BenchKit.mebibytes(p)) }
                table.row("  fic / vipsthumbnail", String(format: "%.2f×", ratio), "≥ 2", ratio >= 2)
                if let c = f.cpuRatio { table.row("  vipsthumbnail CPU / fic CPU", String(format: "%.2f×", c)) }
            } else {
                table.row("  vipsthumbnail", "skipped")
            }
        }
        if let files = r.memoryRunFiles, let peak = r.memoryRunPeakRSSBytes {
            table.row("peak RSS, \(files) large JPEGs", BenchKit.mebibytes(peak), "< 150 MiB", r.targetsMet["memory_run_peak_lt_150mib"])
            if let few = r.fewFilesPeakRSSBytes {
                table.row("  against few files", BenchKit.mebibytes(few), "flat", r.targetsMet["memory_flat_in_count"])
            }
        }
        for note in r.notes { table.line("  note: \(note)") }
        return table.lines
    }
}
