import FICHarness
import FastImageCache
import Foundation
import Glibc
import ImageTable

/// What ``FirstLookupBenchmark`` measured: the first lookup of each image by a new process,
/// after the process before it closed the cache, after it stopped without closing it (same
/// boot), and after a simulated restart of the system.
public struct FirstLookupBenchmarkResult: Codable, Sendable {
    /// Images stored and each looked up once per process.
    public var images: Int
    /// Their side, in pixels (BGRA).
    public var side: Int
    /// Median over processes of each process's mean first lookup (lookup, `withUnsafeBytes`, one
    /// byte read), ns, when the process before it closed the cache.
    public var afterCleanCloseNs: Double
    /// The same when the process before it ended without `close()` on this boot.
    public var afterStopNs: Double
    /// The same when the table's header names another boot (as after a restart): every entry is
    /// checked on its first lookup.
    public var afterRestartNs: Double
    /// Each process's mean first lookup, ns, per case.
    public var afterCleanCloseRuns: [Double]
    public var afterStopRuns: [Double]
    public var afterRestartRuns: [Double]
    /// Median time to open the cache, ms, per case.
    public var openAfterCleanCloseMs: Double
    public var openAfterStopMs: Double
    public var openAfterRestartMs: Double
    /// `after_stop_ns / after_clean_close_ns` (target ≤ 1.2).
    public var stopOverCleanClose: Double
    /// `after_restart_ns / after_clean_close_ns`.
    public var restartOverCleanClose: Double
}

/// Measures what a stop without `close()` costs the next process: a cache of 300 × 300 BGRA
/// images is opened by a new process again and again, each looking every image up once.
public enum FirstLookupBenchmark {
    static let side = 300
    static let formatName = "first300"
    static let namespace = "first-lookup"

    struct Entity: ImageEntity {
        let entityID: String
        let sourceImageID: String
        func sourceImageURL(for format: ImageFormat) -> URL? { nil }
    }

    static func format(count: Int) throws -> ImageFormat {
        try ImageFormat(
            name: formatName, size: CGSize(width: side / 2, height: side / 2), scale: 2, style: .bgra32Premultiplied, maximumCount: count)
    }

    static func entity(_ i: Int) -> Entity { Entity(entityID: "photo-\(i)", sourceImageID: "v1") }

    /// Stores `count` images drawn from `sources` in a cache under `root`, then measures new
    /// processes of `benchmarks`, the `fic-bench` executable (its hidden `child first-lookups`
    /// command), looking them up.
    static func run(benchmarks: String, root: String, sources: [DecodedImage], count: Int = 2000, runs: Int = 3, log: (String) -> Void)
        throws -> FirstLookupBenchmarkResult
    {
        let directory = (root as NSString).appendingPathComponent("first-lookup")
        do {
            let cache = try ImageCache(directory: directory, namespace: namespace, formats: [try format(count: count)])
            for i in 0..<count { try cache.setImage(sources[i % sources.count], for: entity(i), format: formatName) }
            cache.close()
        }
        log("  first lookups: \(count) images of \(side)×\(side) px BGRA, each looked up once by each new process")
        func child(closes: Bool) throws -> (meanNs: Double, openMs: Double) {
            let run = try MeasuredRun.run(
                benchmarks,
                [BenchmarkExecutables.childCommand, "first-lookups", "--cache", directory, "--count", "\(count)"]
                    + (closes ? [] : ["--stop-without-close"]))
            guard let line = run.output.split(separator: "\n").last,
                let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let mean = object["mean_ns"] as? Double, let open = object["open_ms"] as? Double, let misses = object["misses"] as? Int
            else { throw BenchmarkError("the first-lookup child printed no figures: \(run.output.suffix(300))") }
            guard misses == 0 else { throw BenchmarkError("the first-lookup child missed \(misses) images") }
            return (mean, open)
        }
        // A first process after the store, untimed: every case starts with the file in the page cache.
        _ = try child(closes: true)
        var clean: [(meanNs: Double, openMs: Double)] = [], stop: [(meanNs: Double, openMs: Double)] = [],
            restart: [(meanNs: Double, openMs: Double)] = []
        for _ in 0..<runs { clean.append(try child(closes: true)) }
        _ = try child(closes: false)  // leaves the cache open: every run below follows a stop without close
        for _ in 0..<runs { stop.append(try child(closes: false)) }
        for _ in 0..<runs {
            try simulateRestart(directory)
            restart.append(try child(closes: false))
        }
        func median(_ values: [Double]) -> Double { BenchTiming(values).median }
        let result = FirstLookupBenchmarkResult(
            images: count, side: side,
            afterCleanCloseNs: median(clean.map(\.meanNs)), afterStopNs: median(stop.map(\.meanNs)),
            afterRestartNs: median(restart.map(\.meanNs)),
            afterCleanCloseRuns: clean.map(\.meanNs), afterStopRuns: stop.map(\.meanNs), afterRestartRuns: restart.map(\.meanNs),
            openAfterCleanCloseMs: median(clean.map(\.openMs)), openAfterStopMs: median(stop.map(\.openMs)),
            openAfterRestartMs: median(restart.map(\.openMs)),
            stopOverCleanClose: median(stop.map(\.meanNs)) / median(clean.map(\.meanNs)),
            restartOverCleanClose: median(restart.map(\.meanNs)) / median(clean.map(\.meanNs)))
        log(
            "  first lookup after a clean close \(BenchKit.fixed(result.afterCleanCloseNs / 1000, 2)) µs, after a stop without close \(BenchKit.fixed(result.afterStopNs / 1000, 2)) µs (\(BenchKit.fixed(result.stopOverCleanClose, 2))×), after a restart \(BenchKit.fixed(result.afterRestartNs / 1000, 2)) µs"
        )
        try? FileManager.default.removeItem(atPath: directory)
        return result
    }

