import FICHarness
import FastImageCache
import Foundation
import ImageCodec

/// One kind of input of ``IngestBenchmark``: `fic ingest` against `vipsthumbnail` on the same files.
public struct IngestFormatResult: Codable, Sendable {
    /// The kind: `jpeg-baseline`, `jpeg-progressive`, `png`, `webp` (generated inputs), or the
    /// sniffed format of the files of `--photos`.
    public var kind: String
    /// Files ingested per run.
    public var files: Int
    /// Their total size in bytes.
    public var inputBytes: Int
    /// `fic ingest` photos per second, best run (whole process, start-up included).
    public var ficPhotosPerSecond: Double
    /// Seconds of every timed `fic ingest` run.
    public var ficSeconds: [Double]
    /// CPU time (user and system) per photo of `fic ingest`'s best run, in milliseconds.
    public var ficCPUMillisecondsPerPhoto: Double
    /// The peak resident set of `fic ingest` over its runs, in bytes.
    public var ficPeakRSSBytes: Int
    /// `vipsthumbnail` photos per second, best run; nil when it is not installed.
    public var vipsPhotosPerSecond: Double?
    /// Seconds of every timed `vipsthumbnail` run.
    public var vipsSeconds: [Double]?
    /// CPU time per photo of `vipsthumbnail`'s best run, in milliseconds.
    public var vipsCPUMillisecondsPerPhoto: Double?
    /// The peak resident set of `vipsthumbnail`, in bytes.
    public var vipsPeakRSSBytes: Int?
    /// `fic_photos_per_second / vips_photos_per_second` (target ≥ 2).
    public var ficOverVips: Double?
    /// `vips_cpu_ms_per_photo / fic_cpu_ms_per_photo`: how much less CPU fic spends per photo,
    /// the figure that survives a busy machine, where wall-clock rates do not.
    public var cpuRatio: Double?

    /// The `vipsthumbnail` figures of `other`, a run of the same files, and the ratios to them.
    mutating func takeVips(from other: IngestFormatResult) {
        vipsPhotosPerSecond = other.vipsPhotosPerSecond
        vipsSeconds = other.vipsSeconds
        vipsCPUMillisecondsPerPhoto = other.vipsCPUMillisecondsPerPhoto
        vipsPeakRSSBytes = other.vipsPeakRSSBytes
        ficOverVips = vipsPhotosPerSecond.map { ficPhotosPerSecond / $0 }
        cpuRatio = vipsCPUMillisecondsPerPhoto.map { $0 / ficCPUMillisecondsPerPhoto }
    }

    enum CodingKeys: String, CodingKey {
        case kind, files
        case inputBytes = "input_bytes"
        case ficPhotosPerSecond = "fic_photos_per_second"
        case ficSeconds = "fic_seconds"
        case ficCPUMillisecondsPerPhoto = "fic_cpu_ms_per_photo"
        case ficPeakRSSBytes = "fic_peak_rss_bytes"
        case vipsCPUMillisecondsPerPhoto = "vips_cpu_ms_per_photo"
        case cpuRatio = "cpu_ratio"
        case vipsPhotosPerSecond = "vips_photos_per_second"
        case vipsSeconds = "vips_seconds"
        case vipsPeakRSSBytes = "vips_peak_rss_bytes"
        case ficOverVips = "fic_over_vips"
    }
}

/// What ``IngestBenchmark`` measured.
public struct IngestBenchmarkResult: Codable, Sendable {
    /// The formats of the family, as described by ``ImageFormat/description``.
    public var formats: [String]
    /// The decodes `fic ingest` ran at a time.
    public var jobs: Int
    /// The memory budget for decodes in flight of the memory runs, in MiB (the timed runs take
    /// `fic ingest`'s default).
    public var memoryBudgetMiB: Int
    /// Where the inputs came from: `generated` or the `--photos` folder.
    public var inputs: String
    /// One entry per kind of input.
    public var results: [IngestFormatResult]
    /// Files in the memory run: the JPEGs (baseline and progressive) repeated many times.
    public var memoryRunFiles: Int?
    /// The peak resident set of `fic ingest` in the memory run, in bytes (target < 150 MiB, and
    /// within a few MiB of the peak with far fewer files: flat in the count).
    public var memoryRunPeakRSSBytes: Int?
    /// The peak of the same ingest with the per-kind count of files, for comparison.
    public var fewFilesPeakRSSBytes: Int?
    /// Each target by name, and whether it was met.
    public var targetsMet: [String: Bool]
    /// Remarks: skipped parts, how figures were obtained.
    public var notes: [String]

