import Foundation

/// `fic-bench loader`: the benchmark's name, its run with the command line's context, and its table.
extension LoaderBenchmark: Benchmark {
    /// `loader`.
    public static let name = "loader"

    /// What it measures, for the help.
    public static let abstract =
        "images on screen against a flood of prefetches through a 4 MB/s link to nginx, lanes against one FIFO queue, and fetch-to-disk against curl --parallel (needs nginx, curl, cjpeg)."

    /// Runs it with the context's test data and work folder.
    public static func run(in context: BenchmarkContext) async throws -> LoaderBenchmarkResult {
        try await run(testdata: context.testdata, workDirectory: context.workDirectory, log: context.log)
    }

    /// Its figures, targets and verdicts.
    public static func summary(of r: LoaderBenchmarkResult) -> [String] {
        var table = SummaryTable()
        table.line(
            "\n  \(r.photos) photos of \(r.meanPhotoBytes / 1000) KB on average, nginx behind a \(r.linkBytesPerSecond / 1_000_000) MB/s link; \(r.visible) visible after \(r.prefetched) prefetches"
        )
        table.row("figure", "value", "target", nil)
        table.row("visible alone", String(format: "%.0f ms", r.visibleAloneMs))
        table.row("visible under the flood (lanes)", String(format: "%.0f ms", r.visibleUnderFloodMs))
        table.row("visible under the flood (one FIFO queue)", String(format: "%.0f ms", r.fifoUnderFloodMs))
        table.row(
            "lanes under flood / alone", String(format: "%.2f×", r.underFloodOverAlone), "≤ 1.25", r.targetsMet["under_flood_le_1_25_alone"]
        )
        table.row("FIFO under flood / alone", String(format: "%.1f×", r.fifoOverAlone))
        table.row("promotions of queued prefetches", "\(r.promotions)")
        table.row(
            "bytes downloaded / unique bytes", "\(r.bytesDownloaded) / \(r.uniqueBytes)", "equal",
            r.targetsMet["bytes_downloaded_eq_unique"])
        table.row(
            "fetch to disk (\(r.throughputImages) photos, \(r.throughputParallel) at a time)",
            String(format: "%.0f photos/s", r.fetchToDiskImagesPerSecond))
        table.line(
            "      runs (s), ours: " + r.fetchToDiskSeconds.map { String(format: "%.3f", $0) }.joined(separator: " ")
                + (r.curlSeconds.isEmpty ? "" : "; curl: " + r.curlSeconds.map { String(format: "%.3f", $0) }.joined(separator: " ")))
        if let c = r.curlImagesPerSecond, let ratio = r.oursOverCurl {
            table.row("curl --parallel, same URLs", String(format: "%.0f photos/s", c))
            table.row("ours / curl", String(format: "%.2f×", ratio), "≥ 0.8", r.targetsMet["fetch_to_disk_ge_0_8_curl"])
        } else {
            table.row("curl", "skipped")
        }
        for note in r.notes { table.line("  note: \(note)") }
        return table.lines
    }
}