    /// Makes every table of the cache name another boot, as after a restart of the system.
    static func simulateRestart(_ directory: String) throws {
        let folder = (directory as NSString).appendingPathComponent(namespace)
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) where name.hasSuffix(ImageCache.fileExtension) {
            guard let handle = FileHandle(forUpdatingAtPath: (folder as NSString).appendingPathComponent(name)) else {
                throw BenchmarkError("cannot open \(name) to simulate a restart")
            }
            defer { try? handle.close() }
            try handle.seek(toOffset: UInt64(TableFileFormat.bootIdentifierOffset))
            try handle.write(contentsOf: Data((0..<TableFileFormat.bootIdentifierLength).map { _ in UInt8.random(in: 1...255) }))
        }
    }

    /// The child's side: opens the cache, looks each of `count` images up once in a shuffled
    /// order (lookup, `withUnsafeBytes`, one byte read), and prints one JSON line of figures.
    /// Unless `closes`, the process then ends at once, with the cache still open, as a killed
    /// application's does (no deinitialiser runs).
    public static func child(directory: String, count: Int, closes: Bool) throws {
        let clock = ContinuousClock()
        let start = clock.now
        let cache = try ImageCache(directory: directory, namespace: namespace, formats: [try format(count: count)])
        let openMs = BenchKit.nanoseconds(clock.now - start) / 1e6
        var generator = SplitMix64(seed: 0xF1257)
        let order = Array(0..<count).shuffled(using: &generator)
        let entities = order.map(entity)
        var sink: UInt8 = 0
        var misses = 0
        let lookups = clock.now
        for e in entities {
            if let image = cache.cachedImage(for: e, format: formatName) {
                sink ^= image.withUnsafeBytes { $0[0] }
            } else {
                misses += 1
            }
        }
        let meanNs = BenchKit.nanoseconds(clock.now - lookups) / Double(count)
        BenchKit.blackHole(sink)
        let report = cache.openReports[formatName]
        if closes { cache.close() }
        let figures: [String: Any] = [
            "mean_ns": meanNs, "open_ms": openMs, "misses": misses, "entries_checked": report?.entriesToCheck ?? -1
        ]
        print(String(decoding: try JSONSerialization.data(withJSONObject: figures), as: UTF8.self))
        fflush(nil)  // every stream: the process may end without flushing its own
        if !closes { withExtendedLifetime(cache) { _exit(0) } }
    }
}
