import FICCore
import FICHarness
import FastImageCache
import Foundation
import ImageTable

/// What ``AnimationBenchmark`` measured.
public struct AnimationBenchmarkResult: Codable, Sendable {
    /// The animated WebP ingested: its canvas and frame count.
    public var sourceWidth: Int
    /// Height of the source canvas.
    public var sourceHeight: Int
    /// Frames of the source.
    public var frames: Int
    /// The format's size in pixels (every frame is stored at it).
    public var formatWidth: Int
    /// The format's height in pixels.
    public var formatHeight: Int

    /// The first `fic ingest` (decode, composite and store every frame): wall seconds, best of the runs.
    public var firstIngestSeconds: Double
    /// Its peak resident set, the largest of the runs.
    public var firstIngestPeakRSSBytes: Int
    /// What holding every decoded canvas on the heap would take: frames × canvas × 4 bytes.
    public var allFramesOnHeapBytes: Int
    /// Whether the second `fic ingest` found the file unchanged (it decoded nothing).
    public var secondIngestUnchanged: Bool
    /// The second ingest's wall seconds.
    public var secondIngestSeconds: Double

    /// Pillow decoding every frame of the same file (`seek` and `load` of each, best of the runs),
    /// seconds; nil when Python's Pillow is missing.
    public var pillowSeconds: Double?
    /// `first_ingest_seconds / pillow_seconds` (target ≤ 1).
    public var ingestOverPillow: Double?

    /// One frame lookup while playing: `cachedImage(for:format:frame:)` of the frame a timeline
    /// gives and its release, ns per lookup (median run).
    public var frameLookupNs: Double
    /// Every run of the lookup measurement.
    public var frameLookupTiming: BenchTiming
    /// Frames the lookups found missing (target 0).
    public var framesMissing: Int
    /// What an ``AnimationPlayer`` costs per display refresh (it looks up only when the frame
    /// changes), ns per refresh (median run).
    public var playerRefreshNs: Double

    /// The gallery of animated cells playing on Xvfb: cells on screen, and frame figures of the
    /// phase in which they play; nil when xvfb-run is missing.
    public var galleryCells: Int?
    /// Compose figures while every cell plays.
    public var galleryPlaying: ViewBenchmarkResult.Frames?
    /// Frames whose cell changed while they played (the animations really played).
    public var galleryFramesChanged: Int?
    /// Sources the gallery decoded when launched again on the same cache (target 0).
    public var gallerySecondLaunchDecodes: Int?

    /// Each target by name, and whether it was met.
    public var targetsMet: [String: Bool]
    /// How the figures were obtained.
    public var notes: [String]

    enum CodingKeys: String, CodingKey {
        case sourceWidth = "source_width", sourceHeight = "source_height", frames
        case formatWidth = "format_width", formatHeight = "format_height"
        case firstIngestSeconds = "first_ingest_seconds", firstIngestPeakRSSBytes = "first_ingest_peak_rss_bytes"
        case allFramesOnHeapBytes = "all_frames_on_heap_bytes"
        case secondIngestUnchanged = "second_ingest_unchanged", secondIngestSeconds = "second_ingest_seconds"
        case pillowSeconds = "pillow_seconds", ingestOverPillow = "ingest_over_pillow"
        case frameLookupNs = "frame_lookup_ns", frameLookupTiming = "frame_lookup_timing", framesMissing = "frames_missing"
        case playerRefreshNs = "player_refresh_ns", galleryCells = "gallery_cells", galleryPlaying = "gallery_playing"
        case galleryFramesChanged = "gallery_frames_changed", gallerySecondLaunchDecodes = "gallery_second_launch_decodes"
        case targetsMet = "targets_met", notes
    }
}

/// `fic-bench animation`: a 1920 × 1080 animated WebP of 300 frames (a pan across a bundled
/// photo, made once with Pillow and kept in the work directory) ingested by `fic ingest` into a
/// 480 × 270 format, as a separate process whose peak resident set `/usr/bin/time` measures;
/// ingested again (nothing to decode); Pillow's frame loop on the same file as the baseline; and
/// the lookup a player makes on each display refresh; then 40 animated cells playing in
/// `fic view gallery` on Xvfb.
public enum AnimationBenchmark {
    static let width = 1920, height = 1080, frameCount = 300, frameMs = 40
    static let format = (name: "anim", width: 480, height: 270)
    static let runs = 2

