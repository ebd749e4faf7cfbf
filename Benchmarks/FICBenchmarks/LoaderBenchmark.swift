import FICHarness
import FastImageCache
import Foundation
import ImageLoader

/// What ``LoaderBenchmark`` measured.
public struct LoaderBenchmarkResult: Codable, Sendable {
    /// Photos served by nginx (generated for the run).
    public var photos: Int
    /// Their mean size in bytes.
    public var meanPhotoBytes: Int
    /// The emulated link's total rate, bytes per second.
    public var linkBytesPerSecond: Int
    /// Fetch slots of the fast lane (the slow lane has one; the FIFO baseline has both together).
    public var fastFetches: Int
    /// Images on screen, requested at once.
    public var visible: Int
    /// Prefetches queued just before the visible images in the flood runs.
    public var prefetched: Int
    /// Milliseconds until the visible images are in the cache, nothing else queued.
    public var visibleAloneMs: Double
    /// The same right after the prefetches were queued, with the lanes.
    public var visibleUnderFloodMs: Double
    /// The same with one first-come-first-served queue of the same concurrency.
    public var fifoUnderFloodMs: Double
    /// `visible_under_flood_ms / visible_alone_ms` (target ≤ 1.25).
    public var underFloodOverAlone: Double
    /// `fifo_under_flood_ms / visible_alone_ms`.
    public var fifoOverAlone: Double
    /// Body bytes downloaded by the lane runs (alone and flood, every prefetch, promotion and
    /// duplicate request included).
    public var bytesDownloaded: Int
    /// Bytes of the distinct photos those runs asked for (target: equal to `bytes_downloaded`).
    public var uniqueBytes: Int
    /// Jobs promoted from the slow to the fast lane in the flood run.
    public var promotions: Int
    /// Photos fetched to disk without a link limit.
    public var throughputImages: Int
    /// Downloads in flight at once, for both sides.
    public var throughputParallel: Int
    /// Photos per second fetched into the originals cache by the loader (best run).
    public var fetchToDiskImagesPerSecond: Double
    /// Seconds of every run of the loader.
    public var fetchToDiskSeconds: [Double]
    /// Photos per second fetched to files by `curl --parallel` (best run; nil when curl is missing).
    public var curlImagesPerSecond: Double?
    /// Seconds of every run of curl.
    public var curlSeconds: [Double]
    /// `fetch_to_disk_images_per_second / curl_images_per_second` (target ≥ 0.8).
    public var oursOverCurl: Double?
    /// Each target by name, and whether it was met.
    public var targetsMet: [String: Bool]
    /// Remarks.
    public var notes: [String]

    enum CodingKeys: String, CodingKey {
        case photos, visible, prefetched, promotions, notes
        case meanPhotoBytes = "mean_photo_bytes"
        case linkBytesPerSecond = "link_bytes_per_second"
        case fastFetches = "fast_fetches"
        case visibleAloneMs = "visible_alone_ms"
        case visibleUnderFloodMs = "visible_under_flood_ms"
        case fifoUnderFloodMs = "fifo_under_flood_ms"
        case underFloodOverAlone = "under_flood_over_alone"
        case fifoOverAlone = "fifo_over_alone"
        case bytesDownloaded = "bytes_downloaded"
        case uniqueBytes = "unique_bytes"
        case throughputImages = "throughput_images"
        case throughputParallel = "throughput_parallel"
        case fetchToDiskImagesPerSecond = "fetch_to_disk_images_per_second"
        case fetchToDiskSeconds = "fetch_to_disk_seconds"
        case curlImagesPerSecond = "curl_images_per_second"
        case curlSeconds = "curl_seconds"
        case oursOverCurl = "ours_over_curl"
        case targetsMet = "targets_met"
    }
}

/// Measures the lanes on a slow link (nginx behind a 4 MB/s link): how long the images on screen
/// take alone, after a flood of prefetches, and after the same flood in one FIFO queue; and the
/// loader's fetch-to-disk throughput without a link limit against `curl --parallel`.
public enum LoaderBenchmark {
    /// Sizes of the benchmark.
    public struct Options: Sendable {
        /// Photos served on the slow link.
        public var photos = 600
        /// Photos fetched for the throughput comparison.
        public var throughputPhotos = 1000
        /// The link's total rate.
        public var linkBytesPerSecond = 4_000_000
        /// Images on screen.
        public var visible = 24
        /// Prefetches queued before them.
        public var prefetched = 500
        /// Downloads in flight in the throughput comparison.
        public var parallel = 8
        /// Runs of each side of the throughput comparison (the best counts).
        public var throughputRuns = 3
        /// The default sizes.
        public init() {}
    }

