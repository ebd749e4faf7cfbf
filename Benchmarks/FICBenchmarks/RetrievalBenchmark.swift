import FICHarness
import FastImageCache
import Foundation
import ImageCodec
import ImageTable

/// What ``RetrievalBenchmark`` measured. Times are nanoseconds per operation (the median of
/// several runs; every run is in the `*_timing` fields).
public struct RetrievalBenchmarkResult: Codable, Sendable {
    /// Entities stored in the cache and cycled through.
    public var entities: Int
    /// Width and height of every image, in pixels.
    public var pixelWidth: Int
    /// Height of every image, in pixels.
    public var pixelHeight: Int

    /// `cache.cachedImage(for:format:)` and releasing the image, ns per call.
    public var lookupNs: Double
    /// A reader's hold and release of a slot in a side file's cells (``SlotCells``), ns: what
    /// sharing a table between processes will add to each lookup.
    public var sharedHoldReleaseNs: Double
    /// The same plus reading every pixel (summed as 64-bit words), ns per image.
    public var readNs: Double
    /// Baseline: a `[String: [UInt8]]` of the same bitmaps, lookup plus reading every pixel.
    public var inMemoryReadNs: Double
    /// Baseline: reading and decoding the image's own quality-80 JPEG, plus reading every pixel.
    /// Nil when `cjpeg` is not installed.
    public var conventionalNs: Double?

    /// Every run of the lookup measurement.
    public var lookupTiming: BenchTiming
    /// Every run of the read measurement.
    public var readTiming: BenchTiming
    /// Every run of the in-memory baseline.
    public var inMemoryReadTiming: BenchTiming
    /// Every run of the conventional baseline.
    public var conventionalTiming: BenchTiming?
    /// Mean size of the small JPEG files of the conventional baseline.
    public var conventionalJPEGBytes: Int?

    /// `read_ns / in_memory_read_ns` (target ≤ 1.5).
    public var readOverInMemory: Double
    /// `conventional_ns / read_ns` (target ≥ 100).
    public var conventionalOverRead: Double?
    /// `conventional_ns / lookup_ns`: decoding against handing out the image without touching it.
    public var conventionalOverLookup: Double?
    /// `conventional_ns / in_memory_read_ns`: the most `conventional_over_read` could be if
    /// reading from the cache cost no more than reading from memory.
    public var conventionalOverInMemoryRead: Double?

    /// Entries per bucket of the insert measurement.
    public var insertBucketSize: Int
    /// Mean time of one insert in each bucket, ns, while the table fills from empty. It includes
    /// the kernel's first-touch page faults on the new slot's file pages.
    public var insertBucketNs: [Double]
    /// The part of `insert_bucket_ns` spent in the draw closure (copying 200 rows into the new
    /// slot, including the kernel's first-touch page faults on the fresh file pages).
    public var insertBucketDrawNs: [Double]
    /// The median insert of each bucket, not counting its draw closure: the engine's own work
    /// (reserving and growing, checksumming, committing). Medians, so that preemption by other
    /// processes does not hide whether the work grows with the table.
    public var insertBucketEngineNs: [Double]
    /// Mean bytes written per insert in each bucket (from `TableStatistics.bytesWritten`).
    public var insertBucketBytes: [Double]
    /// Largest over smallest bucket of `insert_bucket_ns` (target ≤ 1.5: constant).
    public var insertTimeMaxOverMin: Double
    /// Largest over smallest bucket of `insert_bucket_engine_ns` (target ≤ 1.5: constant).
    public var insertEngineTimeMaxOverMin: Double
    /// Largest over smallest bucket of `insert_bucket_bytes` (target ≤ 1.01: constant).
    public var insertBytesMaxOverMin: Double

    /// The first lookup of each image by a new process, after a clean close, after a stop without
    /// close and after a simulated restart; nil when the `fic-bench` executable was not given.
    public var firstLookup: FirstLookupBenchmarkResult?

    /// Each target by name, and whether it was met.
    public var targetsMet: [String: Bool]
    /// Remarks: skipped parts, how figures were obtained.
    public var notes: [String]

