import Foundation

/// `fic-bench decode`: the benchmark's name, its run with the command line's context, and its table.
extension DecodeBenchmark: Benchmark {
    /// `decode`.
    public static let name = "decode"

    /// What it measures, for the help.
    public static let abstract = "the decoder."

    /// Runs it with the context's test data and work folder.
    public static func run(in context: BenchmarkContext) async throws -> DecodeBenchmarkResult {
        try run(testdata: context.testdata, workDirectory: context.workDirectory, log: context.log)
    }

    /// Its figures, targets and verdicts.
    public static func summary(of r: DecodeBenchmarkResult) -> [String] {
        var table = SummaryTable()
        table.line("\n  \(r.width)×\(r.height) px baseline JPEG, \(r.fileBytes / 1024) KiB; best of \(r.runs) runs")
        table.row("figure", "value", "target", nil)
        table.row("full-size decode", String(format: "%.1f MP/s", r.fullDecodeMegapixelsPerSecond))
        table.row("DCT scale 1/2", String(format: "%.1f MP/s", r.halfScaleMegapixelsPerSecond))
        table.row("DCT scale 1/4", String(format: "%.1f MP/s", r.quarterScaleMegapixelsPerSecond))
        table.row("DCT scale 1/8", String(format: "%.1f MP/s", r.eighthScaleMegapixelsPerSecond))
        if let djpeg = r.djpegMegapixelsPerSecond, let ratio = r.ratioToDjpeg {
            table.row("djpeg -dct int (whole process)", String(format: "%.1f MP/s", djpeg))
            table.row("ours / djpeg", String(format: "%.2f", ratio), "≥ 0.90", ratio >= 0.9)
        } else {
            table.row("djpeg", "skipped")
        }
        for t in r.thumbnails ?? [] {
            table.line("  \(t.kind) \(t.width)×\(t.height), \(t.fileBytes / 1024) KiB, one thread:")
            table.row("    full-size decode", String(format: "%.1f ms", t.fullMilliseconds))
            table.row(
                "    decode covering 300×300 (\(t.thumbnailWidth)×\(t.thumbnailHeight))", String(format: "%.1f ms", t.thumbnailMilliseconds)
            )
        }
        return table.lines
    }
}