    /// Runs the benchmark with the `fic` executable at `fic`.
    public static func run(testdata: String, workDirectory: String, fic: String, log: (String) -> Void) throws -> AnimationBenchmarkResult {
        let root = (workDirectory as NSString).appendingPathComponent("animation")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let folder = (root as NSString).appendingPathComponent("input")
        let name = "pan-\(width)x\(height)x\(frameCount).webp"
        let file = (folder as NSString).appendingPathComponent(name)
        // A file an earlier run made under the name by mistake (an APNG: the script takes the
        // format from the name it writes, which ended ".part") is made again.
        if FileManager.default.fileExists(atPath: file), !isWebP(file) { try FileManager.default.removeItem(atPath: file) }
        if !FileManager.default.fileExists(atPath: file) {
            log("  making \(name) with Pillow (once; kept in \(folder))")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let photo = try largestPhoto(testdata)
            // Written under a name that keeps the extension, which tells the script the format.
            let part = (folder as NSString).appendingPathComponent("part-\(name)")
            try BenchmarkProcess.run(
                "/usr/bin/env", ["python3", "-c", makeScript, photo, part, "\(width)", "\(height)", "\(frameCount)", "\(frameMs)"]
            )
            guard isWebP(part) else { throw BenchmarkError("Pillow did not write a WebP file at \(part)") }
            try FileManager.default.moveItem(atPath: part, toPath: file)
        }
        let cache = (root as NSString).appendingPathComponent("cache")
        let formatSpec = "\(format.name):\(format.width)x\(format.height):bgra:max=\(4 * (frameCount + 2))"
        let arguments = ["ingest", folder, "--cache", cache, "--namespace", "bench", "--format", formatSpec, "--jobs", "1"]
        var notes: [String] = []

        // First pass: every frame decoded, composited and stored, in a fresh cache each run.
        var firsts: [MeasuredRun] = []
        for _ in 0..<runs {
            if FileManager.default.fileExists(atPath: cache) { try FileManager.default.removeItem(atPath: cache) }
            let run = try MeasuredRun.run(fic, arguments)
            guard run.output.contains("1 added") else { throw BenchmarkError("fic ingest did not add the animation: \(run.output)") }
            firsts.append(run)
        }
        let firstSeconds = firsts.map(\.seconds).min()!
        let peak = firsts.map(\.peakRSSBytes).max()!
        log("  first ingest: \(BenchKit.fixed(firstSeconds, 2)) s (best of \(runs)), peak RSS \(BenchKit.mebibytes(peak))")
        let second = try MeasuredRun.run(fic, arguments)
        let unchanged = second.output.contains("0 added, 1 unchanged")
        log(
            "  second ingest: \(BenchKit.fixed(second.seconds, 2)) s, \(unchanged ? "unchanged (nothing decoded)" : "NOT unchanged: \(second.output)")"
        )

        let pillow = try? pillowSeconds(file)
        if let pillow {
            log("  Pillow, every frame: \(BenchKit.fixed(pillow, 2)) s (best of \(runs))")
        } else {
            notes.append("Python's Pillow is missing: no baseline")
        }

        let lookup = try measureLookups(cache: cache, file: file, name: name)
        log(
            "  frame lookup while playing: \(BenchKit.fixed(lookup.timing.median, 1)) ns, \(lookup.missing) frames missing; a player's refresh \(BenchKit.fixed(lookup.player.median, 1)) ns"
        )

        var gallery: (cells: Int, playing: ViewBenchmarkResult.Frames, changed: Int, secondDecodes: Int)?
        if let xvfbRun = Executables.find("xvfb-run") {
            gallery = try playGallery(xvfbRun: xvfbRun, fic: fic, testdata: testdata, root: root, log: log)
        } else {
            notes.append("xvfb-run is missing: no gallery figures")
        }

        let onHeap = frameCount * width * height * 4
        var met: [String: Bool] = [
            "ingest_peak_rss_le_100mib": peak <= 100 << 20,
            "second_ingest_decodes_nothing": unchanged,
            "frame_lookup_le_1us": lookup.timing.median <= 1000,
            "no_frame_missing": lookup.missing == 0
        ]
        if let gallery {
            met["gallery_compose_p99_le_4ms"] = gallery.playing.composeP99Ms <= 4
            met["gallery_no_compose_over_8_3ms"] = gallery.playing.framesComposeOver8_3Ms == 0
            met["gallery_second_launch_decodes_nothing"] = gallery.secondDecodes == 0
        }
        let ratio = pillow.map { firstSeconds / $0 }
        if let ratio { met["ingest_le_pillow"] = ratio <= 1 }
        notes.append(
            "fic ingest --jobs 1 is a whole process (start, decode, composite, resize to \(format.width)×\(format.height), store every frame, close); Pillow only decodes each frame at full size (libwebp's animation decoder underneath); peak RSS by /usr/bin/time"
        )
        notes.append(
            "the lookup is the one a player makes on each refresh: the frame for a moment of a 60 Hz clock from the stored durations, looked up and released"
        )
        return AnimationBenchmarkResult(
            sourceWidth: width, sourceHeight: height, frames: frameCount, formatWidth: format.width, formatHeight: format.height,
            firstIngestSeconds: firstSeconds, firstIngestPeakRSSBytes: peak, allFramesOnHeapBytes: onHeap,
            secondIngestUnchanged: unchanged, secondIngestSeconds: second.seconds,
            pillowSeconds: pillow, ingestOverPillow: ratio,
            frameLookupNs: lookup.timing.median, frameLookupTiming: lookup.timing, framesMissing: lookup.missing,
            playerRefreshNs: lookup.player.median,
            galleryCells: gallery?.cells, galleryPlaying: gallery?.playing, galleryFramesChanged: gallery?.changed,
            gallerySecondLaunchDecodes: gallery?.secondDecodes,
            targetsMet: met, notes: notes)
    }

