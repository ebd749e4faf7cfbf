import FICCore
import FICHarness
import FastImageCache
import Foundation
import Glibc
import ImageCodec
import ImageTable

/// The processes of ``ProcessesBenchmark``, each a `fic-bench child` process that opens the cache
/// as an application does and reports what it saw into files its parent reads.
extension ProcessesBenchmark {
    /// What a process of the benchmark does.
    public enum Role: String, CaseIterable, Sendable {
        /// Looks up a screenful of images every 16 ms and times each lookup.
        case reader = "processes-reader"
        /// Decodes photos and stores them, as fast as it can.
        case ingester = "processes-ingester"
        /// Stores images one by one at random pauses, noting when each store returned.
        case storer = "processes-storer"
        /// Polls for the storer's images one by one, noting when each is first a hit.
        case poller = "processes-poller"
        /// Stores in a loop until told to stop (or killed), noting when each store returned.
        case writer = "processes-writer"
    }

    /// What a reader alone reads: the cache, or one of the two baselines.
    enum ReaderKind: String, Codable {
        /// The cache (``read(_:count:job:)``).
        case cache
        /// A `[String: [UInt8]]` in the process's memory (``readInMemory(count:job:)``): what any
        /// lookup costs at a gallery's pace on this machine.
        case dictionary
        /// The least a zero-copy lookup safe across processes does (``readFloor(directory:count:job:)``).
        case floor
    }

    /// What the parent asks of one process, handed over in a JSON file.
    struct Job: Codable {
        /// The cache's namespace, and the maximum count of its one format.
        var namespace: String
        var maximumCount: Int
        /// Made once the process is ready to be measured.
        var ready: String
        /// Waited for before measuring (the ingester), or before recording (the readers).
        var go: String? = nil
        /// Ends a reader's or a writer's loop once it exists.
        var stop: String? = nil
        /// Where the process writes its ``Report``; its times go to the same path plus `.times`.
        var output: String? = nil
        /// A reader alone: the ticks to make.
        var ticks: Int? = nil
        /// The test-data folder whose photos are decoded and stored.
        var photos: String? = nil
        /// Entities are named `PREFIX-i`, drawn from source version `source`.
        var prefix: String
        var source: String = "v1"
        /// Where a reader's screen starts; the storer's pauses.
        var seed: UInt64 = 1
        /// What a reader reads: the cache (nil or `.cache`), or one of the baselines that keep the same images
        /// elsewhere (``ReaderKind``).
        var reads: ReaderKind? = nil
        /// A reader alone also counts the memory pages one lookup touches (``PagesTouched``).
        var countPages: Bool? = nil
    }

    /// What a process reports, besides its times.
    struct Report: Codable {
        /// The ingester's time from its first store to its last, seconds.
        var seconds = 0.0
        /// A reader's recorded ticks, its lookups that missed, and ticks begun over a tick late.
        var ticks = 0
        var misses = 0
        var lateTicks = 0
        /// Stores the process made.
        var stores = 0
        /// The median count of memory pages one lookup touched, when the job asked.
        var pagesPerLookup: Int? = nil
        /// The same, by where the pages are (``PagesTouched/medianByKind(runs:_:)``).
        var pagesPerLookupByKind: [String: Int]? = nil
    }

    /// The child's side: runs `role` on the cache in `directory`, with `count` entities, as the
    /// JSON file `job` says.
    public static func child(_ role: Role, directory: String, count: Int, job jobPath: String) throws {
        let job = try JSONDecoder().decode(Job.self, from: Data(contentsOf: URL(fileURLWithPath: jobPath)))
        if role == .reader, job.reads == .dictionary { return try readInMemory(count: count, job: job) }
        if role == .reader, job.reads == .floor { return try readFloor(directory: directory, count: count, job: job) }
        // Processes open the cache at the same time: each waits for the others' opening.
        let cache = try ImageCache(
            directory: directory, namespace: job.namespace, formats: [try format(maximumCount: job.maximumCount)],
            options: TableOpenOptions(lockTimeout: .seconds(60)))
        defer { cache.close() }
        switch role {
        case .reader: try read(cache, count: count, job: job)
        case .ingester: try ingest(cache, count: count, job: job)
        case .storer: try storeOneByOne(cache, count: count, job: job)
        case .poller: try poll(cache, count: count, job: job)
        case .writer: try storeInALoop(cache, count: count, job: job)
        }
    }

    /// One lookup as a gallery cell makes it: the image, one byte of it, and its release.
    @inline(never)
    static func lookUp(_ cache: ImageCache, _ entity: FirstLookupBenchmark.Entity) -> UInt8? {
        guard let image = cache.cachedImage(for: entity, format: formatName) else { return nil }
        return image.withUnsafeBytes { $0[0] }
    }

    /// The baseline's lookup: the image of `name` in a dictionary in memory, one byte of it.
    @inline(never)
    static func lookUp(_ images: [String: [UInt8]], _ name: String) -> UInt8? {
        images[name]?.withUnsafeBufferPointer { $0[0] }
    }

