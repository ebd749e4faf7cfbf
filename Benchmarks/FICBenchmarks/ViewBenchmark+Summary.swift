import Foundation

/// `fic-bench view`: the benchmark's name, its run with the command line's context, and its table.
extension ViewBenchmark: Benchmark {
    /// `view`.
    public static let name = "view"

    /// What it measures, for the help.
    public static let abstract =
        "`fic view` in a 1280×800 window on Xvfb, frame times split into compose and present: the gallery flung through 10,000 cells (cache and conventional paths), launched twice on one cache (the second launch's misses, placeholder cells and decodes), an 18000×18000 photo zoomed from fit to 1:1 and panned."

    /// Runs it with the context's test data and work folder.
    public static func run(in context: BenchmarkContext) async throws -> ViewBenchmarkResult {
        try run(testdata: context.testdata, workDirectory: context.workDirectory, fic: context.executables.fic(), log: context.log)
    }

    /// Its figures, targets and verdicts.
    public static func summary(of r: ViewBenchmarkResult) -> [String] {
        var table = SummaryTable()
        table.line(
            "\n  \(r.windowWidth)×\(r.windowHeight) window on Xvfb; compose = the viewer's work, present = handing the frame to the X server;"
        )
        table.line("  CPU = the viewer thread's CPU time in compose (wall times far above it mean the machine was busy)")
        table.row("figure", "value", "target", nil)
        func frames(_ f: ViewBenchmarkResult.Frames) -> String {
            String(format: "p99 %.2f, max %.2f ms (CPU p99 %.2f)", f.composeP99Ms, f.composeMaxMs, f.composeCPUP99Ms)
        }
        table.row("gallery, cache path: compose", frames(r.galleryCache), "p99 ≤ 4 ms", r.targetsMet["gallery_cache_compose_p99_le_4ms"])
        table.row(
            "  compose over 8.3 ms", "\(r.galleryCache.framesComposeOver8_3Ms) of \(r.galleryCache.frames)", "none",
            r.targetsMet["gallery_cache_no_compose_over_8_3ms"])
        table.row("  CPU time of the slowest compose", String(format: "%.2f ms", r.galleryCache.composeCPUMaxMs))
        table.row(
            "  compose median / present median",
            String(format: "%.2f / %.2f ms", r.galleryCache.composeMedianMs, r.galleryCache.presentMedianMs))
        table.row("  cells shown without their image", "\(r.galleryCacheMisses)")
        func launch(_ l: ViewBenchmarkResult.Launch) -> String {
            "\(l.placeholderCells) placeholder cells, \(l.misses) misses, \(l.cacheDecodes) decodes"
        }
        table.row("gallery, first launch (empty cache)", launch(r.galleryFirstLaunch))
        table.row("  frames until loaded / compose", "\(r.galleryFirstLaunch.startupFrames) / " + frames(r.galleryFirstLaunch.cache))
        table.row(
            "gallery, second launch (same cache)", launch(r.gallerySecondLaunch), "0, 0, 0",
            r.targetsMet["gallery_second_launch_0_placeholder_cells_0_misses_0_decodes"])
        table.row("  frames until loaded / compose", "\(r.gallerySecondLaunch.startupFrames) / " + frames(r.gallerySecondLaunch.cache))
        table.row("gallery while ingesting \(r.galleryIngestingPhotos) camera photos: compose", frames(r.galleryWhileIngesting))
        table.row(
            "  compose over 8.3 ms", "\(r.galleryWhileIngesting.framesComposeOver8_3Ms) of \(r.galleryWhileIngesting.frames)", "none",
            r.targetsMet["gallery_while_ingesting_no_compose_over_8_3ms"])
        table.row("gallery, conventional path: compose", frames(r.galleryConventional))
        table.row("  compose over 8.3 ms", "\(r.galleryConventional.framesComposeOver8_3Ms) of \(r.galleryConventional.frames)")
        table.row(
            "  compose median / present median",
            String(format: "%.2f / %.2f ms", r.galleryConventional.composeMedianMs, r.galleryConventional.presentMedianMs))
        table.row(
            "photo \(r.photoSide)², whole run: compose", frames(r.photoAll), "p99 ≤ 8.3 ms", r.targetsMet["photo_compose_p99_le_8_3ms"])
        table.row("  zoom fit → 1:1 in steps: compose", frames(r.photoZoom))
        table.row("  zoom fit → 1:1 smoothly: compose", frames(r.photoSmoothZoom))
        table.row("  pan across at 1:1: compose", frames(r.photoPan))
        table.row("  present median", String(format: "%.2f ms", r.photoAll.presentMedianMs))
        table.row(
            "  first sharp frame after a zoom (max)", String(format: "%.1f ms", r.photoFirstSharpMaxMs), "≤ 100 ms",
            r.targetsMet["photo_first_sharp_after_zoom_le_100ms"])
        table.row("  peak RSS of the viewer", BenchKit.mebibytes(r.photoPeakRSSBytes), "≤ 150 MB", r.targetsMet["photo_peak_rss_le_150MB"])
        table.row("  frames with a coarser level showing", "\(r.photoFramesNotSharp) of \(r.photoAll.frames)")
        table.row("  tiles read", "\(r.photoTileReads)")
        if let first = r.remoteFirstLaunch, let second = r.remoteSecondLaunch {
            table.row("remote: Deep Zoom tree, nginx on loopback", "\(first.requests) requests")
            table.row(
                "  first sharp frame after a zoom (max)", String(format: "%.1f ms", r.remoteFirstSharpAfterZoomMs.max() ?? .nan),
                "≤ 100 ms",
                r.targetsMet["remote_photo_first_sharp_after_zoom_le_100ms"])
            table.row(
                "  again after a restart: tile requests, decodes",
                "\(second.tileFetches), \(second.tileDecodes) (\(second.requests) requests)", "0, 0",
                r.targetsMet["remote_photo_second_launch_0_tile_requests_0_decodes"])
        }
        if let tiff = r.remoteTIFF {
            table.row("remote: the pyramid's TIFF, by ranges from nginx", "")
            table.row(
                "  first screen: bytes / (tiles shown + header)",
                "\(tiff.firstScreenBytes) / (\(tiff.visibleTileBytes) + \(tiff.headerBytes))", "≤ 2×",
                r.targetsMet["remote_tiff_first_screen_le_2x_tiles_shown_and_header"])
            table.row(
                "  first sharp frame after a zoom (max)", String(format: "%.1f ms", tiff.firstSharpAfterZoomMs.max() ?? .nan), "≤ 100 ms",
                r.targetsMet["remote_tiff_first_sharp_after_zoom_le_100ms"])
            table.row(
                "  relaunch: tile requests, decodes",
                "\(tiff.relaunch.tileFetches), \(tiff.relaunch.tileDecodes) (\(tiff.relaunch.requests) requests)", "0, 0",
                r.targetsMet["remote_tiff_relaunch_0_tile_requests_0_decodes"])
        }
        for note in r.notes { table.line("  note: \(note)") }
        return table.lines
    }
}