    /// The entity `fic ingest` stored the file as: its path in the folder, versioned by its bytes' hash.
    struct IngestedFile: ImageEntity {
        let entityID: String
        let sourceImageID: String
        func sourceImageURL(for format: ImageFormat) -> URL? { nil }
    }

    /// Opens the ingested cache and times the lookups a player makes while the animation plays:
    /// the frame for each 1/60 s step of the timeline, looked up and released.
    static func measureLookups(cache directory: String, file: String, name: String) throws -> (
        timing: BenchTiming, missing: Int, player: BenchTiming
    ) {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        let entity = IngestedFile(entityID: name, sourceImageID: bytes.withUnsafeBytes { SHA256Hex.digest(of: $0) })
        let imageFormat = try ImageFormat(
            name: format.name, family: "images", size: CGSize(width: format.width, height: format.height),
            maximumCount: 4 * (frameCount + 2))
        let cache = try ImageCache(directory: directory, namespace: "bench", formats: [imageFormat])
        defer { cache.close() }
        guard let animation = cache.animation(for: entity, format: format.name), animation.frameCount == frameCount else {
            throw BenchmarkError("the ingested animation is not in the cache with its \(frameCount) frames")
        }
        let timeline = animation.timeline
        // The frames of 10 s of refreshes at 60 Hz, computed beforehand: the lookup is measured.
        let frames = (0..<600).map { timeline.frame(atMilliseconds: $0 * 1000 / 60) }
        let missing = (0..<frameCount).filter { cache.cachedImage(for: entity, format: format.name, frame: $0) == nil }.count
        let timing = BenchKit.measure(warmups: 1, runs: 9, operationsPerRun: frames.count * 100) {
            for _ in 0..<100 {
                for n in frames { BenchKit.blackHole(cache.cachedImage(for: entity, format: format.name, frame: n)) }
            }
        }
        // A player per refresh: 10 s at 60 Hz, as a gallery cell plays.
        let player = BenchKit.measure(warmups: 1, runs: 9, operationsPerRun: frames.count * 100) {
            for _ in 0..<100 {
                var player = AnimationPlayer(cache: cache, entity: entity, format: format.name, animation: animation)
                for step in 0..<frames.count { BenchKit.blackHole(player.image(at: .milliseconds(step * 1000 / 60))) }
            }
        }
        return (timing, missing, player)
    }