    /// The floor's lookup (``LookupFloor``): the name's slot, the pin, one byte of the pixels, and
    /// the release that unpins.
    @inline(never)
    static func lookUp(_ floor: LookupFloor, _ name: String) -> UInt8? {
        guard let image = floor.image(name) else { return nil }
        return image.pixels.load(as: UInt8.self)
    }

    /// Scrolls through the images of the cache (see ``scroll(count:job:lookUp:)``).
    static func read(_ cache: ImageCache, count: Int, job: Job) throws {
        let entities = (0..<count).map { entity(job.prefix, $0) }
        try scroll(count: count, job: job) { lookUp(cache, entities[$0]) }
    }

    /// Scrolls as ``read(_:count:job:)`` does through the same number of images of the same
    /// size, kept in a dictionary in memory under the entities' names.
    static func readInMemory(count: Int, job: Job) throws {
        let names = (0..<count).map { entity(job.prefix, $0).entityID }
        var images: [String: [UInt8]] = [:]
        for (i, name) in names.enumerated() { images[name] = [UInt8](repeating: UInt8(truncatingIfNeeded: i), count: side * side * 4) }
        try scroll(count: count, job: job) { lookUp(images, names[$0]) }
    }

    /// Scrolls as ``read(_:count:job:)`` does through the same number of images of the same size,
    /// kept in a ``LookupFloor`` whose files are made in `directory`.
    static func readFloor(directory: String, count: Int, job: Job) throws {
        let names = (0..<count).map { entity(job.prefix, $0).entityID }
        let floor = try LookupFloor(names: names, imageBytes: side * side * 4, folder: directory)
        defer { floor.remove() }
        try scroll(count: count, job: job) { lookUp(floor, names[$0]) }
    }

    /// Scrolls through `count` images: each tick of 16 ms looks up a screenful, each lookup
    /// timed, and the screen moves by a row. Every image is looked up twice first, untimed, so
    /// that its first page is mapped. Records from the tick after `go` exists until `stop` does
    /// (or for `ticks` ticks).
    static func scroll(count: Int, job: Job, lookUp: (Int) -> UInt8?) throws {
        var sink: UInt8 = 0
        var report = Report()
        for _ in 0..<2 {
            for i in 0..<count {
                if let byte = lookUp(i) { sink ^= byte } else { report.misses += 1 }
            }
        }
        guard report.misses == 0 else { throw BenchmarkError("\(report.misses) of the readers' images are missing") }
        if job.countPages == true, let pages = PagesTouched() {
            report.pagesPerLookup = pages.median { if let byte = lookUp(($0 * 7) % count) { sink ^= byte } }
            report.pagesPerLookupByKind = pages.medianByKind { if let byte = lookUp(($0 * 7) % count) { sink ^= byte } }
            pages.close()
        }
        touch(job.ready)
        var samples: [UInt64] = []
        samples.reserveCapacity(1 << 16)
        var recording = job.go.map(exists) ?? true
        // Readers start at different places, as galleries scrolled apart do.
        var first = Int(job.seed % UInt64(max(1, count / rowLength))) * rowLength % count
        var deadline = BenchKit.monotonicNanoseconds()
        while true {
            // The clock's own first read after a sleep is slow too; it is not the lookup's.
            _ = BenchKit.monotonicNanoseconds()
            for i in 0..<lookupsPerTick {
                let k = (first + i) % count
                let start = BenchKit.monotonicNanoseconds()
                let byte = lookUp(k)
                let end = BenchKit.monotonicNanoseconds()
                if let byte { sink ^= byte } else { report.misses += 1 }
                if recording { samples.append(end - start) }
            }
            first = (first + rowLength) % count
            if recording { report.ticks += 1 }
            if let ticks = job.ticks, report.ticks >= ticks { break }
            if recording, let stop = job.stop, exists(stop) { break }
            if !recording, let go = job.go, exists(go) { recording = true }
            deadline += tick
            let now = BenchKit.monotonicNanoseconds()
            if now >= deadline + tick {
                if recording { report.lateTicks += 1 }
                deadline = now
            } else if now < deadline {
                sleep(until: deadline)
            }
        }
        BenchKit.blackHole(sink)
        try write(report, samples, job)
    }