    enum CodingKeys: String, CodingKey {
        case entities
        case pixelWidth = "pixel_width"
        case pixelHeight = "pixel_height"
        case lookupNs = "lookup_ns"
        case sharedHoldReleaseNs = "shared_hold_release_ns"
        case readNs = "read_ns"
        case inMemoryReadNs = "in_memory_read_ns"
        case conventionalNs = "conventional_ns"
        case lookupTiming = "lookup_timing"
        case readTiming = "read_timing"
        case inMemoryReadTiming = "in_memory_read_timing"
        case conventionalTiming = "conventional_timing"
        case conventionalJPEGBytes = "conventional_jpeg_bytes"
        case readOverInMemory = "read_over_in_memory"
        case conventionalOverRead = "conventional_over_read"
        case conventionalOverLookup = "conventional_over_lookup"
        case conventionalOverInMemoryRead = "conventional_over_in_memory_read"
        case insertBucketSize = "insert_bucket_size"
        case insertBucketNs = "insert_bucket_ns"
        case insertBucketDrawNs = "insert_bucket_draw_ns"
        case insertBucketEngineNs = "insert_bucket_engine_ns"
        case insertBucketBytes = "insert_bucket_bytes"
        case insertTimeMaxOverMin = "insert_time_max_over_min"
        case insertEngineTimeMaxOverMin = "insert_engine_time_max_over_min"
        case insertBytesMaxOverMin = "insert_bytes_max_over_min"
        case firstLookup = "first_lookup"
        case targetsMet = "targets_met"
        case notes
    }

    /// Encodes every field; absent optional figures are written as `null` rather than left out.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(entities, forKey: .entities)
        try c.encode(pixelWidth, forKey: .pixelWidth)
        try c.encode(pixelHeight, forKey: .pixelHeight)
        try c.encode(lookupNs, forKey: .lookupNs)
        try c.encode(sharedHoldReleaseNs, forKey: .sharedHoldReleaseNs)
        try c.encode(readNs, forKey: .readNs)
        try c.encode(inMemoryReadNs, forKey: .inMemoryReadNs)
        try c.encode(conventionalNs, forKey: .conventionalNs)
        try c.encode(lookupTiming, forKey: .lookupTiming)
        try c.encode(readTiming, forKey: .readTiming)
        try c.encode(inMemoryReadTiming, forKey: .inMemoryReadTiming)
        try c.encode(conventionalTiming, forKey: .conventionalTiming)
        try c.encode(conventionalJPEGBytes, forKey: .conventionalJPEGBytes)
        try c.encode(readOverInMemory, forKey: .readOverInMemory)
        try c.encode(conventionalOverRead, forKey: .conventionalOverRead)
        try c.encode(conventionalOverLookup, forKey: .conventionalOverLookup)
        try c.encode(conventionalOverInMemoryRead, forKey: .conventionalOverInMemoryRead)
        try c.encode(insertBucketSize, forKey: .insertBucketSize)
        try c.encode(insertBucketNs, forKey: .insertBucketNs)
        try c.encode(insertBucketDrawNs, forKey: .insertBucketDrawNs)
        try c.encode(insertBucketEngineNs, forKey: .insertBucketEngineNs)
        try c.encode(insertBucketBytes, forKey: .insertBucketBytes)
        try c.encode(insertTimeMaxOverMin, forKey: .insertTimeMaxOverMin)
        try c.encode(insertEngineTimeMaxOverMin, forKey: .insertEngineTimeMaxOverMin)
        try c.encode(insertBytesMaxOverMin, forKey: .insertBytesMaxOverMin)
        try c.encode(firstLookup, forKey: .firstLookup)
        try c.encode(targetsMet, forKey: .targetsMet)
        try c.encode(notes, forKey: .notes)
    }
}

