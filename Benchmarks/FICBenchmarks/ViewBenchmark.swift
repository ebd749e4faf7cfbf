import FICHarness
import Foundation
import Glibc
import TiledImage

/// Figures of ``ViewBenchmark``: frame times of `fic view` in a real window on Xvfb, split into
/// compose (the viewer's own work) and present (handing the frame to the X server).
public struct ViewBenchmarkResult: Sendable, Codable {
    /// Frame-time figures of one phase of a run, in milliseconds.
    public struct Frames: Sendable, Codable {
        /// Frames in the phase.
        public var frames: Int
        /// Median compose time.
        public var composeMedianMs: Double
        /// 99th percentile (nearest rank) of compose.
        public var composeP99Ms: Double
        /// Slowest compose.
        public var composeMaxMs: Double
        /// Median present time.
        public var presentMedianMs: Double
        /// 99th percentile of present.
        public var presentP99Ms: Double
        /// Frames whose compose took more than 8.3 ms (120 frames a second).
        public var framesComposeOver8_3Ms: Int
        /// Frames whose compose plus present took more than 16.7 ms (60 frames a second).
        public var framesOver16_7Ms: Int
        /// CPU time of the slowest compose: much less than its wall time when the viewer's
        /// thread was waiting for a core (others building on the same machine).
        public var composeCPUMaxMs: Double
        /// The 99th percentile of compose's CPU time: the viewer's own work, whatever else ran.
        public var composeCPUP99Ms: Double
    }

    /// One launch of the gallery on its kept cache.
    public struct Launch: Sendable, Codable {
        /// Cells that appeared without their image (each then showed a placeholder).
        public var misses: Int
        /// Cells that appeared as placeholders.
        public var placeholderCells: Int
        /// Source images the cache decoded.
        public var cacheDecodes: Int
        /// Frames from the window's first until nothing was left to load (`wait-idle`).
        public var startupFrames: Int
        /// Compose time of the flings through the grid on the cache path.
        public var cache: Frames
    }

    /// Window width, pixels.
    public var windowWidth: Int
    /// Window height, pixels.
    public var windowHeight: Int
    /// Gallery: cells in the grid.
    public var galleryCells: Int
    /// Gallery: how far the flings went (the last offset, px).
    public var galleryScrolledPixels: Int
    /// Gallery, cache path (cells from the image tables).
    public var galleryCache: Frames
    /// Gallery, conventional path (each new cell decodes its JPEG thumbnail).
    public var galleryConventional: Frames
    /// Cells that appeared without their image, on the cache path.
    public var galleryCacheMisses: Int
    /// The gallery's first launch on an empty cache: the photos ingested while it shows (the
    /// cache and conventional figures above are its own).
    public var galleryFirstLaunch: Launch
    /// The second launch on the same cache: every photo stored already.
    public var gallerySecondLaunch: Launch
    /// Camera-sized photos a third launch ingests into an empty cache while it is flung through.
    public var galleryIngestingPhotos: Int
    /// That launch's frames while the photos are decoded beside it (the frame path must not
    /// wait for the decoders, which run at a lower priority).
    public var galleryWhileIngesting: Frames
    /// Photo: the side of the square test image.
    public var photoSide: Int
    /// Photo: zooming from fit to 1:1 in steps of ×1.25, each followed by a pause.
    public var photoZoom: Frames
    /// Photo: zooming from fit to 1:1 smoothly, ×1.1 every frame.
    public var photoSmoothZoom: Frames
    /// Photo: panning across at 1:1.
    public var photoPan: Frames
    /// Photo: the whole run.
    public var photoAll: Frames
    /// Photo: from each zoom to the first frame with every visible tile at its level, ms.
    public var photoFirstSharpAfterZoomMs: [Double]
    /// Photo: the longest of those.
    public var photoFirstSharpMaxMs: Double
    /// Photo: frames that showed a coarser level somewhere.
    public var photoFramesNotSharp: Int
    /// Photo: tiles read.
    public var photoTileReads: Int
    /// Photo: the viewer's peak resident set (`VmHWM`), bytes.
    public var photoPeakRSSBytes: Int
    /// The same pyramid as a Deep Zoom tree served by nginx on loopback, shown by `fic view photo
    /// URL` with the same zoom steps: first sharp frame after each zoom, ms (empty without nginx).
    public var remoteFirstSharpAfterZoomMs: [Double]
    /// Requests (the descriptor's included), tiles fetched and tiles decoded by that first launch.
    public var remoteFirstLaunch: RemoteLaunch?
    /// A second launch on the same tiles cache, the same steps: what it fetched and decoded.
    public var remoteSecondLaunch: RemoteLaunch?
    /// The same pyramid as its one TIFF behind nginx, read by ranges (nil without nginx).
    public var remoteTIFF: RemoteTIFFFigures? = nil
    /// Target name → met.
    public var targetsMet: [String: Bool]
    /// How the figures were taken.
    public var notes: [String]
}