    enum CodingKeys: String, CodingKey {
        case formats, jobs, inputs, results, notes
        case memoryBudgetMiB = "memory_budget_mib"
        case memoryRunFiles = "memory_run_files"
        case memoryRunPeakRSSBytes = "memory_run_peak_rss_bytes"
        case fewFilesPeakRSSBytes = "few_files_peak_rss_bytes"
        case targetsMet = "targets_met"
    }
}

/// `fic ingest` (the tool itself, one process per run, its memory measured by the kernel) against
/// `vipsthumbnail` making the largest thumbnail of the same files, per kind of input; then the
/// peak memory of one ingest of many large JPEGs against one of few.
public enum IngestBenchmark {
    /// Sizes of the benchmark.
    public struct Options: Sendable {
        /// Files per kind of input (generated inputs are hard links to a few distinct photos).
        public var count = 48
        /// Distinct generated photos per kind.
        public var distinct = 3
        /// Timed runs of each side (after one untimed warm-up).
        public var runs = 3
        /// Decodes `fic ingest` runs at a time; nil for its default (one per core).
        public var jobs: Int?
        /// `fic ingest --memory`, in MiB, where a benchmark holds memory to a figure: the small-memory
        /// setting (`fic ingest --low-memory`).
        public var memoryBudgetMiB = DecodeMemoryBudget.smallMemoryCapacity >> 20
        /// `fic-bench formats`: only these kinds of input, and only their ingest (nil: all of it).
        public var kinds: Set<String>?
        /// JPEG files of the memory run (0 skips it).
        public var memoryRunCount = 240
        /// A folder of photos to use instead of generated ones.
        public var photos: String?

        /// The default sizes.
        public init() {}
    }

    /// The targets, by name.
    public static let targets: [(name: String, text: String)] = [
        ("fic_over_vips_ge_2", "fic ingest / vipsthumbnail ≥ 2 for every kind of input"),
        ("memory_run_peak_lt_150mib", "peak RSS of the memory run < 150 MiB"),
        ("memory_flat_in_count", "peak RSS of the memory run ≤ that of few files + 16 MiB")
    ]

    /// The family ingested: three formats of grid thumbnails, the largest 300×300 pixels.
    static let formatArguments = [
        "--format", "thumb:75x75@2:rgb565", "--format", "medium:100x100@2:bgrx", "--format", "large:150x150@2:bgra",
        "--family", "photos"
    ]
    static let largestPixelSize = (width: 300, height: 300)