/// Measures the synchronous retrieval path of ``ImageCache`` against an in-memory dictionary and
/// against decoding a small JPEG per image (the original demo's "conventional" path), and how
/// inserting into an ``ImageTable`` behaves while it fills.
public enum RetrievalBenchmark {
    /// Sizes of the benchmark.
    public struct Options: Sendable {
        /// Entities stored and cycled through (each a 200 × 200 BGRA image).
        public var entityCount = 300
        /// Lookups per timed run.
        public var lookupsPerRun = 200_000
        /// Passes over all entities per timed run of the read measurements.
        public var readPassesPerRun = 4
        /// Timed runs of each measurement (after one untimed warm-up).
        public var runs = 7
        /// Entries inserted into the fill-up table.
        public var insertCount = 10_000
        /// Entries per bucket of the fill-up measurement.
        public var insertBucketSize = 1_000

        /// The default sizes.
        public init() {}
    }

    /// The targets, by name.
    public static let targets: [(name: String, text: String)] = [
        ("lookup_le_500ns", "lookup ≤ 500 ns"),
        ("read_over_in_memory_le_1_5", "read / in-memory ≤ 1.5"),
        ("conventional_over_lookup_ge_100", "conventional / retrieval ≥ 100"),
        ("conventional_over_read_ge_100", "conventional / (retrieval + read every pixel) ≥ 100"),
        ("insert_engine_time_constant", "insert time outside the draw closure max/min ≤ 1.5 over the fill"),
        ("insert_bytes_constant", "bytes per insert max/min ≤ 1.01 over the fill"),
        ("first_lookup_after_stop_le_1_2x_clean_close", "first lookup after a stop without close ≤ 1.2 × after a clean close")
    ]

    struct Entity: ImageEntity {
        let entityID: String
        let sourceImageID: String
        func sourceImageURL(for format: ImageFormat) -> URL? { nil }
    }

