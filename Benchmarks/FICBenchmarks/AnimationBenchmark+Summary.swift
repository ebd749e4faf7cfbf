import Foundation

/// `fic-bench animation`: the benchmark's name, its run with the command line's context, and its table.
extension AnimationBenchmark: Benchmark {
    /// `animation`.
    public static let name = "animation"

    /// What it measures, for the help.
    public static let abstract =
        "a 1920×1080 animated WebP of 300 frames ingested into a 480×270 format (peak RSS, a second ingest) against Pillow's frame loop, the frame lookup of a player, and 40 animated cells playing in the gallery on Xvfb."

    /// Runs it with the context's test data and work folder.
    public static func run(in context: BenchmarkContext) async throws -> AnimationBenchmarkResult {
        try run(testdata: context.testdata, workDirectory: context.workDirectory, fic: context.executables.fic(), log: context.log)
    }

    /// Its figures, targets and verdicts.
    public static func summary(of r: AnimationBenchmarkResult) -> [String] {
        var table = SummaryTable()
        table.line(
            "\n  \(r.sourceWidth)×\(r.sourceHeight) animated WebP of \(r.frames) frames, stored at \(r.formatWidth)×\(r.formatHeight)")
        table.row("figure", "value", "target", nil)
        table.row(
            "first fic ingest, peak RSS", String(format: "%.0f MiB", Double(r.firstIngestPeakRSSBytes) / 1_048_576), "≤ 100 MiB",
            r.targetsMet["ingest_peak_rss_le_100mib"])
        table.row("  every canvas on the heap would take", String(format: "%.0f MiB", Double(r.allFramesOnHeapBytes) / 1_048_576))
        table.row("first fic ingest", String(format: "%.2f s", r.firstIngestSeconds))
        if let p = r.pillowSeconds { table.row("Pillow, every frame decoded", String(format: "%.2f s", p)) }
        if let x = r.ingestOverPillow {
            table.row("  fic ingest over Pillow", String(format: "%.2f×", x), "≤ 1×", r.targetsMet["ingest_le_pillow"])
        }
        table.row("second fic ingest", r.secondIngestUnchanged ? "0 decodes" : "decoded", "0 decodes", r.secondIngestUnchanged)
        table.row("frame lookup while playing", BenchKit.nanoseconds(text: r.frameLookupNs), "≤ 1 µs", r.targetsMet["frame_lookup_le_1us"])
        table.row("frames missing", "\(r.framesMissing)", "0", r.framesMissing == 0)
        table.row("  a player's work per refresh", BenchKit.nanoseconds(text: r.playerRefreshNs))
        if let p = r.galleryPlaying, let cells = r.galleryCells {
            table.row(
                "gallery, \(cells) animated cells: compose p99", String(format: "%.2f ms", p.composeP99Ms), "≤ 4 ms",
                r.targetsMet["gallery_compose_p99_le_4ms"])
            table.row(
                "  composes over 8.3 ms", "\(p.framesComposeOver8_3Ms) of \(p.frames)", "0", r.targetsMet["gallery_no_compose_over_8_3ms"])
            table.row("  frame changes drawn", "\(r.galleryFramesChanged ?? -1)")
            table.row(
                "  launched again: decodes", "\(r.gallerySecondLaunchDecodes ?? -1)", "0",
                r.targetsMet["gallery_second_launch_decodes_nothing"])
        }
        for note in r.notes { table.line("  note: \(note)") }
        return table.lines
    }
}