    /// A photo of the benchmark.
    struct Photo: ImageEntity {
        let index: Int
        let url: URL
        var entityID: String { "photo-\(index)" }
        var sourceImageID: String { "v1" }
        func sourceImageURL(for format: ImageFormat) -> URL? { url }
    }

    /// Runs the benchmark with files in `workDirectory`.
    public static func run(testdata: String, workDirectory: String, options: Options = Options(), log: (String) -> Void) async throws
        -> LoaderBenchmarkResult
    {
        let work = try BenchKit.makeFreshDirectory(workDirectory, "loader")
        let www = work + "/www"
        log("generating \(max(options.photos, options.throughputPhotos)) photos of about 200 KB…")
        let sizes = try PhotoSet.generate(
            count: max(options.photos, options.throughputPhotos), from: testdata, into: www, scratch: work + "/scratch")
        let nginx = try LocalNginx(root: www, prefix: work + "/nginx")
        defer { nginx.stop() }
        let link = try ThrottledLink(targetPort: nginx.port, bytesPerSecond: options.linkBytesPerSecond)
        defer { link.stop() }
        let linked = URL(string: "http://127.0.0.1:\(link.port)")!
        func photo(_ i: Int, _ base: URL = linked) -> Photo { Photo(index: i, url: base.appendingPathComponent("\(i).jpg")) }
        let formats = [
            try ImageFormat(
                name: "thumb", family: "grid", size: CGSize(width: 75, height: 75), scale: 2, style: .rgb565, maximumCount: 2000),
            try ImageFormat(
                name: "small", family: "grid", size: CGSize(width: 32, height: 32), scale: 2, style: .bgra32Premultiplied,
                maximumCount: 2000)
        ]
        func makeCache(_ name: String, lanes: RequestLanes) throws -> (ImageCache, OriginalsLoader) {
            let loader = OriginalsLoader(originals: try OriginalsCache(directory: work + "/\(name)-originals", maximumBytes: 1 << 30))
            let cache = try ImageCache(directory: work + "/\(name)-cache", formats: formats, provider: loader)
            cache.requestLanes = lanes
            return (cache, loader)
        }
        func timeVisible(_ cache: ImageCache, _ visible: [Photo], priority: RequestPriority) async throws -> Double {
            let start = ContinuousClock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                // Each visible image is asked for twice (two cells, or a redraw): duplicates coalesce.
                for p in visible + visible { group.addTask { _ = try await cache.image(for: p, format: "thumb", priority: priority) } }
                try await group.waitForAll()
            }
            return BenchKit.nanoseconds(ContinuousClock.now - start) / 1e6
        }
        let lanes = RequestLanes()
        var notes: [String] = []
        // 1. The visible images alone.
        let aloneSet = (0..<options.visible).map { photo($0) }
        let (alone, aloneLoader) = try makeCache("alone", lanes: lanes)
        let aloneMs = try await timeVisible(alone, aloneSet, priority: .high)
        log(String(format: "visible alone: %.0f ms", aloneMs))