    /// Runs the benchmark with the photos of `testdata` (its `photos` folder if it has one),
    /// keeping its files in a folder of `workDirectory` that is removed afterwards; `benchmarks`,
    /// the `fic-bench` executable, runs the processes of the first-lookup measurement.
    public static func run(
        testdata: String, workDirectory: String, benchmarks: String?, options: Options = Options(), log: (String) -> Void
    ) throws -> RetrievalBenchmarkResult {
        let side = 200
        let rowBytes = side * 4
        let root = try BenchKit.makeFreshDirectory(workDirectory, "retrieval-\(getpid())")
        defer { try? FileManager.default.removeItem(atPath: root) }
        var notes: [String] = []

        // Sources: every test photo decoded once, near the size the format needs.
        let photoPaths = BenchKit.photos(in: testdata)
        var sources: [DecodedImage] = []
        for path in photoPaths {
            do {
                sources.append(
                    try ImageDecoder.decode(contentsOf: path, options: DecodingOptions(targetSize: PixelSize(width: side, height: side))))
            } catch {
                log("  skipping \((path as NSString).lastPathComponent): \(error)")
            }
        }
        guard !sources.isEmpty else { throw BenchmarkError("no decodable photos in \(testdata)") }
        log("  \(sources.count) source photos, \(options.entityCount) entities of \(side)×\(side) px BGRA")

        // The cache, filled with one image per entity.
        let formatName = "bench200"
        let format = try ImageFormat(
            name: formatName, size: CGSize(width: 100, height: 100), scale: 2, style: .bgra32Premultiplied,
            maximumCount: options.entityCount)
        let cache = try ImageCache(directory: (root as NSString).appendingPathComponent("cache"), namespace: "retrieval", formats: [format])
        defer { cache.close() }
        let entities = (0..<options.entityCount).map { Entity(entityID: "photo-\($0)", sourceImageID: "v1") }
        for (i, entity) in entities.enumerated() {
            try cache.setImage(sources[i % sources.count], for: entity, format: formatName)
        }

        // The same bitmaps in memory, tightly packed.
        var bitmaps: [String: [UInt8]] = [:]
        for entity in entities {
            guard let image = cache.cachedImage(for: entity, format: formatName) else {
                throw BenchmarkError("entity \(entity.entityID) is missing right after it was stored")
            }
            precondition(image.width == side && image.height == side, "unexpected stored size")
            var bytes = [UInt8](repeating: 0, count: rowBytes * side)
            bytes.withUnsafeMutableBytes { dst in
                for y in 0..<side {
                    (dst.baseAddress! + y * rowBytes).copyMemory(from: image.baseAddress + y * image.bytesPerRow, byteCount: rowBytes)
                }
            }
            bitmaps[entity.entityID] = bytes
        }

        // One shuffled order of entities, shared by every measurement.
        var generator = SplitMix64(seed: 0x5EED)
        let order = Array(0..<entities.count).shuffled(using: &generator)

        // (a) lookup only.
        var addressSink: UInt = 0
        var misses = 0
        let lookups = options.lookupsPerRun
        let lookup = BenchKit.measure(runs: options.runs, operationsPerRun: lookups) {
            var k = 0
            for _ in 0..<lookups {
                if let image = cache.cachedImage(for: entities[order[k]], format: formatName) {
                    addressSink ^= UInt(bitPattern: image.baseAddress)
                } else {
                    misses += 1
                }
                k += 1
                if k == order.count { k = 0 }
            }
        }
        BenchKit.blackHole(addressSink)
        guard misses == 0 else { throw BenchmarkError("\(misses) lookups missed") }
        log("  lookup: \(BenchKit.fixed(lookup.median)) ns (best \(BenchKit.fixed(lookup.best)))")

        // (a′) what tables shared between processes will add to each lookup: holding the slot.
        let sharedHold = try SharedHoldBenchmark.measure(slots: entities.count, order: order, runs: options.runs, operationsPerRun: lookups)
        log("  shared-state hold + release of a slot: \(BenchKit.fixed(sharedHold.median)) ns (best \(BenchKit.fixed(sharedHold.best)))")

        // (b) lookup and read every pixel.
        let reads = options.readPassesPerRun * entities.count
        var sum: UInt64 = 0
        let read = BenchKit.measure(runs: options.runs, operationsPerRun: reads) {
            for _ in 0..<options.readPassesPerRun {
                for index in order {
                    guard let image = cache.cachedImage(for: entities[index], format: formatName) else { misses += 1; continue }
                    sum &+= BenchKit.sumPixelWords(
                        image.baseAddress, rowBytes: rowBytes, bytesPerRow: image.bytesPerRow, height: image.height)
                }
            }
        }
        guard misses == 0 else { throw BenchmarkError("\(misses) lookups missed") }
        let cacheChecksum = sum
        log("  lookup + read: \(BenchKit.fixed(read.median)) ns (best \(BenchKit.fixed(read.best)))")

        // (c) baseline: a dictionary of the same bitmaps.
        sum = 0
        let inMemory = BenchKit.measure(runs: options.runs, operationsPerRun: reads) {
            for _ in 0..<options.readPassesPerRun {
                for index in order {
                    guard let bytes = bitmaps[entities[index].entityID] else { misses += 1; continue }
                    sum &+= bytes.withUnsafeBytes {
                        BenchKit.sumPixelWords($0.baseAddress!, rowBytes: rowBytes, bytesPerRow: rowBytes, height: side)
                    }
                }
            }
        }
        guard misses == 0 else { throw BenchmarkError("\(misses) dictionary lookups missed") }
        guard sum == cacheChecksum else { throw BenchmarkError("the dictionary's pixels differ from the cache's") }
        log("  in-memory dictionary + read: \(BenchKit.fixed(inMemory.median)) ns (best \(BenchKit.fixed(inMemory.best)))")

        // (d) baseline: decode each image's own small JPEG, as the original demo's conventional path.
        var conventional: BenchTiming?
        var jpegBytes: Int?
        if let cjpeg = Executables.find("cjpeg") {
            let folder = try BenchKit.makeFreshDirectory(root, "jpeg")
            var thumbnails: [String] = []
            for p in 0..<min(sources.count, entities.count) {
                let ppm = (folder as NSString).appendingPathComponent("thumb-\(p).ppm")
                let jpeg = (folder as NSString).appendingPathComponent("thumb-\(p).jpg")
                try writePPM(bitmaps[entities[p].entityID]!, width: side, height: side, to: ppm)
                try BenchmarkProcess.run(cjpeg, ["-quality", "80", "-outfile", jpeg, ppm])
                thumbnails.append(jpeg)
            }
            var paths: [String] = []
            var totalBytes = 0
            for (i, entity) in entities.enumerated() {
                let path = (folder as NSString).appendingPathComponent("\(entity.entityID).jpg")
                try FileManager.default.copyItem(atPath: thumbnails[i % thumbnails.count], toPath: path)
                totalBytes += (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
                paths.append(path)
            }
            jpegBytes = totalBytes / paths.count
            var failure: (any Error)?
            sum = 0
            let timing = BenchKit.measure(runs: max(3, options.runs / 2), operationsPerRun: entities.count) {
                for index in order {
                    do {
                        let image = try ImageDecoder.decode(contentsOf: paths[index])
                        sum &+= BenchKit.sumPixelWords(
                            image.baseAddress, rowBytes: image.width * 4, bytesPerRow: image.bytesPerRow, height: image.height)
                    } catch {
                        failure = error
                    }
                }
            }
            if let failure { throw failure }
            BenchKit.blackHole(sum)
            conventional = timing
            log(
                "  conventional (read + decode a \(jpegBytes!)-byte JPEG + read): \(BenchKit.fixed(timing.median)) ns (best \(BenchKit.fixed(timing.best)))"
            )
        } else {
            notes.append("cjpeg is not installed (apt-get install libjpeg-turbo-progs): the conventional baseline was skipped")
            log("  conventional: skipped, cjpeg is not installed")
        }

        // (e) inserting while a table fills from empty.
        let fill = try measureFill(
            root: root, bitmaps: entities.prefix(sources.count).map { bitmaps[$0.entityID]! }, side: side, options: options, log: log)

        // (f) the first lookup of each image by a new process: after a clean close, a stop without close, a restart.
        let firstLookup = try benchmarks.map { try FirstLookupBenchmark.run(benchmarks: $0, root: root, sources: sources, log: log) }

        let readOverInMemory = read.median / inMemory.median
        let conventionalOverRead = conventional.map { $0.median / read.median }
        func spread(_ values: [Double]) -> Double { (values.max() ?? 0) / max(values.min() ?? 1, 1e-9) }
        let timeRatio = spread(fill.total)
        let engineRatio = spread(fill.engine)
        let bytesRatio = spread(fill.bytes)
        var met: [String: Bool] = [
            "lookup_le_500ns": lookup.median <= 500,
            "read_over_in_memory_le_1_5": readOverInMemory <= 1.5,
            "insert_engine_time_constant": engineRatio <= 1.5,
            "insert_bytes_constant": bytesRatio <= 1.01
        ]
        if let firstLookup { met["first_lookup_after_stop_le_1_2x_clean_close"] = firstLookup.stopOverCleanClose <= 1.2 }
        if let conventionalOverRead { met["conventional_over_read_ge_100"] = conventionalOverRead >= 100 }
        if let c = conventional { met["conventional_over_lookup_ge_100"] = c.median / lookup.median >= 100 }
        notes.append(
            "insert time includes the caller's drawing into pages of the file touched for the first time; on this VM first touches of fresh memory slow down as the fill grows, which the engine's own time (outside the draw) does not"
        )
        notes.append("times are medians of \(options.runs) runs after a warm-up; lookups cycle through the entities in one shuffled order")
        return RetrievalBenchmarkResult(
            entities: entities.count, pixelWidth: side, pixelHeight: side,
            lookupNs: lookup.median, sharedHoldReleaseNs: sharedHold.median, readNs: read.median, inMemoryReadNs: inMemory.median,
            conventionalNs: conventional?.median,
            lookupTiming: lookup, readTiming: read, inMemoryReadTiming: inMemory, conventionalTiming: conventional,
            conventionalJPEGBytes: jpegBytes, readOverInMemory: readOverInMemory, conventionalOverRead: conventionalOverRead,
            conventionalOverLookup: conventional.map { $0.median / lookup.median },
            conventionalOverInMemoryRead: conventional.map { $0.median / inMemory.median },
            insertBucketSize: options.insertBucketSize, insertBucketNs: fill.total, insertBucketDrawNs: fill.draw,
            insertBucketEngineNs: fill.engine, insertBucketBytes: fill.bytes,
            insertTimeMaxOverMin: timeRatio, insertEngineTimeMaxOverMin: engineRatio, insertBytesMaxOverMin: bytesRatio,
            firstLookup: firstLookup, targetsMet: met, notes: notes)
    }

    /// Mean figures per insert, one element per bucket.
    struct FillBuckets {
        var total: [Double] = []
        var draw: [Double] = []
        var engine: [Double] = []
        var bytes: [Double] = []
    }

    /// Inserts `options.insertCount` images into an empty ``ImageTable`` and returns, per bucket,
    /// the mean time (all of it, in the draw closure, and the rest) and bytes written per insert.
    private static func measureFill(root: String, bitmaps: [[UInt8]], side: Int, options: Options, log: (String) -> Void) throws
        -> FillBuckets
    {
        let rowBytes = side * 4
        let path = (root as NSString).appendingPathComponent("fill.fictable")
        let table = try ImageTable(
            path: path,
            configuration: TableConfiguration(
                pixelWidth: side, pixelHeight: side, bytesPerPixel: 4, maximumCount: options.insertCount, identity: "bench"))
        defer {
            // Replacing the file first drops its dirty pages instead of flushing 1.6 GB on close.
            try? table.removeAll()
            table.close()
        }
        let names = (0..<options.insertCount).map { "insert-\($0)" }
        let keys = names.map { TableKey($0) }
        let source = TableKey("v1")
        let bytesPerRow = table.configuration.bytesPerRow
        let clock = ContinuousClock()
        var buckets = FillBuckets()
        let bucket = max(1, options.insertBucketSize)
        var first = 0
        while first < options.insertCount {
            let end = min(first + bucket, options.insertCount)
            let bytesBefore = table.statistics.bytesWritten
            var drawing = Duration.zero
            var engine: [Double] = []
            engine.reserveCapacity(end - first)
            let start = clock.now
            for i in first..<end {
                let insertStart = clock.now
                var drawn = Duration.zero
                try bitmaps[i % bitmaps.count].withUnsafeBytes { src in
                    _ = try table.insert(entity: keys[i], source: source, label: names[i]) { dst in
                        let drawStart = clock.now
                        for y in 0..<side {
                            (dst.baseAddress! + y * bytesPerRow).copyMemory(from: src.baseAddress! + y * rowBytes, byteCount: rowBytes)
                        }
                        drawn = clock.now - drawStart
                    }
                }
                engine.append(BenchKit.nanoseconds(clock.now - insertStart - drawn))
                drawing += drawn
            }
            let elapsed = BenchKit.nanoseconds(clock.now - start)
            let written = table.statistics.bytesWritten - bytesBefore
            let n = Double(end - first)
            buckets.total.append(elapsed / n)
            buckets.draw.append(BenchKit.nanoseconds(drawing) / n)
            buckets.engine.append(BenchTiming(engine).median)
            buckets.bytes.append(Double(written) / n)
            first = end
        }
        let stats = table.statistics
        guard stats.count == options.insertCount else {
            throw BenchmarkError("the fill table holds \(stats.count) entries, not \(options.insertCount)")
        }
        log("  fill: \(options.insertCount) inserts, \(BenchKit.mebibytes(stats.fileBytes)) on disk")
        return buckets
    }

    /// Writes an opaque 32-bit BGRX/BGRA bitmap (tightly packed) as a binary PPM.
    private static func writePPM(_ bgra: [UInt8], width: Int, height: Int, to path: String) throws {
        var data = Data("P6\n\(width) \(height)\n255\n".utf8)
        data.reserveCapacity(data.count + width * height * 3)
        for i in stride(from: 0, to: width * height * 4, by: 4) {
            data.append(bgra[i + 2])
            data.append(bgra[i + 1])
            data.append(bgra[i])
        }
        try data.write(to: URL(fileURLWithPath: path))
    }
}
