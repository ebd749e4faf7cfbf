import Foundation

/// `fic-bench serve`: the benchmark's name, its run with the command line's context, and its table.
extension ServeBenchmark: Benchmark {
    /// `serve`.
    public static let name = "serve"

    /// What it measures, for the help.
    public static let abstract =
        "`fic serve` under wrk (64 connections, random tiles of an 18000² pyramid) against nginx serving vips dzsave's static tiles; Deep Zoom and IIIF URLs, warm and with every tile encoded on request."

    /// Runs it with the context's test data and work folder.
    public static func run(in context: BenchmarkContext) async throws -> ServeBenchmarkResult {
        try run(testdata: context.testdata, workDirectory: context.workDirectory, fic: context.executables.fic(), log: context.log)
    }

    /// Its figures, targets and verdicts.
    public static func summary(of r: ServeBenchmarkResult) -> [String] {
        var table = SummaryTable()
        table.line("\n  \(r.tiles) random tiles of an \(r.side)² pyramid, \(r.connections) connections")
        table.row("figure", "value", "target", nil)
        func load(_ x: ServeBenchmarkResult.Load) -> String { String(format: "%.0f/s, p99 %.2f ms", x.requestsPerSecond, x.p99Ms) }
        if let n = r.nginx { table.row("nginx, vips dzsave's static tiles", load(n)) }
        table.row("fic serve, Deep Zoom, raw tiles (TIFF, none)", load(r.serveDeepZoom), "p99 ≤ 10 ms", r.serveDeepZoom.p99Ms <= 10)
        if let x = r.deepZoomOverNginx { table.row("  requests/s over nginx's", String(format: "%.2f×", x), "≥ 0.7", x >= 0.7) }
        table.row("fic serve, IIIF tile URLs", load(r.serveIIIF))
        table.row("fic serve, cold tiles, 2 connections", load(r.serveCold), "p99 ≤ 5 ms", r.serveCold.p99Ms <= 5)
        if let t = r.serveColdTIFF { table.row("  the same from a pyramidal TIFF (JPEG tiles as stored)", load(t)) }
        if let t = r.serveDeepZoomTIFF {
            table.row("fic serve, Deep Zoom from fic's pyramidal TIFF", load(t), "p99 ≤ 10 ms", t.p99Ms <= 10)
            if let x = r.deepZoomTIFFOverNginx { table.row("  requests/s over nginx's", String(format: "%.2f×", x), "≥ 1.0", x >= 1) }
        }
        if let i = r.iipsrv {
            table.row("iipsrv (2 processes behind nginx), the same TIFF", load(i))
            if let x = r.deepZoomTIFFOverIIPServer { table.row("  fic serve over iipsrv", String(format: "%.1f×", x), "≥ 10", x >= 10) }
        }
        let errors = [
            r.nginx?.errors ?? 0, r.serveDeepZoom.errors, r.serveIIIF.errors, r.serveCold.errors, r.serveColdTIFF?.errors ?? 0,
            r.serveDeepZoomTIFF?.errors ?? 0, r.iipsrv?.errors ?? 0
        ].reduce(0, +)
        table.row("errors (non-2xx, socket)", "\(errors)", "0", errors == 0)
        for note in r.notes { table.line("  note: \(note)") }
        return table.lines
    }
}