/// `fic view photo URL.tif` of the 18000² pyramid's TIFF behind nginx, read by ranges.
public struct RemoteTIFFFigures: Sendable, Codable {
    /// Bytes fetched to show the first screen (the fit view, every wanted tile in): the header and
    /// IFDs, the visible tiles, the coarsest level and the ring the scheduler prefetches.
    public var firstScreenBytes: Int
    /// Of them, the header and IFDs.
    public var headerBytes: Int
    /// The stored bytes of the tiles that screen shows.
    public var visibleTileBytes: Int
    /// First sharp frame after each zoom of the zoom steps, ms.
    public var firstSharpAfterZoomMs: [Double]
    /// A relaunch revisiting the same steps on the same cache.
    public var relaunch: RemoteLaunch
}

/// The network figures of a remote photo's launch.
public struct RemoteLaunch: Sendable, Codable {
    /// HTTP responses, the descriptor's included.
    public var requests: Int
    /// Tiles fetched.
    public var tileFetches: Int
    /// Tiles decoded.
    public var tileDecodes: Int
}

/// `fic view` in a real 1280 × 800 window on a virtual X server (`xvfb-run`), driven by scripts:
/// the gallery flung through 10,000 cells on the cache path and then on the conventional path,
/// launched twice on one cache (first on an empty one, then on what the first stored); an
/// 18000 × 18000 photo's pyramid zoomed from fit to 1:1 and panned across.
public enum ViewBenchmark {
    static let width = 1280, height = 800

