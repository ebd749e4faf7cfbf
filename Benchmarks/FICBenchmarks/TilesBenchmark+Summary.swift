import Foundation

/// `fic-bench tiles`: the benchmark's name, its run with the command line's context, and its table.
extension TilesBenchmark: Benchmark {
    /// `tiles`.
    public static let name = "tiles"

    /// What it measures, for the help.
    public static let abstract = "tile pyramids of an 18000×18000 JPEG and its progressive twin against djpeg and libvips."

    /// Runs it with the context's test data and work folder.
    public static func run(in context: BenchmarkContext) async throws -> TilesBenchmarkResult {
        try run(testdata: context.testdata, workDirectory: context.workDirectory, fic: context.executables.fic(), log: context.log)
    }

    /// Its figures, targets and verdicts.
    public static func summary(of r: TilesBenchmarkResult) -> [String] {
        var table = SummaryTable()
        table.line("\n  \(r.side)×\(r.side) px JPEG: baseline \(r.baselineBytes >> 20) MiB, progressive \(r.progressiveBytes >> 20) MiB")
        table.row("figure", "value", "target", nil)
        func run(_ x: TilesBenchmarkResult.Run) -> String {
            String(format: "%.2f s, %.0f MiB", x.seconds, Double(x.peakRSSBytes) / 1_048_576)
        }
        if let d = r.djpeg { table.row("djpeg (decode only)", run(d)) }
        table.row("fic tile --out X.tif --compression none: whole pyramid", run(r.pyramid))
        if let x = r.pyramidOverDjpeg {
            table.row("  pyramid / djpeg", String(format: "%.2f×", x), "≤ 1.15", r.targetsMet["pyramid_le_1_15x_djpeg"])
        }
        table.row("  peak RSS", BenchKit.mebibytes(r.pyramid.peakRSSBytes))
        if let width = r.wideWidth, let height = r.wideHeight, let pyramid = r.widePyramid {
            table.row("fic tile: \(width)×\(height) pyramid", run(pyramid))
            if let x = r.widePyramidOverDjpeg {
                table.row("  pyramid / djpeg", String(format: "%.2f×", x), "≤ 1.15", r.targetsMet["wide_pyramid_le_1_15x_djpeg"])
            }
        }
        table.row("fic tile --compression none --low-memory", run(r.lowMemoryPyramid))
        table.row("  peak RSS", BenchKit.mebibytes(r.lowMemoryPyramid.peakRSSBytes), "≤ 64 MiB", r.targetsMet["peak_rss_le_64MiB"])
        if let t = r.vipsTiffsave, let x = r.vipsTiffsaveOverPyramid {
            table.row("vips tiffsave --tile --pyramid (raw)", run(t))
            table.row("  vips tiffsave / pyramid", String(format: "%.2f×", x), "> 1", r.targetsMet["faster_than_vips_tiffsave"])
        }
        if let d = r.vipsDzsave, let x = r.vipsDzsaveOverPyramid {
            table.row("vips dzsave", run(d))
            table.row("  vips dzsave / pyramid", String(format: "%.2f×", x))
        }
        if let d = r.progressiveDjpeg { table.row("progressive: djpeg", run(d)) }
        table.row("progressive: fic tile --compression none", run(r.progressivePyramid))
        if let x = r.progressiveOverDjpeg {
            table.row("  pyramid / djpeg", String(format: "%.2f×", x), "≤ 1.3", r.targetsMet["progressive_le_1_3x_djpeg"])
        }
        table.row(
            "  peak RSS", BenchKit.mebibytes(r.progressivePyramid.peakRSSBytes), "≤ 300 MiB", r.targetsMet["progressive_peak_rss_le_300MiB"]
        )
        if let t = r.progressiveVipsTiffsave { table.row("progressive: vips tiffsave --pyramid", run(t)) }
        for t in r.tiff ?? [] {
            let size = "\(t.width)x\(t.height)"
            table.line("\n  pyramidal TIFF of the \(t.width)×\(t.height) JPEG (\(t.sourceBytes >> 10) KiB)")
            table.row("fic tile --out X.tif (JPEG, default)", run(t.jpegTIFF))
            table.row(
                "  file / source JPEG", String(format: "%.2f× (%d KiB)", t.diskOverSource, t.jpegTIFFBytes >> 10), "≤ 1.5",
                r.targetsMet["tiff_\(size)_disk_le_1_5x_source"])
            if let x = t.jpegOverDjpeg {
                table.row("  / djpeg", String(format: "%.2f×", x), "≤ 1.3", r.targetsMet["tiff_\(size)_jpeg_le_1_3x_djpeg"])
            }
            if t.width == r.side {
                table.row(
                    "  peak RSS", BenchKit.mebibytes(t.jpegTIFF.peakRSSBytes), "≤ 100 MiB", r.targetsMet["tiff_\(size)_peak_rss_le_100MiB"])
            }
            if let luma = t.lumaPSNR, let rgb = t.rgbPSNR {
                table.row(
                    "  full resolution vs plain decode", String(format: "luma %.1f dB, RGB %.1f dB", luma, rgb), "≥ 40 dB",
                    r.targetsMet["tiff_\(size)_luma_psnr_ge_40dB"])
            }
            table.row("fic tile --out X.tif --compression none", run(t.rawTIFF))
            if let x = t.rawOverDjpeg {
                table.row("  / djpeg", String(format: "%.2f×", x), "≤ 1.15", r.targetsMet["tiff_\(size)_raw_le_1_15x_djpeg"])
            }
            if let v = t.vipsJPEGTIFF, let x = t.vipsOverJPEG {
                table.row(
                    "vips tiffsave --pyramid --compression jpeg --Q 95",
                    run(v) + String(format: ", %d KiB", (t.vipsJPEGTIFFBytes ?? 0) >> 10))
                table.row("  vips / fic (JPEG)", String(format: "%.2f×", x), "≥ 2", r.targetsMet["tiff_\(size)_2x_faster_than_vips_jpeg"])
            }
        }
        table.row("last byte → ready (file, fic tile)", String(format: "%.1f ms", r.pyramidAfterLastByteMs))
        table.row(
            "last byte → ready (20 MB/s paced stream)", String(format: "%.1f ms", r.pacedStreamAfterLastByteMs), "≤ 50 ms",
            r.targetsMet["paced_stream_last_byte_to_ready_le_50ms"])
        table.row("  whole paced stream", String(format: "%.2f s", r.pacedStreamSeconds))
        if let ms = r.streamedAfterLastByteMs, let seconds = r.streamedSeconds, let bytes = r.streamedBytes {
            table.row(
                "streamed over loopback HTTP at 20 MB/s: last byte → ready", String(format: "%.1f ms", ms), "≤ 50 ms",
                r.targetsMet["streamed_http_last_byte_to_ready_le_50ms"])
            table.row("  whole fic tile URL run", String(format: "%.2f s, %d MiB downloaded", seconds, bytes >> 20))
            if let peak = r.streamedPeakRSSBytes { table.row("  peak RSS", BenchKit.mebibytes(peak)) }
        }
        table.row("warm 256 KiB tile read (pread)", String(format: "%.1f µs", r.tileReadNs / 1000))
        table.row("memcpy 256 KiB from DRAM", String(format: "%.1f µs", r.memcpyNs / 1000))
        table.row("  pread / memcpy", String(format: "%.2f×", r.tileReadOverMemcpy))
        table.row("warm tile, mapped view copied out", String(format: "%.1f µs", r.mappedTileReadNs / 1000))
        table.row(
            "  mapped view / memcpy", String(format: "%.2f×", r.mappedTileReadOverMemcpy), "≤ 1.5", r.targetsMet["tile_read_le_1_5x_memcpy"]
        )
        for note in r.notes { table.line("  note: \(note)") }
        return table.lines
    }
}
