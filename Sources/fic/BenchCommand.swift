#if Tool
import FICDemo
import ArgumentParser
import FICBenchmarks
import Foundation

/// `fic bench`: runs the benchmarks and prints their figures, targets and whether each was met.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Run the benchmarks (build with -c release: debug figures are meaningless).",
        discussion: """
            retrieval: cachedImage(for:format:) against an in-memory dictionary and against decoding \
            a small JPEG per image, and insert cost while a table fills. decode: the decoder. \
            ingest: photos into a two-format family against vipsthumbnail (run first by "all", so \
            that its memory figures are its own). formats: HEIC, AVIF, JPEG XL, TIFF and GIF photos \
            ingested against vipsthumbnail, what a ProPhoto profile costs an ingest and an 18000² \
            pyramid, a 24000×16000 tiled BigTIFF into a pyramid against vips, and memory over 500 \
            HEICs. tiles: tile pyramids of an 18000×18000 JPEG and its \
            progressive twin against djpeg and libvips. loader: images on screen against a flood of \
            prefetches through a 4 MB/s link to nginx, lanes against one FIFO queue, and \
            fetch-to-disk against curl --parallel (needs nginx, curl, cjpeg). With --json the last \
            line of the output is one JSON object with a member per benchmark run. view: `fic view` \
            in a 1280×800 window on Xvfb, frame times split into compose and present: the gallery \
            flung through 10,000 cells (cache and conventional paths), launched twice on one cache \
            (the second launch's misses, placeholder cells and decodes), an 18000×18000 photo \
            zoomed from fit to 1:1 and panned. color: conversion to sRGB of a 24-megapixel photo, the \
            matrix-shaper fast path against LittleCMS, ms per megapixel. serve: `fic serve` under wrk \
            (64 connections, random tiles of an 18000² pyramid) against nginx serving vips dzsave's \
            static tiles; Deep Zoom and IIIF URLs, warm and with every tile encoded on request. animation: a \
            1920×1080 animated WebP of 300 frames ingested into a 480×270 format (peak RSS, a second \
            ingest) against Pillow's frame loop, the frame lookup of a player, and 40 animated cells \
            playing in the gallery on Xvfb. processes: one cache used by several processes at once: \
            4 processes each looking up a screenful of images every 16 ms while another ingests \
            photos (lookup p50 and p99 against one reader alone, the ingest rate against the ingest \
            alone), the time from a store in one process to a hit in another, and from a writer \
            killed holding the table's writer lock to another's next store. The baselines come with \
            `scripts/install-deps --bench`.
            """)

    /// The benchmarks that can be run.
    enum Which: String, ExpressibleByArgument, CaseIterable {
        case retrieval, decode, ingest, formats, tiles, loader, view, color, serve, animation, processes, all
    }

    @Argument(help: "The benchmark to run: retrieval, decode, ingest, formats, tiles, loader, view, color, serve, animation, processes or all.")
    var benchmark: Which = .all

    @Flag(help: "Print the results as one JSON object on the last line.")
    var json = false

    @Option(help: "The test-data folder (default: ../shared/testdata from the current directory or the executable, else the bundled sample photos).")
    var testdata: String?

    @Option(help: "A folder for temporary files (default: the system's temporary folder).")
    var workDirectory: String?

    @Option(help: ArgumentHelp("ingest: a folder of photos (JPEG, PNG, WebP, HEIC, AVIF, JPEG XL, GIF, TIFF, found recursively by content) instead of generated large ones.", valueName: "dir"))
    var photos: String?

    @Option(help: ArgumentHelp("ingest: files per kind of input (default 48).", valueName: "n"))
    var count: Int?

    @Option(help: ArgumentHelp("ingest: JPEG files of the memory run (default 240; 0 skips it).", valueName: "n"))
    var memoryRunCount: Int?

    @Option(help: ArgumentHelp("ingest: fic ingest --jobs (default: one per core).", valueName: "n"))
    var jobs: Int?

    /// The JSON printed with `--json`: only the benchmarks that ran are present.
    struct Report: Encodable {
        var retrieval: RetrievalBenchmarkResult?
        var decode: DecodeBenchmarkResult?
        var ingest: IngestBenchmarkResult?
        var formats: FormatsBenchmarkResult?
        var tiles: TilesBenchmarkResult?
        var loader: LoaderBenchmarkResult?
        var view: ViewBenchmarkResult?
        var color: ColorBenchmarkResult?
        var serve: ServeBenchmarkResult?
        var animation: AnimationBenchmarkResult?
        var processes: ProcessesBenchmarkResult?
    }

    func run() async throws {
        #if DEBUG
        print("warning: this is a debug build, so these figures are meaningless; run `swift run -c release fic bench`")
        #endif
        let testdata = try resolveTestdata()
        let work = workDirectory ?? FileManager.default.temporaryDirectory.appendingPathComponent("fic-bench").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        print("test data: \(testdata)")
        let log: (String) -> Void = { print($0) }
        var report = Report()

        var failures: [String] = []
        func attempt(_ name: String, _ body: () throws -> Void) {
            guard benchmark == .all || benchmark.rawValue == name else { return }
            print("\n== \(name) ==")
            do {
                try body()
            } catch {
                print("error: the \(name) benchmark failed: \(error)")
                failures.append(name)
            }
        }
        // Ingest runs first so that its memory figures do not include what the others leave behind.
        attempt("ingest") {
            var options = IngestBenchmark.Options()
            options.photos = photos
            if let count { options.count = max(1, count) }
            if let memoryRunCount { options.memoryRunCount = max(0, memoryRunCount) }
            options.jobs = jobs
            let fic = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
            let r = try IngestBenchmark.run(fic: fic, testdata: testdata, workDirectory: work, options: options, log: log)
            printIngest(r)
            report.ingest = r
        }
        attempt("formats") {
            let fic = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
            var options = IngestBenchmark.Options()
            if let count { options.count = count }
            options.jobs = jobs
            let r = try FormatsBenchmark.run(fic: fic, testdata: testdata, workDirectory: work, options: options, log: log)
            printFormats(r)
            report.formats = r
        }
        attempt("retrieval") {
            let fic = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
            let r = try RetrievalBenchmark.run(testdata: testdata, workDirectory: work, fic: fic, log: log)
            printRetrieval(r)
            report.retrieval = r
        }
        attempt("decode") {
            let r = try DecodeBenchmark.run(testdata: testdata, workDirectory: work, log: log)
            printDecode(r)
            report.decode = r
        }
        attempt("color") {
            let r = try ColorBenchmark.run(testdata: testdata, log: log)
            print(String(format: "\n  memcpy of the BGRX buffer: %.2f ms/MP", r.memcpyMillisecondsPerMegapixel))
            report.color = r
        }
        attempt("serve") {
            let fic = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
            let r = try ServeBenchmark.run(testdata: testdata, workDirectory: work, fic: fic, log: log)
            printServe(r)
            report.serve = r
        }
        attempt("animation") {
            let fic = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
            let r = try AnimationBenchmark.run(testdata: testdata, workDirectory: work, fic: fic, log: log)
            printAnimation(r)
            report.animation = r
        }
        attempt("processes") {
            let fic = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
            let r = try ProcessesBenchmark.run(fic: fic, testdata: testdata, workDirectory: work, log: log)
            printProcesses(r)
            report.processes = r
        }
        attempt("tiles") {
            let fic = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
            let r = try TilesBenchmark.run(testdata: testdata, workDirectory: work, fic: fic, log: log)
            printTiles(r)
            report.tiles = r
        }
        if benchmark == .all || benchmark == .loader {
            print("\n== loader ==")
            do {
                let r = try await LoaderBenchmark.run(testdata: testdata, workDirectory: work, log: log)
                printLoader(r)
                report.loader = r
            } catch {
                print("error: the loader benchmark failed: \(error)")
                failures.append("loader")
            }
        }

        attempt("view") {
            let fic = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
            let r = try ViewBenchmark.run(testdata: testdata, workDirectory: work, fic: fic, log: log)
            printView(r)
            report.view = r
        }

        #if DEBUG
        print("\nwarning: debug build; run `swift run -c release fic bench` for meaningful figures")
        #endif
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        }
        if !failures.isEmpty { throw ExitCode.failure }
    }

    // MARK: Test data

    /// `--testdata`, else `../shared/testdata` relative to the current directory or to the
    /// executable (or any folder above it), else the sample photos bundled with the tool.
    private func resolveTestdata() throws -> String {
        let fm = FileManager.default
        if let testdata {
            guard fm.fileExists(atPath: testdata) else { throw ValidationError("no such folder: \(testdata)") }
            return testdata
        }
        var starts = [fm.currentDirectoryPath]
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        starts.append(executable.path)
        for start in starts {
            var dir = URL(fileURLWithPath: start)
            while true {
                for candidate in ["../shared/testdata", "shared/testdata"] {
                    let url = dir.appendingPathComponent(candidate).standardizedFileURL
                    if fm.fileExists(atPath: url.appendingPathComponent("photos").path) { return url.path }
                }
                let parent = dir.deletingLastPathComponent()
                if parent.path == dir.path { break }
                dir = parent
            }
        }
        if let bundled = try? DemoPhotos.root(of: nil) {
            return bundled
        }
        throw ValidationError("no test data found; pass --testdata DIR")
    }

    // MARK: Tables

    private func row(_ figure: String, _ value: String, _ target: String = "", _ met: Bool? = nil) {
        let verdict = met.map { $0 ? "yes" : "NO" } ?? ""
        print("  " + pad(figure, 44) + pad(value, 16) + pad(target, 14) + verdict)
    }

    private func pad(_ s: String, _ width: Int) -> String {
        s.count >= width ? s + " " : s + String(repeating: " ", count: width - s.count)
    }

    private func ns(_ value: Double) -> String {
        value >= 100_000 ? String(format: "%.1f µs", value / 1000) : String(format: "%.1f ns", value)
    }

    private func printRetrieval(_ r: RetrievalBenchmarkResult) {
        print("\n  \(r.entities) entities, \(r.pixelWidth)×\(r.pixelHeight) px BGRA; medians of several runs")
        row("figure", "value", "target", nil)
        row("(a) lookup: cachedImage + release", ns(r.lookupNs), "≤ 500 ns", r.targetsMet["lookup_le_500ns"])
        row("  a shared slot's hold + release", ns(r.sharedHoldReleaseNs))
        row("(b) lookup + read every pixel", ns(r.readNs))
        row("(c) [String: [UInt8]] lookup + read", ns(r.inMemoryReadNs))
        if let c = r.conventionalNs {
            row("(d) conventional: read + decode JPEG + read", ns(c))
        } else {
            row("(d) conventional", "skipped")
        }
        row("read / in-memory", String(format: "%.2f×", r.readOverInMemory), "≤ 1.5", r.targetsMet["read_over_in_memory_le_1_5"])
        if let c = r.conventionalOverLookup {
            row("conventional / retrieval (lookup)", String(format: "%.0f×", c), "≥ 100", r.targetsMet["conventional_over_lookup_ge_100"])
        }
        if let ratio = r.conventionalOverRead {
            row("conventional / (retrieval + read every pixel)", String(format: "%.0f×", ratio), "≥ 100", r.targetsMet["conventional_over_read_ge_100"])
        }
        if let c = r.conventionalOverInMemoryRead {
            row("  ceiling: conventional / in-memory read", String(format: "%.0f×", c))
            print("  note: reading 160 KB of pixels is bound by memory bandwidth: even a dictionary of bitmaps")
            print("        in memory is only \(String(format: "%.0f", c))× faster than decoding, so no cache can reach 100× with the read.")
        }
        print("  (e) filling a table, per bucket of \(r.insertBucketSize) inserts:")
        print("      µs/insert:    " + r.insertBucketNs.map { String(format: "%7.1f", $0 / 1000) }.joined(separator: " "))
        print("      in draw:      " + r.insertBucketDrawNs.map { String(format: "%7.1f", $0 / 1000) }.joined(separator: " "))
        print("      engine median:" + r.insertBucketEngineNs.map { String(format: "%7.1f", $0 / 1000) }.joined(separator: " "))
        print("      bytes/insert: " + r.insertBucketBytes.map { String(format: "%7.0f", $0) }.joined(separator: " "))
        row("insert time max/min (drawing into new pages)", String(format: "%.2f", r.insertTimeMaxOverMin))
        row("engine (median, outside draw) max/min", String(format: "%.2f", r.insertEngineTimeMaxOverMin), "≤ 1.5", r.targetsMet["insert_engine_time_constant"])
        row("bytes per insert max/min", String(format: "%.3f", r.insertBytesMaxOverMin), "≤ 1.01", r.targetsMet["insert_bytes_constant"])
        if let f = r.firstLookup {
            print("  (f) first lookup of each of \(f.images) images (\(f.side)×\(f.side) BGRA) by a new process (mean; median of \(f.afterStopRuns.count) processes):")
            row("  after the previous process closed the cache", ns(f.afterCleanCloseNs) + String(format: " (open %.1f ms)", f.openAfterCleanCloseMs))
            row("  after it stopped without close (same boot)", ns(f.afterStopNs) + String(format: " (open %.1f ms)", f.openAfterStopMs))
            row("  after a simulated restart (every entry checked)", ns(f.afterRestartNs) + String(format: " (open %.1f ms)", f.openAfterRestartMs))
            row("  warm lookup, for comparison", ns(r.lookupNs))
            row("  after a stop / after a clean close", String(format: "%.2f×", f.stopOverCleanClose), "≤ 1.2", r.targetsMet["first_lookup_after_stop_le_1_2x_clean_close"])
        }
        for note in r.notes { print("  note: \(note)") }
    }

    private func printFormats(_ r: FormatsBenchmarkResult) {
        print("")
        row("figure", "value", "target", nil)
        for f in r.ingest {
            row("\(f.kind): fic ingest", String(format: "%.1f photos/s, %@ peak", f.ficPhotosPerSecond, mib(f.ficPeakRSSBytes)))
            if let v = f.vipsPhotosPerSecond, let ratio = f.ficOverVips {
                row("  vipsthumbnail", String(format: "%.1f photos/s", v))
                row("  fic / vipsthumbnail", String(format: "%.2f×", ratio), "≥ 2", ratio >= 2)
            }
        }
        if let t = r.taggedIngest {
            row("JPEG ingest, ProPhoto / untagged", String(format: "%.2f s / %.2f s = %.2f×", t.taggedSeconds, t.untaggedSeconds, t.ratio), "≤ 1.1", r.targetsMet["tagged_ingest_le_1_1"])
        }
        if let t = r.taggedPyramid {
            row("18000² pyramid, ProPhoto / untagged", String(format: "%.2f s / %.2f s = %.2f×", t.taggedSeconds, t.untaggedSeconds, t.ratio), "≤ 1.3", r.targetsMet["tagged_pyramid_le_1_3"])
        }
        if let b = r.bigTIFF {
            row("tiled BigTIFF \(b.width)×\(b.height) → pyramid", String(format: "%.2f s, %@", b.ficSeconds, mib(b.ficPeakRSSBytes)), "≤ 100 MB", r.targetsMet["bigtiff_peak_le_100mb"])
            if let v = b.vipsSeconds, let rss = b.vipsPeakRSSBytes {
                row("  vips tiffsave --tile --pyramid", String(format: "%.2f s, %@", v, mib(rss)), "slower", r.targetsMet["bigtiff_faster_than_vips"])
            }
        }
        if let many = r.heicManyPeakRSSBytes, let few = r.heicFewPeakRSSBytes, let n = r.heicManyFiles {
            row("ingest of \(n) HEICs: peak RSS", "\(mib(many)) (few files: \(mib(few)))", "< 150 MB, flat", r.targetsMet["heic_memory_flat_lt_150mb"])
        }
        for note in r.notes { print("  note: \(note)") }
    }

    private func printDecode(_ r: DecodeBenchmarkResult) {
        print("\n  \(r.width)×\(r.height) px baseline JPEG, \(r.fileBytes / 1024) KiB; best of \(r.runs) runs")
        row("figure", "value", "target", nil)
        row("full-size decode", String(format: "%.1f MP/s", r.fullDecodeMegapixelsPerSecond))
        row("DCT scale 1/2", String(format: "%.1f MP/s", r.halfScaleMegapixelsPerSecond))
        row("DCT scale 1/4", String(format: "%.1f MP/s", r.quarterScaleMegapixelsPerSecond))
        row("DCT scale 1/8", String(format: "%.1f MP/s", r.eighthScaleMegapixelsPerSecond))
        if let djpeg = r.djpegMegapixelsPerSecond, let ratio = r.ratioToDjpeg {
            row("djpeg -dct int (whole process)", String(format: "%.1f MP/s", djpeg))
            row("ours / djpeg", String(format: "%.2f", ratio), "≥ 0.90", ratio >= 0.9)
        } else {
            row("djpeg", "skipped")
        }
        for t in r.thumbnails ?? [] {
            print("  \(t.kind) \(t.width)×\(t.height), \(t.fileBytes / 1024) KiB, one thread:")
            row("    full-size decode", String(format: "%.1f ms", t.fullMilliseconds))
            row("    decode covering 300×300 (\(t.thumbnailWidth)×\(t.thumbnailHeight))", String(format: "%.1f ms", t.thumbnailMilliseconds))
        }
    }

    private func printIngest(_ r: IngestBenchmarkResult) {
        print("\n  fic ingest --jobs \(r.jobs) --memory \(r.memoryBudgetMiB) into \(r.formats.joined(separator: ", ")); inputs: \(r.inputs)")
        row("figure", "value", "target", nil)
        for f in r.results {
            print("  \(f.kind): \(f.files) files, \(mib(f.inputBytes))")
            row("  fic ingest", String(format: "%.1f photos/s", f.ficPhotosPerSecond))
            row("    CPU per photo", String(format: "%.1f ms", f.ficCPUMillisecondsPerPhoto))
            row("    its peak RSS", mib(f.ficPeakRSSBytes))
            if let v = f.vipsPhotosPerSecond, let ratio = f.ficOverVips {
                row("  vipsthumbnail", String(format: "%.1f photos/s", v))
                if let c = f.vipsCPUMillisecondsPerPhoto { row("    CPU per photo", String(format: "%.1f ms", c)) }
                if let p = f.vipsPeakRSSBytes { row("    its peak RSS", mib(p)) }
                row("  fic / vipsthumbnail", String(format: "%.2f×", ratio), "≥ 2", ratio >= 2)
                if let c = f.cpuRatio { row("  vipsthumbnail CPU / fic CPU", String(format: "%.2f×", c)) }
            } else {
                row("  vipsthumbnail", "skipped")
            }
        }
        if let files = r.memoryRunFiles, let peak = r.memoryRunPeakRSSBytes {
            row("peak RSS, \(files) large JPEGs", mib(peak), "< 150 MiB", r.targetsMet["memory_run_peak_lt_150mib"])
            if let few = r.fewFilesPeakRSSBytes {
                row("  against few files", mib(few), "flat", r.targetsMet["memory_flat_in_count"])
            }
        }
        for note in r.notes { print("  note: \(note)") }
    }

    private func printServe(_ r: ServeBenchmarkResult) {
        print("\n  \(r.tiles) random tiles of an \(r.side)² pyramid, \(r.connections) connections")
        row("figure", "value", "target", nil)
        func load(_ x: ServeBenchmarkResult.Load) -> String { String(format: "%.0f/s, p99 %.2f ms", x.requestsPerSecond, x.p99Ms) }
        if let n = r.nginx { row("nginx, vips dzsave's static tiles", load(n)) }
        row("fic serve, Deep Zoom", load(r.serveDeepZoom), "p99 ≤ 10 ms", r.serveDeepZoom.p99Ms <= 10)
        if let x = r.deepZoomOverNginx { row("  requests/s over nginx's", String(format: "%.2f×", x), "≥ 0.7", x >= 0.7) }
        row("fic serve, IIIF tile URLs", load(r.serveIIIF))
        row("fic serve, cold tiles, 2 connections", load(r.serveCold), "p99 ≤ 5 ms", r.serveCold.p99Ms <= 5)
        let errors = [r.nginx?.errors ?? 0, r.serveDeepZoom.errors, r.serveIIIF.errors, r.serveCold.errors].reduce(0, +)
        row("errors (non-2xx, socket)", "\(errors)", "0", errors == 0)
        for note in r.notes { print("  note: \(note)") }
    }

    private func printAnimation(_ r: AnimationBenchmarkResult) {
        print("\n  \(r.sourceWidth)×\(r.sourceHeight) animated WebP of \(r.frames) frames, stored at \(r.formatWidth)×\(r.formatHeight)")
        row("figure", "value", "target", nil)
        row("first fic ingest, peak RSS", String(format: "%.0f MiB", Double(r.firstIngestPeakRSSBytes) / 1_048_576), "≤ 100 MiB", r.targetsMet["ingest_peak_rss_le_100mib"])
        row("  every canvas on the heap would take", String(format: "%.0f MiB", Double(r.allFramesOnHeapBytes) / 1_048_576))
        row("first fic ingest", String(format: "%.2f s", r.firstIngestSeconds))
        if let p = r.pillowSeconds { row("Pillow, every frame decoded", String(format: "%.2f s", p)) }
        if let x = r.ingestOverPillow { row("  fic ingest over Pillow", String(format: "%.2f×", x), "≤ 1×", r.targetsMet["ingest_le_pillow"]) }
        row("second fic ingest", r.secondIngestUnchanged ? "0 decodes" : "decoded", "0 decodes", r.secondIngestUnchanged)
        row("frame lookup while playing", ns(r.frameLookupNs), "≤ 1 µs", r.targetsMet["frame_lookup_le_1us"])
        row("frames missing", "\(r.framesMissing)", "0", r.framesMissing == 0)
        row("  a player's work per refresh", ns(r.playerRefreshNs))
        if let p = r.galleryPlaying, let cells = r.galleryCells {
            row("gallery, \(cells) animated cells: compose p99", String(format: "%.2f ms", p.composeP99Ms), "≤ 4 ms", r.targetsMet["gallery_compose_p99_le_4ms"])
            row("  composes over 8.3 ms", "\(p.framesComposeOver8_3Ms) of \(p.frames)", "0", r.targetsMet["gallery_no_compose_over_8_3ms"])
            row("  frame changes drawn", "\(r.galleryFramesChanged ?? -1)")
            row("  launched again: decodes", "\(r.gallerySecondLaunchDecodes ?? -1)", "0", r.targetsMet["gallery_second_launch_decodes_nothing"])
        }
        for note in r.notes { print("  note: \(note)") }
    }

    private func printTiles(_ r: TilesBenchmarkResult) {
        print("\n  \(r.side)×\(r.side) px JPEG: baseline \(r.baselineBytes >> 20) MiB, progressive \(r.progressiveBytes >> 20) MiB")
        row("figure", "value", "target", nil)
        func run(_ x: TilesBenchmarkResult.Run) -> String { String(format: "%.2f s, %.0f MiB", x.seconds, Double(x.peakRSSBytes) / 1_048_576) }
        if let d = r.djpeg { row("djpeg (decode only)", run(d)) }
        row("fic tile: whole pyramid", run(r.pyramid))
        if let x = r.pyramidOverDjpeg { row("  pyramid / djpeg", String(format: "%.2f×", x), "≤ 1.15", r.targetsMet["pyramid_le_1_15x_djpeg"]) }
        row("  peak RSS", mib(r.pyramid.peakRSSBytes))
        if let width = r.wideWidth, let height = r.wideHeight, let pyramid = r.widePyramid {
            row("fic tile: \(width)×\(height) pyramid", run(pyramid))
            if let x = r.widePyramidOverDjpeg { row("  pyramid / djpeg", String(format: "%.2f×", x), "≤ 1.15", r.targetsMet["wide_pyramid_le_1_15x_djpeg"]) }
        }
        row("fic tile --low-memory", run(r.lowMemoryPyramid))
        row("  peak RSS", mib(r.lowMemoryPyramid.peakRSSBytes), "≤ 64 MiB", r.targetsMet["peak_rss_le_64MiB"])
        if let t = r.vipsTiffsave, let x = r.vipsTiffsaveOverPyramid {
            row("vips tiffsave --tile --pyramid (raw)", run(t))
            row("  vips tiffsave / pyramid", String(format: "%.2f×", x), "> 1", r.targetsMet["faster_than_vips_tiffsave"])
        }
        if let d = r.vipsDzsave, let x = r.vipsDzsaveOverPyramid {
            row("vips dzsave", run(d))
            row("  vips dzsave / pyramid", String(format: "%.2f×", x))
        }
        if let d = r.progressiveDjpeg { row("progressive: djpeg", run(d)) }
        row("progressive: fic tile", run(r.progressivePyramid))
        if let x = r.progressiveOverDjpeg { row("  pyramid / djpeg", String(format: "%.2f×", x), "≤ 1.3", r.targetsMet["progressive_le_1_3x_djpeg"]) }
        row("  peak RSS", mib(r.progressivePyramid.peakRSSBytes), "≤ 300 MiB", r.targetsMet["progressive_peak_rss_le_300MiB"])
        if let t = r.progressiveVipsTiffsave { row("progressive: vips tiffsave --pyramid", run(t)) }
        row("last byte → ready (file, fic tile)", String(format: "%.1f ms", r.pyramidAfterLastByteMs))
        row("last byte → ready (20 MB/s paced stream)", String(format: "%.1f ms", r.pacedStreamAfterLastByteMs), "≤ 50 ms", r.targetsMet["paced_stream_last_byte_to_ready_le_50ms"])
        row("  whole paced stream", String(format: "%.2f s", r.pacedStreamSeconds))
        if let ms = r.streamedAfterLastByteMs, let seconds = r.streamedSeconds, let bytes = r.streamedBytes {
            row("streamed over loopback HTTP at 20 MB/s: last byte → ready", String(format: "%.1f ms", ms), "≤ 50 ms", r.targetsMet["streamed_http_last_byte_to_ready_le_50ms"])
            row("  whole fic tile URL run", String(format: "%.2f s, %d MiB downloaded", seconds, bytes >> 20))
            if let peak = r.streamedPeakRSSBytes { row("  peak RSS", mib(peak)) }
        }
        row("warm 256 KiB tile read (pread)", String(format: "%.1f µs", r.tileReadNs / 1000))
        row("memcpy 256 KiB from DRAM", String(format: "%.1f µs", r.memcpyNs / 1000))
        row("  pread / memcpy", String(format: "%.2f×", r.tileReadOverMemcpy))
        row("warm tile, mapped view copied out", String(format: "%.1f µs", r.mappedTileReadNs / 1000))
        row("  mapped view / memcpy", String(format: "%.2f×", r.mappedTileReadOverMemcpy), "≤ 1.5", r.targetsMet["tile_read_le_1_5x_memcpy"])
        for note in r.notes { print("  note: \(note)") }
    }

    private func printLoader(_ r: LoaderBenchmarkResult) {
        print("\n  \(r.photos) photos of \(r.meanPhotoBytes / 1000) KB on average, nginx behind a \(r.linkBytesPerSecond / 1_000_000) MB/s link; \(r.visible) visible after \(r.prefetched) prefetches")
        row("figure", "value", "target", nil)
        row("visible alone", String(format: "%.0f ms", r.visibleAloneMs))
        row("visible under the flood (lanes)", String(format: "%.0f ms", r.visibleUnderFloodMs))
        row("visible under the flood (one FIFO queue)", String(format: "%.0f ms", r.fifoUnderFloodMs))
        row("lanes under flood / alone", String(format: "%.2f×", r.underFloodOverAlone), "≤ 1.25", r.targetsMet["under_flood_le_1_25_alone"])
        row("FIFO under flood / alone", String(format: "%.1f×", r.fifoOverAlone))
        row("promotions of queued prefetches", "\(r.promotions)")
        row("bytes downloaded / unique bytes", "\(r.bytesDownloaded) / \(r.uniqueBytes)", "equal", r.targetsMet["bytes_downloaded_eq_unique"])
        row("fetch to disk (\(r.throughputImages) photos, \(r.throughputParallel) at a time)", String(format: "%.0f photos/s", r.fetchToDiskImagesPerSecond))
        print("      runs (s), ours: " + r.fetchToDiskSeconds.map { String(format: "%.3f", $0) }.joined(separator: " ")
              + (r.curlSeconds.isEmpty ? "" : "; curl: " + r.curlSeconds.map { String(format: "%.3f", $0) }.joined(separator: " ")))
        if let c = r.curlImagesPerSecond, let ratio = r.oursOverCurl {
            row("curl --parallel, same URLs", String(format: "%.0f photos/s", c))
            row("ours / curl", String(format: "%.2f×", ratio), "≥ 0.8", r.targetsMet["fetch_to_disk_ge_0_8_curl"])
        } else {
            row("curl", "skipped")
        }
        for note in r.notes { print("  note: \(note)") }
    }

    private func printView(_ r: ViewBenchmarkResult) {
        print("\n  \(r.windowWidth)×\(r.windowHeight) window on Xvfb; compose = the viewer's work, present = handing the frame to the X server;")
        print("  CPU = the viewer thread's CPU time in compose (wall times far above it mean the machine was busy)")
        row("figure", "value", "target", nil)
        func frames(_ f: ViewBenchmarkResult.Frames) -> String {
            String(format: "p99 %.2f, max %.2f ms (CPU p99 %.2f)", f.composeP99Ms, f.composeMaxMs, f.composeCPUP99Ms)
        }
        row("gallery, cache path: compose", frames(r.galleryCache), "p99 ≤ 4 ms", r.targetsMet["gallery_cache_compose_p99_le_4ms"])
        row("  compose over 8.3 ms", "\(r.galleryCache.framesComposeOver8_3Ms) of \(r.galleryCache.frames)", "none", r.targetsMet["gallery_cache_no_compose_over_8_3ms"])
        row("  CPU time of the slowest compose", String(format: "%.2f ms", r.galleryCache.composeCPUMaxMs))
        row("  compose median / present median", String(format: "%.2f / %.2f ms", r.galleryCache.composeMedianMs, r.galleryCache.presentMedianMs))
        row("  cells shown without their image", "\(r.galleryCacheMisses)")
        func launch(_ l: ViewBenchmarkResult.Launch) -> String { "\(l.placeholderCells) placeholder cells, \(l.misses) misses, \(l.cacheDecodes) decodes" }
        row("gallery, first launch (empty cache)", launch(r.galleryFirstLaunch))
        row("  frames until loaded / compose", "\(r.galleryFirstLaunch.startupFrames) / " + frames(r.galleryFirstLaunch.cache))
        row("gallery, second launch (same cache)", launch(r.gallerySecondLaunch), "0, 0, 0", r.targetsMet["gallery_second_launch_0_placeholder_cells_0_misses_0_decodes"])
        row("  frames until loaded / compose", "\(r.gallerySecondLaunch.startupFrames) / " + frames(r.gallerySecondLaunch.cache))
        row("gallery while ingesting \(r.galleryIngestingPhotos) camera photos: compose", frames(r.galleryWhileIngesting))
        row("  compose over 8.3 ms", "\(r.galleryWhileIngesting.framesComposeOver8_3Ms) of \(r.galleryWhileIngesting.frames)", "none", r.targetsMet["gallery_while_ingesting_no_compose_over_8_3ms"])
        row("gallery, conventional path: compose", frames(r.galleryConventional))
        row("  compose over 8.3 ms", "\(r.galleryConventional.framesComposeOver8_3Ms) of \(r.galleryConventional.frames)")
        row("  compose median / present median", String(format: "%.2f / %.2f ms", r.galleryConventional.composeMedianMs, r.galleryConventional.presentMedianMs))
        row("photo \(r.photoSide)², whole run: compose", frames(r.photoAll), "p99 ≤ 8.3 ms", r.targetsMet["photo_compose_p99_le_8_3ms"])
        row("  zoom fit → 1:1 in steps: compose", frames(r.photoZoom))
        row("  zoom fit → 1:1 smoothly: compose", frames(r.photoSmoothZoom))
        row("  pan across at 1:1: compose", frames(r.photoPan))
        row("  present median", String(format: "%.2f ms", r.photoAll.presentMedianMs))
        row("  first sharp frame after a zoom (max)", String(format: "%.1f ms", r.photoFirstSharpMaxMs), "≤ 100 ms", r.targetsMet["photo_first_sharp_after_zoom_le_100ms"])
        row("  peak RSS of the viewer", mib(r.photoPeakRSSBytes), "≤ 150 MB", r.targetsMet["photo_peak_rss_le_150MB"])
        row("  frames with a coarser level showing", "\(r.photoFramesNotSharp) of \(r.photoAll.frames)")
        row("  tiles read", "\(r.photoTileReads)")
        if let first = r.remoteFirstLaunch, let second = r.remoteSecondLaunch {
            row("remote: Deep Zoom tree, nginx on loopback", "\(first.requests) requests")
            row("  first sharp frame after a zoom (max)", String(format: "%.1f ms", r.remoteFirstSharpAfterZoomMs.max() ?? .nan), "≤ 100 ms",
                r.targetsMet["remote_photo_first_sharp_after_zoom_le_100ms"])
            row("  again after a restart: tile requests, decodes", "\(second.tileFetches), \(second.tileDecodes) (\(second.requests) requests)", "0, 0",
                r.targetsMet["remote_photo_second_launch_0_tile_requests_0_decodes"])
        }
        for note in r.notes { print("  note: \(note)") }
    }

    private func printProcesses(_ r: ProcessesBenchmarkResult) {
        print("\n  \(r.readers) reader processes, each looking up \(r.lookupsPerTick) of \(r.readerImages) images (\(r.side)×\(r.side) BGRA) every \(String(format: "%.0f", r.tickMs)) ms, beside one process ingesting \(r.ingestImages) photos")
        row("figure", "value", "target", nil)
        row("lookup alone: p50 / p99", String(format: "%.0f / %.0f ns", r.lookupAloneP50Ns, r.lookupAloneP99Ns))
        row("lookup beside the ingest: p50 / p99", String(format: "%.0f / %.0f ns", r.lookupWithIngestP50Ns, r.lookupWithIngestP99Ns))
        row("  p50 beside the ingest / alone", String(format: "%.2f×", r.lookupP50Ratio), "≤ 1.2", r.targetsMet["lookup_p50_with_ingest_le_1_2x_alone"])
        row("  p99 beside the ingest", String(format: "%.2f µs (%.2f×)", r.lookupWithIngestP99Ns / 1000, r.lookupP99Ratio), "≤ 2 µs", r.targetsMet["lookup_p99_with_ingest_le_2us"])
        row("  a tick's first lookup (median), alone / beside", String(format: "%.1f / %.1f µs", r.lookupAloneFirstOfTickP50Ns / 1000, r.lookupWithIngestFirstOfTickP50Ns / 1000))
        row("  p99 of the other lookups, alone / beside", String(format: "%.2f / %.2f µs", r.lookupAloneAfterFirstP99Ns / 1000, r.lookupWithIngestAfterFirstP99Ns / 1000))
        row("  baseline, a [String: [UInt8]] in memory, alone: p50 / p99", String(format: "%.0f / %.0f ns", r.inMemoryP50Ns, r.inMemoryP99Ns))
        row("    its first lookup of a tick (median); p99 of the others", String(format: "%.1f µs; %.2f µs", r.inMemoryFirstOfTickP50Ns / 1000, r.inMemoryAfterFirstP99Ns / 1000))
        row("    p99 beside the ingest / the baseline's", String(format: "%.2f×", r.lookupP99ToInMemory))
        row("  slowest lookup alone / beside the ingest", String(format: "%.1f / %.1f µs", r.lookupAloneMaxNs / 1000, r.lookupWithIngestMaxNs / 1000))
        row("  lookups timed, alone / beside; misses", "\(r.lookupsAlone) / \(r.lookupsWithIngest); \(r.lookupMisses)")
        row("  ticks begun over a tick late, alone / beside", "\(r.lateTicksAlone) / \(r.lateTicksWithIngest)")
        row("ingest alone (median of rounds)", String(format: "%.0f images/s", r.ingestAloneMedian))
        row("ingest beside 4 readers (median)", String(format: "%.0f images/s", r.ingestWithReadersMedian))
        row("  beside readers / alone", String(format: "%.2f×", r.ingestRatio), "≥ 0.9", r.targetsMet["ingest_with_readers_ge_0_9x_alone"])
        row("store in one process → hit in another", String(format: "p50 %.1f, p99 %.1f, max %.1f µs", r.storeToHitP50Us, r.storeToHitP99Us, r.storeToHitMaxUs),
            "max ≤ 1 ms", r.targetsMet["store_to_hit_max_le_1ms"])
        row("writer killed holding the lock → next store", String(format: "median %.2f, max %.2f ms (%d kills)", r.killedHoldingLockMedianMs, r.killedHoldingLockMaxMs, r.lockedKills),
            "max ≤ 10 ms", r.targetsMet["killed_writer_to_next_store_max_le_10ms"])
        row("  kill → killed writer reaped (median)", String(format: "%.2f ms", r.killedHoldingLockExitMedianMs))
        row("writer killed at random → next store", String(format: "median %.2f, max %.2f ms", r.killedAtRandomMedianMs, r.killedAtRandomMaxMs))
        row("  not holding the lock (median); holding it", String(format: "%.2f ms; %d of %d", r.killedAtRandomNotHoldingLockMedianMs, r.killedAtRandomHoldingLock,
                                                                  r.killedAtRandomToNextStoreMs.count))
        row("  no kill: a random instant → next store", String(format: "median %.2f, max %.2f ms", r.noKillMedianMs, r.noKillMaxMs))
        row("  the other writer's store period (median)", String(format: "%.0f µs", r.otherWriterStorePeriodMedianUs))
        for note in r.notes { print("  note: \(note)") }
    }

    private func mib(_ bytes: Int) -> String {
        String(format: "%.1f MiB", Double(bytes) / 1_048_576)
    }
}
#endif
