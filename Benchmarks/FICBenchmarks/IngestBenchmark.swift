import FastImageCache
import Foundation

/// What ``IngestBenchmark`` measured.
public struct IngestBenchmarkResult: Codable, Sendable {
    /// Photo files ingested per run.
    public var photos: Int
    /// The formats of the family, as described by ``ImageFormat/description``.
    public var formats: [String]
    /// Photos ingested per second into every format of the family (best run: the machine may be
    /// shared, and the best run is the one least disturbed; every run is in `ingest_timing`).
    public var imagesPerSecond: Double
    /// Nanoseconds per photo of every timed run (decode once, draw and store each format).
    public var ingestTiming: BenchTiming
    /// Milliseconds to flush and close the cache after one run (not part of the ingest time).
    public var closeMs: Double
    /// Photos per second of `vipsthumbnail` making the largest thumbnail of the same files
    /// (best run, like `images_per_second`); nil when it is not installed.
    public var vipsImagesPerSecond: Double?
    /// Nanoseconds per photo of every timed `vipsthumbnail` run.
    public var vipsTiming: BenchTiming?
    /// `images_per_second / vips_images_per_second` (target ≥ 1.5).
    public var oursOverVips: Double?
    /// Peak resident set (`VmHWM`, reset just before ingesting) while ingesting, in bytes. It
    /// counts the table pages this process wrote, which are file-backed and reclaimable.
    public var peakRSSBytes: Int
    /// Peak anonymous (not file-backed) resident memory, sampled after each photo, in bytes.
    public var peakAnonymousRSSBytes: Int?
    /// `getrusage(RUSAGE_SELF).ru_maxrss` after ingesting, in bytes: the process's peak since it
    /// started, so it includes whatever ran before this benchmark.
    public var processMaxRSSBytes: Int
    /// Photos per second (best run) when each stored image's resident pages are released right
    /// after storing it (``CachedImage/releaseResidentPages()``), as a bulk import would.
    public var releasingImagesPerSecond: Double
    /// Nanoseconds per photo of every run that released resident pages.
    public var releasingTiming: BenchTiming
    /// Peak resident set (`VmHWM`, reset before) of the runs that released resident pages.
    public var releasingPeakRSSBytes: Int?
    /// Resident set just before ingesting, in bytes (what `peak_rss_bytes` started from).
    public var rssBeforeBytes: Int?
    /// Peak resident set of one `vipsthumbnail` run, measured by `/usr/bin/time -f %M`; nil
    /// when either is missing.
    public var vipsPeakRSSBytes: Int?
    /// Each target by name, and whether it was met.
    public var targetsMet: [String: Bool]
    /// Remarks: skipped parts, how figures were obtained.
    public var notes: [String]

    enum CodingKeys: String, CodingKey {
        case photos, formats
        case imagesPerSecond = "images_per_second"
        case ingestTiming = "ingest_timing"
        case closeMs = "close_ms"
        case vipsImagesPerSecond = "vips_images_per_second"
        case vipsTiming = "vips_timing"
        case oursOverVips = "ours_over_vips"
        case peakRSSBytes = "peak_rss_bytes"
        case peakAnonymousRSSBytes = "peak_anonymous_rss_bytes"
        case processMaxRSSBytes = "process_max_rss_bytes"
        case releasingImagesPerSecond = "releasing_images_per_second"
        case releasingTiming = "releasing_timing"
        case releasingPeakRSSBytes = "releasing_peak_rss_bytes"
        case rssBeforeBytes = "rss_before_bytes"
        case vipsPeakRSSBytes = "vips_peak_rss_bytes"
        case targetsMet = "targets_met"
        case notes
    }
}

/// Measures ingesting photos into a family of two formats (one decode per photo) against
/// `vipsthumbnail` making the largest of the thumbnails from the same files.
public enum IngestBenchmark {
    /// Sizes of the benchmark.
    public struct Options: Sendable {
        /// Photo files generated (copies of the test photos under new names).
        public var photoCount = 200
        /// Timed runs of each side (after one untimed warm-up).
        public var runs = 5

        /// The default sizes.
        public init() {}
    }

    /// The targets, by name.
    public static let targets: [(name: String, text: String)] = [
        ("ours_over_vips_ge_1_5", "ingest / vipsthumbnail ≥ 1.5"),
    ]

    struct Entity: ImageEntity {
        let entityID: String
        let sourceImageID: String
        func sourceImageURL(for format: ImageFormat) -> URL? { nil }
    }