    /// Runs the benchmark; `fic` is the path of the `fic` executable to measure.
    public static func run(fic: String, testdata: String, workDirectory: String, options: Options = Options(), log: (String) -> Void) throws
        -> IngestBenchmarkResult
    {
        let root = (workDirectory as NSString).appendingPathComponent("ingest")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        var notes: [String] = []
        let jobs = options.jobs ?? ProcessInfo.processInfo.activeProcessorCount

        // Inputs, one folder per kind.
        var sets: [(kind: String, files: [String])] = []
        var jpegOriginals: [String] = []
        if let photos = options.photos {
            var byFormat: [String: [String]] = [:]
            for path in try filesUnder(photos) {
                guard let format = sniff(path) else { continue }
                byFormat[format, default: []].append(path)
            }
            for kind in ["jpeg", "png", "webp"] {
                guard let found = byFormat[kind], !found.isEmpty else { continue }
                let folder = try BenchKit.makeFreshDirectory(root, "input-\(kind)")
                var files: [String] = []
                for (index, path) in found.enumerated() {
                    let link = (folder as NSString).appendingPathComponent(
                        String(format: "photo-%05d.", index) + (path as NSString).pathExtension)
                    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
                    files.append(link)
                }
                sets.append((kind, files))
                if kind == "jpeg" { jpegOriginals = found }
            }
            guard !sets.isEmpty else { throw BenchmarkError("no JPEG, PNG or WebP files under \(photos)") }
        } else {
            let generated = (workDirectory as NSString).appendingPathComponent("large-photos")
            for kind in LargePhotoSet.Kind.ingestKinds {
                let originals = try LargePhotoSet.originals(
                    kind, distinct: options.distinct, testdata: testdata, folder: generated, log: log)
                let files = try LargePhotoSet.linkFolder(
                    (root as NSString).appendingPathComponent("input-\(kind.rawValue)"), count: options.count, originals: originals)
                sets.append((kind.rawValue, files))
                if kind == .jpegBaseline || kind == .jpegProgressive { jpegOriginals += originals }
            }
        }

        let vipsthumbnail = Executables.find("vipsthumbnail")
        if vipsthumbnail == nil {
            notes.append("vipsthumbnail is not installed (scripts/install-deps --bench): the comparison was skipped")
        }
        var results: [IngestFormatResult] = []
        for (kind, files) in sets {
            results.append(
                try compare(
                    kind: kind, files: files, fic: fic, vipsthumbnail: vipsthumbnail, jobs: jobs, options: options, memory: nil, root: root,
                    log: log))
        }

        // Memory: many large JPEGs against few.
        var memoryRun: MeasuredRun?
        var fewRun: MeasuredRun?
        if options.memoryRunCount > 0, !jpegOriginals.isEmpty {
            let few = try LargePhotoSet.linkFolder(
                (root as NSString).appendingPathComponent("memory-few"), count: min(options.count, options.memoryRunCount),
                originals: jpegOriginals)
            let many = try LargePhotoSet.linkFolder(
                (root as NSString).appendingPathComponent("memory-many"), count: options.memoryRunCount, originals: jpegOriginals)
            fewRun = try ingest(
                fic: fic, folder: (few[0] as NSString).deletingLastPathComponent, count: few.count, jobs: jobs,
                memory: options.memoryBudgetMiB, root: root)
            memoryRun = try ingest(
                fic: fic, folder: (many[0] as NSString).deletingLastPathComponent, count: many.count, jobs: jobs,
                memory: options.memoryBudgetMiB, root: root)
            log(
                "  memory: \(few.count) JPEGs peak \(BenchKit.mebibytes(fewRun!.peakRSSBytes)), \(many.count) JPEGs peak \(BenchKit.mebibytes(memoryRun!.peakRSSBytes))"
            )
        }

        var met: [String: Bool] = [:]
        let ratios = results.compactMap(\.ficOverVips)
        if !ratios.isEmpty && ratios.count == results.count { met["fic_over_vips_ge_2"] = ratios.allSatisfy { $0 >= 2 } }
        if let memoryRun, let fewRun {
            met["memory_run_peak_lt_150mib"] = memoryRun.peakRSSBytes < 150 << 20
            met["memory_flat_in_count"] = memoryRun.peakRSSBytes <= fewRun.peakRSSBytes + (16 << 20)
        }
        notes.append(
            "both sides are whole processes using every core: fic ingest --jobs \(jobs) stores \(formatArguments.count / 2 - 1) formats (largest \(largestPixelSize.width)×\(largestPixelSize.height)); vipsthumbnail -s \(largestPixelSize.width)x\(largestPixelSize.height) --smartcrop centre writes one JPEG per photo, with its own threads"
        )
        notes.append(
            "photos/s are from the best of \(options.runs) runs after a warm-up run; input files are in the page cache; on a busy machine compare CPU per photo, as photos/s then measure the other work more than either program"
        )
        notes.append(
            MeasuredRun.timeTool == nil
                ? "/usr/bin/time is missing (apt-get install time): peak RSS figures include this process's own peak and are upper bounds"
                : "CPU time and peak RSS of each process are measured by /usr/bin/time")
        return IngestBenchmarkResult(
            formats: stride(from: 1, to: formatArguments.count - 2, by: 2).map { formatArguments[$0] }, jobs: jobs,
            memoryBudgetMiB: options.memoryBudgetMiB, inputs: options.photos ?? "generated", results: results,
            memoryRunFiles: memoryRun == nil ? nil : options.memoryRunCount, memoryRunPeakRSSBytes: memoryRun?.peakRSSBytes,
            fewFilesPeakRSSBytes: fewRun?.peakRSSBytes, targetsMet: met, notes: notes)
    }