        // 2. The same number after a flood of prefetches: half of them queued prefetches (the
        //    last ones queued, so promotion is what brings them forward), half new.
        let floodBase = options.visible
        let prefetchSet = (floodBase..<(floodBase + options.prefetched)).map { photo($0) }
        let half = options.visible / 2
        let visibleSet =
            Array(prefetchSet.suffix(half))
            + ((floodBase + options.prefetched)..<(floodBase + options.prefetched + options.visible - half)).map { photo($0) }
        let (flood, floodLoader) = try makeCache("flood", lanes: lanes)
        flood.prefetch(prefetchSet, format: "thumb")
        let floodMs = try await timeVisible(flood, visibleSet, priority: .high)
        let promotions = flood.requestStatistics.promotions
        log(String(format: "visible under a flood of %d prefetches: %.0f ms", options.prefetched, floodMs))
        // Let the prefetches finish (asked for in the fast lane now, so this is quick), so that
        // every byte downloaded belongs to a complete photo.
        log("finishing the prefetches…")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for p in prefetchSet { group.addTask { _ = try await flood.image(for: p, format: "thumb", priority: .normal) } }
            try await group.waitForAll()
        }
        let requested = Set(aloneSet.map(\.index) + prefetchSet.map(\.index) + visibleSet.map(\.index))
        let uniqueBytes = requested.reduce(0) { $0 + sizes[$1] }
        let bytesDownloaded = aloneLoader.statistics.bytesDownloaded + floodLoader.statistics.bytesDownloaded
        alone.close()
        flood.close()
        try await aloneLoader.shutdown()
        try await floodLoader.shutdown()

        // 3. The flood in one FIFO queue of the same concurrency: everything at one priority.
        let (fifo, fifoLoader) = try makeCache("fifo", lanes: RequestLanes(fastFetches: lanes.fastFetches + lanes.slowFetches))
        fifo.prefetch(prefetchSet, format: "thumb", priority: .normal)
        let fifoMs = try await timeVisible(fifo, visibleSet, priority: .normal)
        log(String(format: "visible under the flood, FIFO: %.0f ms", fifoMs))
        fifo.close()
        try await fifoLoader.shutdown()
        link.stop()

        // 4. Fetch to disk without a link limit: the loader into a fresh originals cache, and curl
        //    into a fresh folder, taking turns; the best run of each counts (the machine is shared).
        let direct = (0..<options.throughputPhotos).map { nginx.base.appendingPathComponent("\($0).jpg") }
        log("fetching \(direct.count) photos to disk, \(options.parallel) at a time, \(options.throughputRuns) runs each…")
        let curl = Executables.find("curl")
        if curl == nil { notes.append("curl is not installed: no baseline for the throughput") }
        var oursSeconds: [Double] = []
        var curlSeconds: [Double] = []
        for run in 0..<options.throughputRuns {
            let loader = OriginalsLoader(
                configuration: LoaderConfiguration(connectionsPerHost: options.parallel),
                originals: try OriginalsCache(directory: work + "/disk-originals-\(run)", maximumBytes: 2 << 30))
            oursSeconds.append(try await fetchToDisk(direct, loader: loader, parallel: options.parallel))
            try await loader.shutdown()
            if let curl { curlSeconds.append(try curlToDisk(direct, curl: curl, parallel: options.parallel, into: work + "/curl-\(run)")) }
        }
        let oursRate = Double(direct.count) / oursSeconds.min()!
        let curlRate = curlSeconds.min().map { Double(direct.count) / $0 }
        log(
            String(
                format: "fetch to disk: %.0f photos/s (curl: %@)", oursRate, curlRate.map { String(format: "%.0f photos/s", $0) } ?? "n/a"))

        let mean = sizes.prefix(options.photos).reduce(0, +) / max(1, options.photos)
        var targets: [String: Bool] = [
            "under_flood_le_1_25_alone": floodMs <= 1.25 * aloneMs,
            "bytes_downloaded_eq_unique": bytesDownloaded == uniqueBytes
        ]
        if let curlRate { targets["fetch_to_disk_ge_0_8_curl"] = oursRate >= 0.8 * curlRate }
        notes.append(
            "the link is a relay in this process with one token bucket for all connections; nginx's per-response limit_rate lets each response's first second of bytes through at once, so it cannot emulate a shared link for 200 KB photos"
        )
        return LoaderBenchmarkResult(
            photos: options.photos, meanPhotoBytes: mean, linkBytesPerSecond: options.linkBytesPerSecond,
            fastFetches: lanes.fastFetches, visible: options.visible, prefetched: options.prefetched,
            visibleAloneMs: aloneMs, visibleUnderFloodMs: floodMs, fifoUnderFloodMs: fifoMs,
            underFloodOverAlone: floodMs / aloneMs, fifoOverAlone: fifoMs / aloneMs,
            bytesDownloaded: bytesDownloaded, uniqueBytes: uniqueBytes, promotions: promotions,
            throughputImages: direct.count, throughputParallel: options.parallel,
            fetchToDiskImagesPerSecond: oursRate, fetchToDiskSeconds: oursSeconds, curlImagesPerSecond: curlRate, curlSeconds: curlSeconds,
            oursOverCurl: curlRate.map { oursRate / $0 },
            targetsMet: targets, notes: notes)
    }

    /// Downloads every URL into the loader's originals cache, `parallel` at a time; seconds taken.
    static func fetchToDisk(_ urls: [URL], loader: OriginalsLoader, parallel: Int) async throws -> Double {
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Int.self) { group in
            var next = 0
            func add() {
                guard next < urls.count else { return }
                let url = urls[next]
                next += 1
                group.addTask {
                    var n = 0
                    for try await chunk in try await loader.download(url).chunks { n += chunk.count }
                    return n
                }
            }
            for _ in 0..<parallel { add() }
            while try await group.next() != nil { add() }
        }
        return BenchKit.nanoseconds(ContinuousClock.now - start) / 1e9
    }

    /// `curl --parallel` fetching every URL to a file; seconds taken (the whole process).
    static func curlToDisk(_ urls: [URL], curl: String, parallel: Int, into folder: String) throws -> Double {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let config = urls.enumerated().map { "url = \"\($1.absoluteString)\"\noutput = \"\(folder)/\($0).jpg\"" }.joined(separator: "\n")
        try config.write(toFile: folder + ".conf", atomically: true, encoding: .utf8)
        let start = ContinuousClock.now
        try BenchmarkProcess.run(
            curl, ["--parallel", "--parallel-max", "\(parallel)", "--silent", "--show-error", "--fail", "--config", folder + ".conf"])
        return BenchKit.nanoseconds(ContinuousClock.now - start) / 1e9
    }
}