    /// Decodes the test photos into new versions (`source`) of `count` entities, timing the whole.
    static func ingest(_ cache: ImageCache, count: Int, job: Job) throws {
        let photos = try BenchKit.photos(in: job.photos ?? "").map { [UInt8](try Data(contentsOf: URL(fileURLWithPath: $0))) }
        guard !photos.isEmpty else { throw BenchmarkError("no photos in \(job.photos ?? "(none given)")") }
        let entities = (0..<count).map { entity(job.prefix, $0, source: job.source) }
        let before = cache.statistics.formats.first?.inserts ?? 0
        touch(job.ready)
        if let go = job.go { try waitFor(go) }
        let start = BenchKit.monotonicNanoseconds()
        for (k, e) in entities.enumerated() {
            try cache.setImage(encoded: photos[k % photos.count], for: e, format: formatName)
        }
        let seconds = Double(BenchKit.monotonicNanoseconds() - start) / 1e9
        let stored = (cache.statistics.formats.first?.inserts ?? 0) - before
        // An image the table could not take (its writer lock held too long) is drawn unstored.
        guard stored == count else { throw BenchmarkError("the ingest stored \(stored) of \(count) images") }
        try write(Report(seconds: seconds, stores: stored), [], job)
    }

    /// Stores `count` images one by one after random pauses of 1–3 ms, noting when each store returned.
    static func storeOneByOne(_ cache: ImageCache, count: Int, job: Job) throws {
        let source = try firstPhoto(job)
        touch(job.ready)
        if let go = job.go { try waitFor(go) }
        var random = SplitMix64(seed: job.seed)
        var stored: [UInt64] = []
        for k in 0..<count {
            pauseCurrentThread(.microseconds(Int.random(in: 1000...3000, using: &random)))
            try cache.setImage(source, for: entity(job.prefix, k), format: formatName)
            stored.append(BenchKit.monotonicNanoseconds())
        }
        try write(Report(stores: count), stored, job)
    }

    /// Polls for each of `count` images in turn, without pause, noting when each is first a hit.
    static func poll(_ cache: ImageCache, count: Int, job: Job) throws {
        touch(job.ready)
        var hits: [UInt64] = []
        for k in 0..<count {
            let e = entity(job.prefix, k)
            let deadline = BenchKit.monotonicNanoseconds() + 60_000_000_000
            while cache.cachedImage(for: e, format: formatName) == nil {
                guard BenchKit.monotonicNanoseconds() < deadline else { throw BenchmarkError("image \(k) was not a hit within 60 s") }
            }
            hits.append(BenchKit.monotonicNanoseconds())
        }
        try write(Report(), hits, job)
    }

    /// Stores images of `count` entities in turn until `stop` exists (or the process is killed),
    /// noting when each store returned. Ready after its first store.
    static func storeInALoop(_ cache: ImageCache, count: Int, job: Job) throws {
        let source = try firstPhoto(job)
        let entities = (0..<max(1, count)).map { entity(job.prefix, $0) }
        try cache.setImage(source, for: entities[0], format: formatName)
        touch(job.ready)
        var stored: [UInt64] = []
        stored.reserveCapacity(1 << 20)
        var k = 1
        while true {
            try cache.setImage(source, for: entities[k % entities.count], format: formatName)
            stored.append(BenchKit.monotonicNanoseconds())
            k += 1
            if let stop = job.stop, exists(stop) { break }
        }
        try write(Report(stores: k), stored, job)
    }

    // MARK: Plumbing

    /// The first decodable test photo, decoded near the format's size.
    static func firstPhoto(_ job: Job) throws -> DecodedImage {
        for path in BenchKit.photos(in: job.photos ?? "") {
            if let image = try? ImageDecoder.decode(
                contentsOf: path, options: DecodingOptions(targetSize: PixelSize(width: side, height: side)))
            {
                return image
            }
        }
        throw BenchmarkError("no decodable photo in \(job.photos ?? "(none given)")")
    }

    /// Sleeps until `CLOCK_MONOTONIC` reads `nanoseconds`.
    static func sleep(until nanoseconds: UInt64) {
        var at = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, nil) == EINTR {}
    }

    /// Makes the empty file `path`: a flag another process polls for.
    static func touch(_ path: String) {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
    }

    static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// Waits up to a minute for the flag `path`.
    static func waitFor(_ path: String) throws {
        let deadline = BenchKit.monotonicNanoseconds() + 60_000_000_000
        while !exists(path) {
            guard BenchKit.monotonicNanoseconds() < deadline else { throw BenchmarkError("\(path) did not appear within a minute") }
            pauseCurrentThread(.microseconds(200))
        }
    }

    /// Writes `report` to the job's output and `times` beside it.
    static func write(_ report: Report, _ times: [UInt64], _ job: Job) throws {
        guard let output = job.output else { return }
        try times.withUnsafeBytes { try Data($0).write(to: URL(fileURLWithPath: output + ".times")) }
        try JSONEncoder().encode(report).write(to: URL(fileURLWithPath: output))
    }

    /// What a process wrote with ``write(_:_:_:)``.
    static func readOutput(_ output: String) throws -> (report: Report, times: [UInt64]) {
        let report = try JSONDecoder().decode(Report.self, from: Data(contentsOf: URL(fileURLWithPath: output)))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: output + ".times"))
        let times = bytes.withUnsafeBytes { raw in
            (0..<raw.count / 8).map { raw.loadUnaligned(fromByteOffset: $0 * 8, as: UInt64.self) }
        }
        return (report, times)
    }
}
