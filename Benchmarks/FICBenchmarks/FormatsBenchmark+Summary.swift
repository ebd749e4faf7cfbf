import Foundation

/// `fic-bench formats`: the benchmark's name, its run with the command line's context, and its table.
extension FormatsBenchmark: Benchmark {
    /// `formats`.
    public static let name = "formats"

    /// What it measures, for the help.
    public static let abstract =
        "HEIC, AVIF, JPEG XL, TIFF and GIF photos ingested against vipsthumbnail (HEIC and AVIF also with --memory 96, and beside their decoders alone), what a ProPhoto profile costs an ingest and an 18000² pyramid, a 24000×16000 tiled BigTIFF into a pyramid against vips, and memory over 500 HEICs."

    /// Runs it with the context's test data and work folder.
    public static func run(in context: BenchmarkContext) async throws -> FormatsBenchmarkResult {
        var options = IngestBenchmark.Options()
        if let count = context.options.count { options.count = count }
        options.kinds = context.options.kinds.map(Set.init)
        options.jobs = context.options.jobs
        return try run(
            fic: context.executables.fic(), testdata: context.testdata, workDirectory: context.workDirectory, options: options,
            log: context.log)
    }

    /// Its figures, targets and verdicts.
    public static func summary(of r: FormatsBenchmarkResult) -> [String] {
        var table = SummaryTable()
        table.line("")
        table.row("figure", "value", "target", nil)
        for f in r.ingest {
            let heif = DecoderFloor.tool(for: f.kind) != nil
            table.row(
                "\(f.kind): fic ingest",
                String(format: "%.1f photos/s, %@ peak", f.ficPhotosPerSecond, BenchKit.mebibytes(f.ficPeakRSSBytes)))
            if let v = f.vipsPhotosPerSecond, let ratio = f.ficOverVips {
                table.row("  vipsthumbnail", String(format: "%.1f photos/s", v))
                table.row("  fic / vipsthumbnail", String(format: "%.2f×", ratio), heif ? "≥ 1.8" : "≥ 2", ratio >= (heif ? 1.8 : 2))
            }
            if let small = r.smallMemoryIngest.first(where: { $0.kind == f.kind }) {
                let ratio = small.ficOverVips
                table.row(
                    "  fic ingest --memory 96",
                    String(format: "%.1f photos/s, %@ peak", small.ficPhotosPerSecond, BenchKit.mebibytes(small.ficPeakRSSBytes)),
                    "< 150 MB", small.ficPeakRSSBytes < 150_000_000)
                if let ratio { table.row("  --memory 96 / vipsthumbnail", String(format: "%.2f×", ratio), "≥ 1.0", ratio >= 1) }
            }
            if let floor = r.decoderFloors.first(where: { $0.kind == f.kind }) {
                table.row(
                    "  \(floor.tool) alone, \(floor.jobs) at a time",
                    String(
                        format: "%.1f photos/s, %.0f ms CPU each (fic: %.0f %%, %.0f ms)", floor.photosPerSecond,
                        floor.cpuMillisecondsPerPhoto,
                        100 * f.ficPhotosPerSecond / floor.photosPerSecond, f.ficCPUMillisecondsPerPhoto))
            }
        }
        if let t = r.taggedIngest {
            table.row(
                "JPEG ingest, ProPhoto / untagged", String(format: "%.2f s / %.2f s = %.2f×", t.taggedSeconds, t.untaggedSeconds, t.ratio),
                "≤ 1.1", r.targetsMet["tagged_ingest_le_1_1"])
        }
        if let t = r.taggedPyramid {
            table.row(
                "18000² pyramid, ProPhoto / untagged",
                String(format: "%.2f s / %.2f s = %.2f×", t.taggedSeconds, t.untaggedSeconds, t.ratio), "≤ 1.3",
                r.targetsMet["tagged_pyramid_le_1_3"])
        }
        if let b = r.bigTIFF {
            table.row(
                "tiled BigTIFF \(b.width)×\(b.height) → pyramid",
                String(format: "%.2f s, %@", b.ficSeconds, BenchKit.mebibytes(b.ficPeakRSSBytes)), "≤ 100 MB",
                r.targetsMet["bigtiff_peak_le_100mb"])
            if let v = b.vipsSeconds, let rss = b.vipsPeakRSSBytes {
                table.row(
                    "  vips tiffsave --tile --pyramid", String(format: "%.2f s, %@", v, BenchKit.mebibytes(rss)), "slower",
                    r.targetsMet["bigtiff_faster_than_vips"])
            }
        }
        if let many = r.heicManyPeakRSSBytes, let few = r.heicFewPeakRSSBytes, let n = r.heicManyFiles {
            table.row(
                "ingest of \(n) HEICs: peak RSS", "\(BenchKit.mebibytes(many)) (few files: \(BenchKit.mebibytes(few)))", "< 150 MB, flat",
                r.targetsMet["heic_memory_flat_lt_150mb"])
        }
        for note in r.notes { table.line("  note: \(note)") }
        return table.lines
    }
}