    /// `fic ingest` against `vipsthumbnail` (when installed) on `files`, all of one kind.
    /// `memory` is `fic ingest --memory` in MiB, nil for its default.
    static func compare(
        kind: String, files: [String], fic: String, vipsthumbnail: String?, jobs: Int, options: Options, memory: Int?, root: String,
        log: (String) -> Void
    ) throws -> IngestFormatResult {
        let inputBytes = files.reduce(0) { $0 + ((try? FileManager.default.attributesOfItem(atPath: $1)[.size] as? Int) ?? 0) }
        let folder = (files[0] as NSString).deletingLastPathComponent
        log("  \(kind): \(files.count) files, \(BenchKit.mebibytes(inputBytes))")
        var ficRuns: [MeasuredRun] = []
        for run in 0...options.runs {
            let measured = try ingest(fic: fic, folder: folder, count: files.count, jobs: jobs, memory: memory, root: root)
            if run > 0 { ficRuns.append(measured) }
        }
        let ficBest = ficRuns.min { $0.seconds < $1.seconds }!
        var result = IngestFormatResult(
            kind: kind, files: files.count, inputBytes: inputBytes,
            ficPhotosPerSecond: Double(files.count) / ficBest.seconds, ficSeconds: ficRuns.map(\.seconds),
            ficCPUMillisecondsPerPhoto: ficRuns.map(\.cpuSeconds).min()! * 1000 / Double(files.count),
            ficPeakRSSBytes: ficRuns.map(\.peakRSSBytes).max()!
        )
        log(
            "    fic ingest --memory \(memory.map(String.init) ?? "(default)"): \(BenchKit.fixed(result.ficPhotosPerSecond)) photos/s (best of \(options.runs)), \(BenchKit.fixed(result.ficCPUMillisecondsPerPhoto)) ms CPU per photo, peak RSS \(BenchKit.mebibytes(result.ficPeakRSSBytes))"
        )
        if let vipsthumbnail {
            var vipsRuns: [MeasuredRun] = []
            for run in 0...options.runs {
                let out = try BenchKit.makeFreshDirectory(root, "vips-out")
                var total = MeasuredRun(seconds: 0, cpuSeconds: 0, peakRSSBytes: 0, output: "")
                for batch in stride(from: 0, to: files.count, by: 500) {
                    let slice = Array(files[batch..<min(batch + 500, files.count)])
                    // vipsthumbnail takes an output path relative to each input's folder unless absolute.
                    let arguments =
                        [
                            "-s", "\(largestPixelSize.width)x\(largestPixelSize.height)", "--smartcrop", "centre",
                            "-o", (out as NSString).appendingPathComponent("%s.jpg")
                        ] + slice
                    let one = try MeasuredRun.run(vipsthumbnail, arguments)
                    total.seconds += one.seconds
                    total.cpuSeconds += one.cpuSeconds
                    total.peakRSSBytes = max(total.peakRSSBytes, one.peakRSSBytes)
                }
                let made = (try? FileManager.default.contentsOfDirectory(atPath: out).count) ?? 0
                guard made == files.count else { throw BenchmarkError("vipsthumbnail wrote \(made) thumbnails, not \(files.count)") }
                if run > 0 { vipsRuns.append(total) }
            }
            let vipsBest = vipsRuns.map(\.seconds).min()!
            result.vipsPhotosPerSecond = Double(files.count) / vipsBest
            result.vipsSeconds = vipsRuns.map(\.seconds)
            result.vipsPeakRSSBytes = vipsRuns.map(\.peakRSSBytes).max()
            result.ficOverVips = result.ficPhotosPerSecond / result.vipsPhotosPerSecond!
            result.vipsCPUMillisecondsPerPhoto = vipsRuns.map(\.cpuSeconds).min()! * 1000 / Double(files.count)
            result.cpuRatio = result.vipsCPUMillisecondsPerPhoto! / result.ficCPUMillisecondsPerPhoto
            log(
                "    vipsthumbnail: \(BenchKit.fixed(result.vipsPhotosPerSecond!)) photos/s (best of \(options.runs)), \(BenchKit.fixed(result.vipsCPUMillisecondsPerPhoto!)) ms CPU per photo, peak RSS \(BenchKit.mebibytes(result.vipsPeakRSSBytes!)); fic / vips = \(BenchKit.fixed(result.ficOverVips!, 2))× (CPU per photo \(BenchKit.fixed(result.cpuRatio!, 2))×)"
            )
        }
        return result
    }

    /// One `fic ingest` of `folder` into a fresh cache, with `--memory memory` (nil: its default);
    /// checks that every file was added.
    static func ingest(fic: String, folder: String, count: Int, jobs: Int, memory: Int?, root: String) throws -> MeasuredRun {
        let cache = (root as NSString).appendingPathComponent("cache")
        if FileManager.default.fileExists(atPath: cache) { try FileManager.default.removeItem(atPath: cache) }
        let arguments =
            ["ingest", folder, "--cache", cache, "--jobs", "\(jobs)"] + (memory.map { ["--memory", "\($0)"] } ?? []) + formatArguments
        let run = try MeasuredRun.run(fic, arguments)
        guard run.output.contains("\(count) added") else {
            throw BenchmarkError("fic ingest did not add all \(count) files: \(run.output.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        return run
    }

    /// Regular files under `folder`, recursively, sorted.
    private static func filesUnder(_ folder: String) throws -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: folder) else { throw BenchmarkError("cannot list \(folder)") }
        var found: [String] = []
        while let name = enumerator.nextObject() as? String {
            let path = (folder as NSString).appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue { found.append(path) }
        }
        return found.sorted()
    }

    /// "jpeg", "png" or "webp" from the file's first bytes.
    private static func sniff(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 16)) ?? Data()
        return head.withUnsafeBytes { ImageDecoder.sniffFormat($0)?.rawValue }
    }
}
