import Foundation

/// `fic-bench color`: the benchmark's name, its run with the command line's context, and its table.
extension ColorBenchmark: Benchmark {
    /// `color`.
    public static let name = "color"

    /// What it measures, for the help.
    public static let abstract =
        "conversion to sRGB of a 24-megapixel photo, the matrix-shaper fast path against LittleCMS, ms per megapixel."

    /// Runs it with the context's test data and work folder.
    public static func run(in context: BenchmarkContext) async throws -> ColorBenchmarkResult {
        try run(testdata: context.testdata, log: context.log)
    }

    /// Its figures, targets and verdicts.
    public static func summary(of r: ColorBenchmarkResult) -> [String] {
        var table = SummaryTable()
        table.line(String(format: "\n  memcpy of the BGRX buffer: %.2f ms/MP", r.memcpyMillisecondsPerMegapixel))
        return table.lines
    }
}