    /// Runs the benchmark with the `fic` executable at `fic` (the viewer runs as a child process).
    public static func run(testdata: String, workDirectory: String, fic: String, log: (String) -> Void) throws -> ViewBenchmarkResult {
        guard let xvfbRun = Executables.find("xvfb-run") else {
            throw BenchmarkError("xvfb-run is needed to open windows (Debian: xvfb, xauth; scripts/install-deps installs them)")
        }
        let work = try BenchKit.makeFreshDirectory(workDirectory, "view-\(getpid())")
        defer { try? FileManager.default.removeItem(atPath: work) }
        var notes = [
            "Each figure comes from the viewer's own --stats (one run each, scripted with deterministic timing: every frame advances the clock by 1/60 s). Compose is the viewer's work per frame (input, lookups, drawing into the window's memory); present is SDL_UpdateWindowSurface into Xvfb (shared-memory images, no GL)."
        ]

        // Gallery: the test photos repeated over 10,000 cells (150 × 150 px thumbnails, 8 columns).
        let cells = 10_000
        let photos = FileManager.default.fileExists(atPath: testdata + "/photos") ? testdata + "/photos" : testdata
        let flings = 45  // each "fling 12000, wait 30" moves ~4,460 px: 45 of them cross the grid's ~197,000 px
        let flingScript = Array(repeating: "fling 12000\nwait 30", count: flings).joined(separator: "\n")
        let galleryScript = """
            phase startup
            wait-idle 20000
            phase cache
            \(flingScript)
            wait-idle
            phase idle
            toggle-path
            wait-idle 20000
            scroll-to 0
            wait 1
            phase conventional
            \(flingScript)
            wait-idle
            """
        // Both launches keep the cache in the work folder, not in the person's own ~/.cache.
        let galleryArguments = ["gallery", "--photos", photos, "--cells", "\(cells)", "--cache", work + "/gallery-cache"]
        log(
            "gallery, first launch: \(cells) cells of the photos in \(photos), ingested while it shows, flung through on the cache path, then on the conventional path …"
        )
        let gallery = try view(xvfbRun, fic, galleryArguments, script: galleryScript, work: work, name: "gallery")
        let galleryPhases = gallery["phases"] as? [String: Any] ?? [:]
        let cache = frames(galleryPhases["cache"]), conventional = frames(galleryPhases["conventional"])
        let byPhase = gallery["by_phase"] as? [String: Any] ?? [:]
        let cacheMisses = (byPhase["cache"] as? [String: Any])?["misses"] as? Int ?? -1
        log(
            "  cache path: compose p99 \(BenchKit.fixed(cache.composeP99Ms, 2)) ms, max \(BenchKit.fixed(cache.composeMaxMs, 2)) ms, present median \(BenchKit.fixed(cache.presentMedianMs, 2)) ms over \(cache.frames) frames"
        )
        log(
            "  conventional path: compose p99 \(BenchKit.fixed(conventional.composeP99Ms, 2)) ms, max \(BenchKit.fixed(conventional.composeMaxMs, 2)) ms over \(conventional.frames) frames"
        )
        let firstLaunch = launch(gallery)
        log("gallery, second launch on the same cache: flung through on the cache path …")
        let secondScript = """
            phase startup
            wait-idle 20000
            phase cache
            \(flingScript)
            wait-idle
            """
        let secondLaunch = launch(try view(xvfbRun, fic, galleryArguments, script: secondScript, work: work, name: "gallery-second"))
        for (name, l) in [("first", firstLaunch), ("second", secondLaunch)] {
            log(
                "  \(name) launch: \(l.misses) misses, \(l.placeholderCells) placeholder cells, \(l.cacheDecodes) decodes, \(l.startupFrames) frames until loaded, cache path compose p99 \(BenchKit.fixed(l.cache.composeP99Ms, 2)) ms"
            )
        }

        // Gallery while it ingests: camera-sized photos (hard links to a few distinct ones), every
        // one decoded beside the frame thread while the grid is flung through.
        let ingestingPhotos = 80
        let large = try LargePhotoSet.originals(
            .jpegBaseline, distinct: 3, testdata: testdata, folder: workDirectory + "/large-photos", log: log)
        let largeFolder = work + "/ingesting-photos"
        _ = try LargePhotoSet.linkFolder(largeFolder, count: ingestingPhotos, originals: large)
        let ingestingScript = "phase ingesting\n\(flingScript)\nwait-idle 120000"
        log(
            "gallery while ingesting \(ingestingPhotos) photos of \(LargePhotoSet.Kind.jpegBaseline.size.width)×\(LargePhotoSet.Kind.jpegBaseline.size.height), flung through as they are decoded …"
        )
        let ingesting = try view(
            xvfbRun, fic, ["gallery", "--photos", largeFolder, "--cells", "2000", "--cache", work + "/ingesting-cache"],
            script: ingestingScript, work: work, name: "gallery-ingesting")
        let whileIngesting = frames((ingesting["phases"] as? [String: Any] ?? [:])["ingesting"])
        log(
            "  compose p99 \(BenchKit.fixed(whileIngesting.composeP99Ms, 2)) ms, max \(BenchKit.fixed(whileIngesting.composeMaxMs, 2)) ms (CPU max \(BenchKit.fixed(whileIngesting.composeCPUMaxMs, 2)) ms), \(whileIngesting.framesComposeOver8_3Ms) of \(whileIngesting.frames) frames over 8.3 ms"
        )

        // Photo: the 18000² JPEG of `fic-bench tiles` (made once, kept in the work directory).
        let side = TilesBenchmark.side
        let baseline = workDirectory + "/tiles-\(side)-baseline.jpg"
        let progressive = workDirectory + "/tiles-\(side)-progressive.jpg"
        if !FileManager.default.fileExists(atPath: baseline) || !FileManager.default.fileExists(atPath: progressive) {
            try TilesBenchmark.makeJPEGs(
                photo: testdata + "/hubble.jpg", fallback: testdata + "/photos/hubble.jpg", baseline: baseline, progressive: progressive,
                workDirectory: workDirectory, log: log)
        }
        log("photo: tiling the \(side)×\(side) JPEG with fic tile …")
        let pyramid = work + "/pyramid.tif"
        try BenchmarkProcess.run(fic, ["tile", baseline, "--out", pyramid, "--compression", "none"])
        var steps = ["phase startup", "wait-idle 3000", "phase zoom"]
        // From fit (800 / 18000) to 1:1 in steps of ×1.25 around the centre, waiting for sharpness.
        var scale = Double(height) / Double(side)
        while scale * 1.25 < 1 {
            steps += ["zoom 1.25", "wait-idle 600"]
            scale *= 1.25
        }
        steps += ["zoom-to 1", "wait-idle 600", "fit", "wait-idle 600", "phase smooth-zoom"]
        // The same, smoothly: ×1.1 every frame, as a person's pinch or wheel spin.
        scale = Double(height) / Double(side)
        while scale * 1.1 < 1 {
            steps += ["zoom 1.1", "wait 1"]
            scale *= 1.1
        }
        steps += ["zoom-to 1", "wait-idle 600", "phase pan"]
        // Across at 1:1, 20 px a frame (1200 px/s at 60 frames a second): left, down, then right.
        for (dx, dy, count) in [(-20, 0, 300), (0, 20, 150), (20, 0, 600)] {
            for _ in 0..<count { steps += ["pan \(dx) \(dy)", "wait 1"] }
        }
        steps.append("wait-idle 600")
        log("photo: zoom from fit to 1:1, then pan across, paced at 60 frames a second …")
        // Its tiles are decoded into a table of the benchmark's own, empty at the start.
        try? FileManager.default.removeItem(atPath: work + "/photo-cache")
        let photo = try view(
            xvfbRun, fic, ["photo", pyramid, "--cache", work + "/photo-cache", "--paced"], script: steps.joined(separator: "\n"),
            work: work,
            name: "photo")
        let photoPhases = photo["phases"] as? [String: Any] ?? [:]
        let zoom = frames(photoPhases["zoom"]), smooth = frames(photoPhases["smooth-zoom"]), pan = frames(photoPhases["pan"]),
            all = frames(photo)
        let sharp = photo["first_sharp_after_zoom_ms"] as? [Double] ?? []
        let peak = photo["peak_rss_bytes"] as? Int ?? 0
        log(
            "  compose p99 \(BenchKit.fixed(all.composeP99Ms, 2)) ms (zoom \(BenchKit.fixed(zoom.composeP99Ms, 2)), pan \(BenchKit.fixed(pan.composeP99Ms, 2))), first sharp after a zoom ≤ \(BenchKit.fixed(sharp.max() ?? .nan, 1)) ms, peak RSS \(BenchKit.mebibytes(peak))"
        )

        // The same pyramid from the network: a Deep Zoom tree behind nginx on loopback, shown with
        // the zoom steps above (its tiles kept in a cache folder of the benchmark's own), twice.
        var remoteSharp: [Double] = []
        var remoteFirst: RemoteLaunch?, remoteSecond: RemoteLaunch?
        do {
            let www = work + "/remote-www"
            try? FileManager.default.removeItem(atPath: www)
            log("remote photo: the pyramid as a Deep Zoom tree behind nginx, shown by fic view photo URL, twice …")
            _ = try StaticTileExport.write(try TilePyramid.open(at: pyramid), layout: .dzi, into: www)
            let nginx = try LocalNginx(root: www, prefix: work + "/remote-nginx")
            defer { nginx.stop() }
            let url = "http://127.0.0.1:\(nginx.port)/image.dzi"
            let zoomSteps = steps.prefix { $0 != "phase smooth-zoom" }.joined(separator: "\n")
            try? FileManager.default.removeItem(atPath: work + "/remote-cache")
            func launch(_ name: String) throws -> ([String: Any], RemoteLaunch) {
                let stats = try view(
                    xvfbRun, fic, ["photo", url, "--cache", work + "/remote-cache", "--paced"], script: zoomSteps, work: work, name: name)
                return (
                    stats,
                    RemoteLaunch(
                        requests: stats["network_requests"] as? Int ?? -1, tileFetches: stats["tile_fetches"] as? Int ?? -1,
                        tileDecodes: stats["tile_decodes"] as? Int ?? -1)
                )
            }
            let (first, firstLaunch) = try launch("remote-photo")
            remoteSharp = first["first_sharp_after_zoom_ms"] as? [Double] ?? []
            remoteFirst = firstLaunch
            remoteSecond = try launch("remote-photo-second").1
            log(
                "  first sharp after a zoom ≤ \(BenchKit.fixed(remoteSharp.max() ?? .nan, 1)) ms; first launch \(firstLaunch.requests) requests, \(firstLaunch.tileDecodes) decodes; second launch \(remoteSecond!.requests) requests, \(remoteSecond!.tileFetches) fetches, \(remoteSecond!.tileDecodes) decodes"
            )
        } catch let error as HarnessError {
            notes.append("no remote photo figures: \(error)")
        }

        // The pyramid's one TIFF behind nginx (a hard link: no copy of its gigabytes), read by
        // ranges: the first screen on an empty cache, the zoom steps, then a relaunch of them.
        var remoteTIFF: RemoteTIFFFigures?
        do {
            let www = work + "/tiff-www"
            try? FileManager.default.removeItem(atPath: www)
            try FileManager.default.createDirectory(atPath: www, withIntermediateDirectories: true)
            try FileManager.default.linkItem(atPath: pyramid, toPath: www + "/image.tif")
            log("remote TIFF: the pyramid's TIFF behind nginx, shown by fic view photo URL.tif (by ranges) …")
            let nginx = try LocalNginx(root: www, prefix: work + "/tiff-nginx")
            defer { nginx.stop() }
            let url = "http://127.0.0.1:\(nginx.port)/image.tif"
            for folder in ["/tiff-cache-screen", "/tiff-cache"] { try? FileManager.default.removeItem(atPath: work + folder) }
            let screen = try view(
                xvfbRun, fic, ["photo", url, "--cache", work + "/tiff-cache-screen", "--paced"], script: "wait-idle 3000", work: work,
                name: "tiff-screen")
            let zoomSteps = steps.prefix { $0 != "phase smooth-zoom" }.joined(separator: "\n")
            let zoomed = try view(
                xvfbRun, fic, ["photo", url, "--cache", work + "/tiff-cache", "--paced"], script: zoomSteps, work: work, name: "tiff-zoom")
            let again = try view(
                xvfbRun, fic, ["photo", url, "--cache", work + "/tiff-cache", "--paced"], script: zoomSteps, work: work, name: "tiff-again")
            let figures = RemoteTIFFFigures(
                firstScreenBytes: screen["network_bytes"] as? Int ?? -1, headerBytes: screen["opening_bytes"] as? Int ?? -1,
                visibleTileBytes: screen["visible_stored_bytes"] as? Int ?? -1,
                firstSharpAfterZoomMs: zoomed["first_sharp_after_zoom_ms"] as? [Double] ?? [],
                relaunch: RemoteLaunch(
                    requests: again["network_requests"] as? Int ?? -1, tileFetches: again["tile_fetches"] as? Int ?? -1,
                    tileDecodes: again["tile_decodes"] as? Int ?? -1))
            remoteTIFF = figures
            log(
                "  first screen \(figures.firstScreenBytes) bytes (header \(figures.headerBytes), the tiles shown \(figures.visibleTileBytes)); first sharp after a zoom ≤ \(BenchKit.fixed(figures.firstSharpAfterZoomMs.max() ?? .nan, 1)) ms; relaunch \(figures.relaunch.requests) requests, \(figures.relaunch.tileFetches) fetches, \(figures.relaunch.tileDecodes) decodes"
            )
        } catch let error as HarnessError {
            notes.append("no remote TIFF figures: \(error)")
        }

        let met: [String: Bool] = [
            "gallery_cache_compose_p99_le_4ms": cache.composeP99Ms <= 4,
            "gallery_cache_no_compose_over_8_3ms": cache.framesComposeOver8_3Ms == 0,
            "gallery_while_ingesting_no_compose_over_8_3ms": whileIngesting.frames > 0 && whileIngesting.framesComposeOver8_3Ms == 0,
            "photo_compose_p99_le_8_3ms": all.composeP99Ms <= 8.3,
            "photo_peak_rss_le_150MB": peak <= 150_000_000,
            "photo_first_sharp_after_zoom_le_100ms": !sharp.isEmpty && (sharp.max() ?? .infinity) <= 100,
            "remote_photo_first_sharp_after_zoom_le_100ms": !remoteSharp.isEmpty && (remoteSharp.max() ?? .infinity) <= 100,
            "remote_tiff_first_screen_le_2x_tiles_shown_and_header": remoteTIFF.map {
                $0.visibleTileBytes > 0 && $0.firstScreenBytes <= 2 * ($0.visibleTileBytes + $0.headerBytes)
            } ?? false,
            "remote_tiff_first_sharp_after_zoom_le_100ms": remoteTIFF.map {
                !$0.firstSharpAfterZoomMs.isEmpty && ($0.firstSharpAfterZoomMs.max() ?? .infinity) <= 100
            } ?? false,
            "remote_tiff_relaunch_0_tile_requests_0_decodes": remoteTIFF.map {
                $0.relaunch.tileFetches == 0 && $0.relaunch.tileDecodes == 0
            } ?? false,
            "remote_photo_second_launch_0_tile_requests_0_decodes": remoteSecond.map {
                $0.tileFetches == 0 && $0.tileDecodes == 0 && $0.requests <= 1
            } ?? false,
            "gallery_second_launch_0_placeholder_cells_0_misses_0_decodes":
                secondLaunch.placeholderCells == 0 && secondLaunch.misses == 0 && secondLaunch.cacheDecodes == 0
        ]
        notes.append(
            "The gallery's first launch ingests the photos into an empty cache (in the benchmark's work folder, --cache) in the background while the window shows; the cache phase starts when that and the conventional path's JPEG thumbnails (made from the cache's images) are done. The conventional phase decodes each new cell's 150 px JPEG on the frame path, as the original demo's comparison did. The second launch opens the same cache: its photos are known from their remembered versions before the first frame."
        )
        notes.append(
            "The photo's pyramid is built by `fic tile` beforehand (its tiles are not in the page cache: it writes with O_DIRECT), so the first reads come from the disk. Peak RSS is the viewer's VmHWM (the window's framebuffer, the resident tiles, the libraries)."
        )
        return ViewBenchmarkResult(
            windowWidth: width, windowHeight: height, galleryCells: cells, galleryScrolledPixels: gallery["scroll_offset"] as? Int ?? 0,
            galleryCache: cache, galleryConventional: conventional, galleryCacheMisses: cacheMisses,
            galleryFirstLaunch: firstLaunch, gallerySecondLaunch: secondLaunch,
            galleryIngestingPhotos: ingestingPhotos, galleryWhileIngesting: whileIngesting,
            photoSide: side, photoZoom: zoom, photoSmoothZoom: smooth, photoPan: pan, photoAll: all, photoFirstSharpAfterZoomMs: sharp,
            photoFirstSharpMaxMs: sharp.max() ?? .nan, photoFramesNotSharp: photo["frames_not_sharp"] as? Int ?? 0,
            photoTileReads: photo["tile_fetches"] as? Int ?? 0, photoPeakRSSBytes: peak, remoteFirstSharpAfterZoomMs: remoteSharp,
            remoteFirstLaunch: remoteFirst, remoteSecondLaunch: remoteSecond, remoteTIFF: remoteTIFF, targetsMet: met, notes: notes)
    }