    /// 40 cells of five animations (GIF, animated WebP and APNG of 320 × 240, 24 frames, made with
    /// Pillow) in `fic view gallery` on Xvfb, every cell on screen: the frames while they play,
    /// then the sources decoded when the gallery is launched again on the same cache.
    static func playGallery(xvfbRun: String, fic: String, testdata: String, root: String, log: (String) -> Void) throws
        -> (cells: Int, playing: ViewBenchmarkResult.Frames, changed: Int, secondDecodes: Int)
    {
        let folder = (root as NSString).appendingPathComponent("gallery-input")
        if !FileManager.default.fileExists(atPath: folder + "/done") {
            try? FileManager.default.removeItem(atPath: folder)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let photo = try largestPhoto(testdata)
            for (i, ext) in ["gif", "webp", "png", "gif", "webp"].enumerated() {
                try BenchmarkProcess.run(
                    "/usr/bin/env", ["python3", "-c", makeScript, photo, folder + "/anim-\(i).\(ext)", "320", "240", "24", "\(40 + 20 * i)"]
                )
            }
            _ = FileManager.default.createFile(atPath: folder + "/done", contents: nil)
        }
        let cells = 40  // 8 columns × 5 rows of 150 px cells: all of a 1280 × 800 window
        let script = """
            phase startup
            wait-idle 60000
            replay
            wait 1
            phase playing
            wait 600
            """
        let work = try BenchKit.makeFreshDirectory(root, "gallery-\(getpid())")
        defer { try? FileManager.default.removeItem(atPath: work) }
        log("  gallery: \(cells) cells of 5 animations playing for 10 s on Xvfb …")
        let stats = try ViewBenchmark.view(
            xvfbRun, fic, ["gallery", "--photos", folder, "--cells", "\(cells)", "--cache", work + "/cache"],
            script: script, work: work, name: "animated-gallery")
        let playing = ViewBenchmark.frames((stats["phases"] as? [String: Any])?["playing"])
        let changed = stats["animation_frames_changed"] as? Int ?? -1
        log(
            "  gallery playing: compose p99 \(BenchKit.fixed(playing.composeP99Ms, 2)) ms, median \(BenchKit.fixed(playing.composeMedianMs, 2)) ms, \(playing.framesComposeOver8_3Ms) over 8.3 ms, over \(playing.frames) frames; \(changed) frame changes drawn"
        )
        let again = try ViewBenchmark.view(
            xvfbRun, fic, ["gallery", "--photos", folder, "--cells", "\(cells)", "--cache", work + "/cache"],
            script: script, work: work, name: "animated-gallery-again")
        let secondDecodes = again["cache_decodes"] as? Int ?? -1
        log("  gallery launched again on the same cache: \(secondDecodes) decodes")
        return (cells, playing, changed, secondDecodes)
    }

    /// The largest photo of the test data (the pan's source).
    static func largestPhoto(_ testdata: String) throws -> String {
        let photos = BenchKit.photos(in: testdata)
        let sized = photos.compactMap { path -> (String, Int)? in
            guard let size = try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int else { return nil }
            return (path, size)
        }
        guard let largest = sized.max(by: { $0.1 < $1.1 }) else { throw BenchmarkError("no photo in \(testdata)") }
        return largest.0
    }

    /// Pillow's `seek` and `load` of every frame of `file`, best of ``runs``, in seconds.
    static func pillowSeconds(_ file: String) throws -> Double {
        let script = """
            import sys, time
            from PIL import Image
            best = None
            for r in range(int(sys.argv[2])):
                t0 = time.perf_counter()
                im = Image.open(sys.argv[1])
                for i in range(im.n_frames):
                    im.seek(i); im.load()
                dt = time.perf_counter() - t0
                best = dt if best is None else min(best, dt)
            print(best)
            """
        let run = try MeasuredRun.run("/usr/bin/env", ["python3", "-c", script, file, "\(runs)"])
        guard let seconds = Double(run.output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw BenchmarkError("Pillow's timing could not be read: \(run.output)")
        }
        return seconds
    }

    /// Writes an animated WebP: frame i is a crop of the photo moving and narrowing across it,
    /// scaled to the canvas, so that no two frames are alike.
    /// Whether the file at `path` starts as a WebP file does (`RIFF`, a size, `WEBP`).
    static func isWebP(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = [UInt8]((try? handle.read(upToCount: 12)) ?? Data())
        return head.count == 12 && head[0..<4] == Array("RIFF".utf8)[...] && head[8..<12] == Array("WEBP".utf8)[...]
    }

    static let makeScript = """
        import sys
        from PIL import Image
        src = Image.open(sys.argv[1]).convert("RGB")
        W, H, n, ms = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
        sw, sh = src.size
        frames = []
        for i in range(n):
            t = i / max(1, n - 1)
            cw = int(sw * (0.9 - 0.3 * t)); ch = cw * H // W
            x = int((sw - cw) * t); y = int((sh - ch) * (0.3 + 0.4 * t))
            frames.append(src.crop((x, y, x + cw, y + ch)).resize((W, H), Image.BILINEAR))
        kind = sys.argv[2].rsplit(".", 1)[-1].lower()
        if kind == "webp":
            frames[0].save(sys.argv[2], format="WEBP", save_all=True, append_images=frames[1:], duration=ms, loop=0, quality=70, method=0)
        else:
            frames[0].save(sys.argv[2], format="GIF" if kind == "gif" else "PNG", save_all=True, append_images=frames[1:], duration=ms, loop=0)
        """
}