    /// Runs the benchmark with copies of the JPEG photos of `testdata` (its `photos` folder if it
    /// has one), keeping its files in a folder of `workDirectory` that is removed afterwards.
    public static func run(testdata: String, workDirectory: String, options: Options = Options(), log: (String) -> Void) throws -> IngestBenchmarkResult {
        let root = try BenchKit.makeFreshDirectory(workDirectory, "ingest-\(getpid())")
        defer { try? FileManager.default.removeItem(atPath: root) }
        var notes: [String] = []

        // Inputs: copies of the test JPEGs under new names.
        let all = BenchKit.photos(in: testdata)
        let jpegs = all.filter { ["jpg", "jpeg"].contains(($0 as NSString).pathExtension.lowercased()) }
        let originals = jpegs.isEmpty ? all : jpegs
        guard !originals.isEmpty else { throw BenchmarkError("no photos in \(testdata)") }
        let inputs = try BenchKit.makeFreshDirectory(root, "photos")
        var files: [String] = []
        var inputBytes = 0
        for i in 0..<options.photoCount {
            let original = originals[i % originals.count]
            let ext = (original as NSString).pathExtension
            let path = (inputs as NSString).appendingPathComponent(String(format: "photo-%05d.", i) + ext)
            try FileManager.default.copyItem(atPath: original, toPath: path)
            inputBytes += (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            files.append(path)
        }
        log("  \(files.count) photos (copies of \(originals.count) originals, \(BenchKit.mebibytes(inputBytes)))")

        let small = try ImageFormat(name: "thumb", family: "photos", size: CGSize(width: 75, height: 75), scale: 2, style: .rgb565, maximumCount: files.count)
        let large = try ImageFormat(name: "large", family: "photos", size: CGSize(width: 150, height: 150), scale: 2, style: .bgra32Premultiplied, maximumCount: files.count)
        let formats = [small, large]
        // vipsthumbnail makes the size one decode of ours covers.
        let target = PixelSize(width: formats.map(\.pixelSize.width).max()!, height: formats.map(\.pixelSize.height).max()!)
        let entities = files.map { Entity(entityID: ($0 as NSString).lastPathComponent, sourceImageID: "v1") }

        // Ours: decode once at the largest size, draw and store every format.
        let rssBefore = BenchKit.ResidentMemory.current()?.total
        let resetWorked = BenchKit.ResidentMemory.resetPeak()
        if !resetWorked { notes.append("could not reset the peak RSS (/proc/self/clear_refs): peak_rss_bytes includes earlier work") }
        var peakAnonymous: Int?
        var closeMs = 0.0
        let clock = ContinuousClock()
        var runNumber = 0
        // One ingest of every file into a fresh cache; returns ns per photo.
        func ingestOnce(releasingPages: Bool, sampling: Bool) throws -> Double {
            runNumber += 1
            let namespace = "run\(runNumber)"
            let cache = try ImageCache(directory: (root as NSString).appendingPathComponent("cache"), namespace: namespace, formats: formats)
            let start = clock.now
            for (i, path) in files.enumerated() {
                let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
                try cache.storeImages(from: .encoded(bytes), for: entities[i], releasingPages: releasingPages)
                if sampling, let now = BenchKit.ResidentMemory.current() {
                    peakAnonymous = max(peakAnonymous ?? 0, now.anonymous)
                }
            }
            let elapsed = BenchKit.nanoseconds(clock.now - start)
            let stored = cache.statistics.formats.map(\.count)
            guard stored.allSatisfy({ $0 == files.count }) else { throw BenchmarkError("the cache holds \(stored) images per format, not \(files.count)") }
            let closeStart = clock.now
            cache.close()
            closeMs = BenchKit.nanoseconds(clock.now - closeStart) / 1e6
            try? FileManager.default.removeItem(atPath: (root as NSString).appendingPathComponent("cache/" + namespace))
            return elapsed / Double(files.count)
        }
        _ = try ingestOnce(releasingPages: false, sampling: true)
        var samples: [Double] = []
        for _ in 0..<options.runs { samples.append(try ingestOnce(releasingPages: false, sampling: false)) }
        let peak = BenchKit.ResidentMemory.highWaterMark() ?? BenchKit.ResidentMemory.maxRSS()
        let processMax = BenchKit.ResidentMemory.maxRSS()
        let ours = BenchTiming(samples)
        let imagesPerSecond = 1e9 / ours.best
        log("  ingest: \(BenchKit.fixed(imagesPerSecond)) photos/s (best; \(BenchKit.fixed(ours.best / 1e6, 2)) ms each, median \(BenchKit.fixed(ours.median / 1e6, 2)) ms), peak RSS \(BenchKit.mebibytes(peak))")

        // The same, releasing each stored image's resident pages right after storing it.
        let releasedResetWorked = BenchKit.ResidentMemory.resetPeak()
        var releasedSamples: [Double] = []
        for _ in 0..<options.runs { releasedSamples.append(try ingestOnce(releasingPages: true, sampling: false)) }
        let released = BenchTiming(releasedSamples)
        let releasedPeak = releasedResetWorked ? BenchKit.ResidentMemory.highWaterMark() : nil
        log("  ingest releasing resident pages: \(BenchKit.fixed(1e9 / released.best)) photos/s (best), peak RSS \(releasedPeak.map(BenchKit.mebibytes) ?? "unknown")")

        // vipsthumbnail: the largest thumbnail of the same files, one invocation per batch.
        var vips: BenchTiming?
        var vipsPeak: Int?
        if let vipsthumbnail = BenchKit.findExecutable("vipsthumbnail") {
            var vipsSamples: [Double] = []
            let timeTool = FileManager.default.isExecutableFile(atPath: "/usr/bin/time") ? "/usr/bin/time" : nil
            let rssFile = (root as NSString).appendingPathComponent("vips-rss.txt")
            for run in 0...options.runs {
                let out = try BenchKit.makeFreshDirectory(root, "vips")
                let start = clock.now
                for batch in stride(from: 0, to: files.count, by: 500) {
                    let slice = Array(files[batch..<min(batch + 500, files.count)])
                    let arguments = ["-s", "\(target.width)x\(target.height)", "-o", (out as NSString).appendingPathComponent("%s.jpg")] + slice
                    if run == 0, let timeTool {
                        // The warm-up run also measures vips's peak RSS; `time` forks, so the
                        // figure is vips's own, not inherited from this process.
                        try BenchKit.runProcess(timeTool, ["-f", "%M", "-o", rssFile, vipsthumbnail] + arguments)
                        let text = (try? String(contentsOfFile: rssFile, encoding: .utf8)) ?? ""
                        if let kib = text.split(whereSeparator: \.isNewline).last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) {
                            vipsPeak = max(vipsPeak ?? 0, kib * 1024)
                        }
                    } else {
                        try BenchKit.runProcess(vipsthumbnail, arguments)
                    }
                }
                let elapsed = BenchKit.nanoseconds(clock.now - start)
                let made = (try? FileManager.default.contentsOfDirectory(atPath: out).count) ?? 0
                guard made == files.count else { throw BenchmarkError("vipsthumbnail wrote \(made) thumbnails, not \(files.count)") }
                if run > 0 { vipsSamples.append(elapsed / Double(files.count)) }
            }
            vips = BenchTiming(vipsSamples)
            log("  vipsthumbnail: \(BenchKit.fixed(1e9 / vips!.best)) photos/s (best; \(BenchKit.fixed(vips!.best / 1e6, 2)) ms each, median \(BenchKit.fixed(vips!.median / 1e6, 2)) ms)")
            notes.append("vipsthumbnail writes one \(target.width)×\(target.height) JPEG per photo (its default quality) and may use several threads; ours decodes once and stores \(formats.count) formats on one thread")
        } else {
            notes.append("vipsthumbnail is not installed (apt-get install libvips-tools): the comparison was skipped")
            log("  vipsthumbnail: skipped, not installed")
        }

        let vipsPerSecond = vips.map { 1e9 / $0.best }
        let ratio = vipsPerSecond.map { imagesPerSecond / $0 }
        var met: [String: Bool] = [:]
        if let ratio { met["ours_over_vips_ge_1_5"] = ratio >= 1.5 }
        notes.append("photos/s are from the best of \(options.runs) runs after a warm-up run, for both sides; input files are in the page cache")
        return IngestBenchmarkResult(
            photos: files.count, formats: formats.map(\.description), imagesPerSecond: imagesPerSecond, ingestTiming: ours,
            closeMs: closeMs, vipsImagesPerSecond: vipsPerSecond, vipsTiming: vips, oursOverVips: ratio,
            peakRSSBytes: peak, peakAnonymousRSSBytes: peakAnonymous, processMaxRSSBytes: processMax,
            releasingImagesPerSecond: 1e9 / released.best, releasingTiming: released,
            releasingPeakRSSBytes: releasedPeak, rssBeforeBytes: rssBefore, vipsPeakRSSBytes: vipsPeak, targetsMet: met, notes: notes)
    }
}