    /// Runs `fic view ARGUMENTS` in a 1280 × 800 window on a new virtual X server with `script`;
    /// returns its `--stats`.
    static func view(_ xvfbRun: String, _ fic: String, _ arguments: [String], script: String, work: String, name: String) throws -> [String:
        Any]
    {
        let scriptPath = work + "/\(name).script", statsPath = work + "/\(name).json"
        try script.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        try BenchmarkProcess.run(
            xvfbRun,
            ["-a", "-s", "-screen 0 \(width)x\(height)x24 -nolisten tcp", fic, "view"] + arguments
                + ["--size", "\(width)x\(height)", "--script", scriptPath, "--stats", statsPath])
        guard let stats = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: statsPath))) as? [String: Any] else {
            throw BenchmarkError("fic view \(name) wrote no statistics")
        }
        return stats
    }

    /// The launch figures of a gallery run's `--stats`.
    static func launch(_ stats: [String: Any]) -> ViewBenchmarkResult.Launch {
        let phases = stats["phases"] as? [String: Any] ?? [:]
        return ViewBenchmarkResult.Launch(
            misses: stats["misses"] as? Int ?? -1, placeholderCells: stats["placeholder_cells"] as? Int ?? -1,
            cacheDecodes: stats["cache_decodes"] as? Int ?? -1, startupFrames: frames(phases["startup"]).frames,
            cache: frames(phases["cache"]))
    }

    /// The frame figures of a `--stats` object (or of one of its phases).
    static func frames(_ object: Any?) -> ViewBenchmarkResult.Frames {
        let o = object as? [String: Any] ?? [:]
        func d(_ key: String) -> Double { o[key] as? Double ?? .nan }
        return ViewBenchmarkResult.Frames(
            frames: o["frames"] as? Int ?? 0, composeMedianMs: d("compose_median_ms"), composeP99Ms: d("compose_p99_ms"),
            composeMaxMs: d("compose_max_ms"), presentMedianMs: d("present_median_ms"), presentP99Ms: d("present_p99_ms"),
            framesComposeOver8_3Ms: o["frames_compose_over_8_3_ms"] as? Int ?? -1, framesOver16_7Ms: o["frames_over_16_7_ms"] as? Int ?? -1,
            composeCPUMaxMs: d("compose_cpu_max_ms"), composeCPUP99Ms: d("compose_cpu_p99_ms"))
    }
}
