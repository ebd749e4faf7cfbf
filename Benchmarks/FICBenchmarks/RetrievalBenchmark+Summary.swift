import Foundation

/// `fic-bench retrieval`: the benchmark's name, its run with the command line's context, and its table.
extension RetrievalBenchmark: Benchmark {
    /// `retrieval`.
    public static let name = "retrieval"

    /// What it measures, for the help.
    public static let abstract =
        "cachedImage(for:format:) against an in-memory dictionary and against decoding a small JPEG per image, and insert cost while a table fills."

    /// Runs it with the context's test data and work folder.
    public static func run(in context: BenchmarkContext) async throws -> RetrievalBenchmarkResult {
        try run(
            testdata: context.testdata, workDirectory: context.workDirectory, benchmarks: context.executables.benchmarks, log: context.log)
    }

    /// Its figures, targets and verdicts.
    public static func summary(of r: RetrievalBenchmarkResult) -> [String] {
        var table = SummaryTable()
        table.line("\n  \(r.entities) entities, \(r.pixelWidth)×\(r.pixelHeight) px BGRA; medians of several runs")
        table.row("figure", "value", "target", nil)
        table.row("(a) lookup: cachedImage + release", BenchKit.nanoseconds(text: r.lookupNs), "≤ 500 ns", r.targetsMet["lookup_le_500ns"])
        table.row("  a shared slot's hold + release", BenchKit.nanoseconds(text: r.sharedHoldReleaseNs))
        table.row("(b) lookup + read every pixel", BenchKit.nanoseconds(text: r.readNs))
        table.row("(c) [String: [UInt8]] lookup + read", BenchKit.nanoseconds(text: r.inMemoryReadNs))
        if let c = r.conventionalNs {
            table.row("(d) conventional: read + decode JPEG + read", BenchKit.nanoseconds(text: c))
        } else {
            table.row("(d) conventional", "skipped")
        }
        table.row("read / in-memory", String(format: "%.2f×", r.readOverInMemory), "≤ 1.5", r.targetsMet["read_over_in_memory_le_1_5"])
        if let c = r.conventionalOverLookup {
            table.row(
                "conventional / retrieval (lookup)", String(format: "%.0f×", c), "≥ 100", r.targetsMet["conventional_over_lookup_ge_100"])
        }
        if let ratio = r.conventionalOverRead {
            table.row(
                "conventional / (retrieval + read every pixel)", String(format: "%.0f×", ratio), "≥ 100",
                r.targetsMet["conventional_over_read_ge_100"])
        }
        if let c = r.conventionalOverInMemoryRead {
            table.row("  ceiling: conventional / in-memory read", String(format: "%.0f×", c))
            table.line("  note: reading 160 KB of pixels is bound by memory bandwidth: even a dictionary of bitmaps")
            table.line(
                "        in memory is only \(String(format: "%.0f", c))× faster than decoding, so no cache can reach 100× with the read.")
        }
        table.line("  (e) filling a table, per bucket of \(r.insertBucketSize) inserts:")
        table.line("      µs/insert:    " + r.insertBucketNs.map { String(format: "%7.1f", $0 / 1000) }.joined(separator: " "))
        table.line("      in draw:      " + r.insertBucketDrawNs.map { String(format: "%7.1f", $0 / 1000) }.joined(separator: " "))
        table.line("      engine median:" + r.insertBucketEngineNs.map { String(format: "%7.1f", $0 / 1000) }.joined(separator: " "))
        table.line("      bytes/insert: " + r.insertBucketBytes.map { String(format: "%7.0f", $0) }.joined(separator: " "))
        table.row("insert time max/min (drawing into new pages)", String(format: "%.2f", r.insertTimeMaxOverMin))
        table.row(
            "engine (median, outside draw) max/min", String(format: "%.2f", r.insertEngineTimeMaxOverMin), "≤ 1.5",
            r.targetsMet["insert_engine_time_constant"])
        table.row(
            "bytes per insert max/min", String(format: "%.3f", r.insertBytesMaxOverMin), "≤ 1.01", r.targetsMet["insert_bytes_constant"])
        if let f = r.firstLookup {
            table.line(
                "  (f) first lookup of each of \(f.images) images (\(f.side)×\(f.side) BGRA) by a new process (mean; median of \(f.afterStopRuns.count) processes):"
            )
            table.row(
                "  after the previous process closed the cache",
                BenchKit.nanoseconds(text: f.afterCleanCloseNs) + String(format: " (open %.1f ms)", f.openAfterCleanCloseMs))
            table.row(
                "  after it stopped without close (same boot)",
                BenchKit.nanoseconds(text: f.afterStopNs) + String(format: " (open %.1f ms)", f.openAfterStopMs))
            table.row(
                "  after a simulated restart (every entry checked)",
                BenchKit.nanoseconds(text: f.afterRestartNs) + String(format: " (open %.1f ms)", f.openAfterRestartMs))
            table.row("  warm lookup, for comparison", BenchKit.nanoseconds(text: r.lookupNs))
            table.row(
                "  after a stop / after a clean close", String(format: "%.2f×", f.stopOverCleanClose), "≤ 1.2",
                r.targetsMet["first_lookup_after_stop_le_1_2x_clean_close"])
        }
        for note in r.notes { table.line("  note: \(note)") }
        return table.lines
    }
}
