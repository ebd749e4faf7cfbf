import FICHarness
import Foundation
import Glibc
import ImageCodec
import TiledImage

/// Figures of ``TilesBenchmark``. Times are wall-clock seconds; RSS figures are the peak resident
/// set of the process that did the work (`wait4`'s `ru_maxrss` for child processes).
public struct TilesBenchmarkResult: Sendable, Codable {
    /// One timed process run.
    public struct Run: Sendable, Codable {
        /// Wall time, seconds.
        public var seconds: Double
        /// User plus system CPU time, seconds.
        public var cpuSeconds: Double
        /// Peak resident set, bytes.
        public var peakRSSBytes: Int
    }

    /// Side of the square benchmark JPEG.
    public var side: Int
    /// Size of the baseline JPEG, bytes.
    public var baselineBytes: Int
    /// Size of the progressive twin, bytes.
    public var progressiveBytes: Int
    /// `djpeg -dct int -outfile /dev/null` of the baseline JPEG.
    public var djpeg: Run?
    /// `fic tile` of the baseline JPEG (the whole pyramid, to disk).
    public var pyramid: Run
    /// `fic tile --low-memory`: one strip per level, so writing does not overlap decoding.
    public var lowMemoryPyramid: Run
    /// Its time from the last byte to ready, as `fic tile` reports it (file input), ms.
    public var pyramidAfterLastByteMs: Double
    /// `vips tiffsave --tile --pyramid --compression none` of the baseline JPEG.
    public var vipsTiffsave: Run?
    /// `vips dzsave` of the baseline JPEG.
    public var vipsDzsave: Run?
    /// `djpeg` of the progressive JPEG.
    public var progressiveDjpeg: Run?
    /// `fic tile` of the progressive JPEG.
    public var progressivePyramid: Run
    /// `vips tiffsave --tile --pyramid --compression none` of the progressive JPEG.
    public var progressiveVipsTiffsave: Run?
    /// The baseline JPEG fed in process as a paced stream of 64 KiB chunks at 20 MB/s: from the
    /// last chunk to the pyramid being ready, ms.
    public var pacedStreamAfterLastByteMs: Double
    /// The paced stream's whole duration, seconds.
    public var pacedStreamSeconds: Double
    /// `fic tile URL` of the baseline JPEG served by nginx over loopback HTTP behind a 20 MB/s
    /// link (``ThrottledLink``): from the last byte arriving to the pyramid being ready, ms
    /// (nil when nginx is missing).
    public var streamedAfterLastByteMs: Double?
    /// That download's whole `fic tile` run, seconds.
    public var streamedSeconds: Double?
    /// The bytes it downloaded.
    public var streamedBytes: Int?
    /// That run's peak resident set, bytes (no copy of the download is kept).
    public var streamedPeakRSSBytes: Int?
    /// One warm (page-cached) 256 KiB tile read with `pread`, ns (median of runs).
    public var tileReadNs: Double
    /// A warm tile through the zero-copy mapped view (`withMappedTile`), copied out once, ns.
    public var mappedTileReadNs: Double
    /// A 256 KiB `memcpy` from memory not in any cache, ns (median of runs).
    public var memcpyNs: Double
    /// The baseline JPEG's top-left 16001 × 9007 (cropped and re-encoded by libvips at quality 90):
    /// a size where a process's fixed costs weigh more than at 18000².
    public var wideWidth: Int?
    /// Its height (nil when it could not be made).
    public var wideHeight: Int?
    /// `djpeg` of the 16001 × 9007 JPEG.
    public var wideDjpeg: Run?
    /// `fic tile` of it.
    public var widePyramid: Run?
    /// Its pyramid time / djpeg.
    public var widePyramidOverDjpeg: Double?
    /// Pyramidal TIFFs (`fic tile --out X.tif`) of the 18000² JPEG, the 16001 × 9007 one and an
    /// 8000 × 6000 one (cropped from the first by libvips at quality 90), in that order.
    public var tiff: [TIFFPyramidFigures]?
    /// Ratios and targets.
    public var pyramidOverDjpeg: Double?
    /// vips tiffsave time / our pyramid time (> 1: ours is faster).
    public var vipsTiffsaveOverPyramid: Double?
    /// vips dzsave time / our pyramid time.
    public var vipsDzsaveOverPyramid: Double?
    /// Progressive: our pyramid time / djpeg.
    public var progressiveOverDjpeg: Double?
    /// tileReadNs / memcpyNs.
    public var tileReadOverMemcpy: Double
    /// mappedTileReadNs / memcpyNs.
    public var mappedTileReadOverMemcpy: Double
    /// Target name → met.
    public var targetsMet: [String: Bool]
    /// What the figures mean and how they were taken.
    public var notes: [String]

    /// JSON keys: the properties' names; the streamed-over-HTTP figures in snake case
    /// (`streamed_after_last_byte_ms`, `streamed_seconds`, `streamed_bytes`).
    enum CodingKeys: String, CodingKey {
        case side
        case baselineBytes
        case progressiveBytes
        case djpeg
        case pyramid
        case lowMemoryPyramid
        case pyramidAfterLastByteMs
        case vipsTiffsave
        case vipsDzsave
        case progressiveDjpeg
        case progressivePyramid
        case progressiveVipsTiffsave
        case pacedStreamAfterLastByteMs
        case pacedStreamSeconds
        case streamedAfterLastByteMs = "streamed_after_last_byte_ms"
        case streamedSeconds = "streamed_seconds"
        case streamedBytes = "streamed_bytes"
        case streamedPeakRSSBytes = "streamed_peak_rss_bytes"
        case wideWidth
        case wideHeight
        case wideDjpeg
        case widePyramid
        case widePyramidOverDjpeg
        case tiff
        case tileReadNs
        case mappedTileReadNs
        case memcpyNs
        case pyramidOverDjpeg
        case vipsTiffsaveOverPyramid
        case vipsDzsaveOverPyramid
        case progressiveOverDjpeg
        case tileReadOverMemcpy
        case mappedTileReadOverMemcpy
        case targetsMet
        case notes
    }
}

/// Tile pyramids of an 18000 × 18000 JPEG (made at run time from a test photograph, and its
/// progressive twin) against `djpeg`, `vips tiffsave --tile --pyramid` and `vips dzsave`, plus the
/// time from the last byte of a paced stream to ready, and a tile read against `memcpy`.
public enum TilesBenchmark {
    /// Side of the generated JPEG.
    public static let side = 18_000

    /// Runs the benchmark. `fic` is the path of the `fic` executable (the pyramids are built by
    /// `fic tile` child processes, so each has its own peak RSS).
    public static func run(testdata: String, workDirectory: String, fic: String, log: (String) -> Void) throws -> TilesBenchmarkResult {
        try FileManager.default.createDirectory(atPath: workDirectory, withIntermediateDirectories: true)
        let baseline = workDirectory + "/tiles-\(side)-baseline.jpg"
        let progressive = workDirectory + "/tiles-\(side)-progressive.jpg"
        if !FileManager.default.fileExists(atPath: baseline) || !FileManager.default.fileExists(atPath: progressive) {
            try makeJPEGs(
                photo: testdata + "/hubble.jpg", fallback: testdata + "/photos/hubble.jpg", baseline: baseline, progressive: progressive,
                workDirectory: workDirectory, log: log)
        }
        let output = workDirectory + "/tiles-output-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: output) }
        /// An empty output folder, and the earlier children's dirty pages on disk: no timed run pays
        /// for the write-back of another's gigabytes.
        func fresh() throws {
            try? FileManager.default.removeItem(atPath: output)
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
            sync()
        }
        var notes: [String] = []
        let djpegPath = Executables.find("djpeg")
        let vipsPath = Executables.find("vips")
        if djpegPath == nil { notes.append("djpeg not found (Debian: libjpeg-turbo-progs): no decode baseline") }
        if vipsPath == nil { notes.append("vips not found (Debian: libvips-tools; scripts/install-deps --bench): no libvips baselines") }

        func ours(_ input: String) throws -> (TilesBenchmarkResult.Run, Double) {
            try fresh()
            let measured = try MeasuredRun.run(fic, ["tile", input, "--out", output + "/pyramid.tif", "--compression", "none", "--json"])
            let (run, stdout) = (measured.figures, measured.output)
            let json = stdout.split(separator: "\n").last.map(String.init) ?? ""
            let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
            return (run, object?["after_last_byte_ms"] as? Double ?? .nan)
        }

        log("baseline JPEG: \(side)×\(side), \(fileSize(baseline) >> 20) MiB")
        let djpeg = try djpegPath.map { path in
            try best(2) {
                try fresh(); return try MeasuredRun.run(path, ["-dct", "int", "-outfile", "/dev/null", baseline]).figures
            }
        }
        djpeg.map { log("  djpeg: \(describe($0))") }
        var afterLastByte = Double.nan
        let pyramid = try best(2) { () throws -> TilesBenchmarkResult.Run in
            let (run, after) = try ours(baseline)
            afterLastByte = after
            return run
        }
        log("  fic tile: \(describe(pyramid)), last byte → ready \(BenchKit.fixed(afterLastByte)) ms")
        try fresh()
        let lowMemory = try MeasuredRun.run(
            fic, ["tile", baseline, "--out", output + "/pyramid.tif", "--compression", "none", "--low-memory"]
        ).figures
        log("  fic tile --low-memory: \(describe(lowMemory))")
        let tiff = try vipsPath.map { path -> TilesBenchmarkResult.Run in
            try fresh()
            return try MeasuredRun.run(
                path,
                [
                    "tiffsave", baseline, output + "/out.tif", "--tile", "--pyramid", "--compression", "none", "--tile-width", "256",
                    "--tile-height", "256"
                ]
            ).figures
        }
        tiff.map { log("  vips tiffsave --tile --pyramid: \(describe($0))") }
        let dz = try vipsPath.map { path -> TilesBenchmarkResult.Run in
            try fresh()
            return try MeasuredRun.run(path, ["dzsave", baseline, output + "/dz"]).figures
        }
        dz.map { log("  vips dzsave: \(describe($0))") }

        log("progressive JPEG: \(fileSize(progressive) >> 20) MiB")
        let progressiveDjpeg = try djpegPath.map { path in
            try best(2) {
                try fresh(); return try MeasuredRun.run(path, ["-dct", "int", "-outfile", "/dev/null", progressive]).figures
            }
        }
        progressiveDjpeg.map { log("  djpeg: \(describe($0))") }
        let progressivePyramid = try best(2) { try ours(progressive).0 }
        log("  fic tile: \(describe(progressivePyramid))")
        let progressiveTiff = try vipsPath.map { path -> TilesBenchmarkResult.Run in
            try fresh()
            return try MeasuredRun.run(
                path,
                [
                    "tiffsave", progressive, output + "/out.tif", "--tile", "--pyramid", "--compression", "none", "--tile-width", "256",
                    "--tile-height", "256"
                ]
            ).figures
        }
        progressiveTiff.map { log("  vips tiffsave --tile --pyramid: \(describe($0))") }

        // The same at 16001 × 9007, where the fixed costs of a process weigh more.
        let wide = (width: 16001, height: 9007)
        let widePath = workDirectory + "/tiles-\(wide.width)x\(wide.height)-baseline.jpg"
        if let vipsPath, !FileManager.default.fileExists(atPath: widePath) {
            try BenchmarkProcess.run(vipsPath, ["crop", baseline, widePath + "[Q=90]", "0", "0", "\(wide.width)", "\(wide.height)"])
        }
        var wideDjpeg: TilesBenchmarkResult.Run?, widePyramid: TilesBenchmarkResult.Run?
        if FileManager.default.fileExists(atPath: widePath) {
            log("baseline JPEG: \(wide.width)×\(wide.height), \(fileSize(widePath) >> 20) MiB")
            wideDjpeg = try djpegPath.map { path in
                try best(2) {
                    try fresh(); return try MeasuredRun.run(path, ["-dct", "int", "-outfile", "/dev/null", widePath]).figures
                }
            }
            wideDjpeg.map { log("  djpeg: \(describe($0))") }
            widePyramid = try best(2) { try ours(widePath).0 }
            widePyramid.map { log("  fic tile: \(describe($0))") }
        } else {
            notes.append("vips not found: no 16001 × 9007 figure")
        }
        let wideRatio = wideDjpeg.flatMap { d in widePyramid.map { $0.seconds / d.seconds } }

        // One pyramidal TIFF per size: the two above and an 8000 × 6000 photo-sized one.
        let photo = (width: 8000, height: 6000)
        let photoPath = workDirectory + "/tiles-\(photo.width)x\(photo.height)-baseline.jpg"
        if let vipsPath, !FileManager.default.fileExists(atPath: photoPath) {
            try BenchmarkProcess.run(vipsPath, ["crop", baseline, photoPath + "[Q=90]", "0", "0", "\(photo.width)", "\(photo.height)"])
        }
        var tiffs: [TIFFPyramidFigures] = []
        tiffs.append(
            try tiffFigures(baseline, djpeg: djpeg, fic: fic, vips: vipsPath, output: output, measureQuality: false, fresh: fresh, log: log)
        )
        if FileManager.default.fileExists(atPath: widePath) {
            tiffs.append(
                try tiffFigures(
                    widePath, djpeg: wideDjpeg, fic: fic, vips: vipsPath, output: output, measureQuality: false, fresh: fresh, log: log))
        }
        if FileManager.default.fileExists(atPath: photoPath) {
            let photoDjpeg = try djpegPath.map { path in
                try best(2) {
                    try fresh(); return try MeasuredRun.run(path, ["-dct", "int", "-outfile", "/dev/null", photoPath]).figures
                }
            }
            tiffs.append(
                try tiffFigures(
                    photoPath, djpeg: photoDjpeg, fic: fic, vips: vipsPath, output: output, measureQuality: true, fresh: fresh, log: log))
        }

        try fresh()
        log("paced stream: the baseline JPEG in 64 KiB chunks at 20 MB/s, in process …")
        let (streamSeconds, streamAfter) = try pacedStream(baseline, into: output)
        log("  whole stream \(BenchKit.fixed(streamSeconds, 2)) s, last byte → ready \(BenchKit.fixed(streamAfter)) ms")

        try fresh()
        log("streamed over loopback HTTP: nginx behind a 20 MB/s link, `fic tile URL` …")
        let streamed = try streamedOverHTTP(baseline, fic: fic, workDirectory: workDirectory, output: output)
        if let streamed {
            log(
                "  whole run \(BenchKit.fixed(streamed.seconds, 2)) s, \(streamed.bytes >> 20) MiB downloaded, peak RSS \(BenchKit.mebibytes(streamed.peakRSSBytes)), last byte → ready \(BenchKit.fixed(streamed.afterLastByteMs)) ms"
            )
        } else {
            notes.append("nginx not found (scripts/install-deps): no streamed-over-HTTP figure")
        }

        try fresh()
        let (tileNs, mappedNs, copyNs) = try tileRead(baseline, into: output)
        log(
            "  warm 256 KiB tile: pread \(BenchKit.fixed(tileNs / 1000)) µs, mapped view copied out \(BenchKit.fixed(mappedNs / 1000)) µs; memcpy of 256 KiB from DRAM \(BenchKit.fixed(copyNs / 1000)) µs"
        )

        let overDjpeg = djpeg.map { pyramid.seconds / $0.seconds }
        let tiffRatio = tiff.map { $0.seconds / pyramid.seconds }
        let progressiveRatio = progressiveDjpeg.map { progressivePyramid.seconds / $0.seconds }
        var met: [String: Bool] = [
            "peak_rss_le_64MiB": lowMemory.peakRSSBytes <= 64 << 20,
            "progressive_peak_rss_le_300MiB": progressivePyramid.peakRSSBytes <= 300 << 20,
            "paced_stream_last_byte_to_ready_le_50ms": streamAfter <= 50,
            "tile_read_le_1_5x_memcpy": min(tileNs, mappedNs) / copyNs <= 1.5
        ]
        if let streamed { met["streamed_http_last_byte_to_ready_le_50ms"] = streamed.afterLastByteMs <= 50 }
        if let overDjpeg { met["pyramid_le_1_15x_djpeg"] = overDjpeg <= 1.15 }
        if let wideRatio { met["wide_pyramid_le_1_15x_djpeg"] = wideRatio <= 1.15 }
        if let tiffRatio { met["faster_than_vips_tiffsave"] = tiffRatio > 1 }
        if let progressiveRatio { met["progressive_le_1_3x_djpeg"] = progressiveRatio <= 1.3 }
        for figures in tiffs {
            let size = "\(figures.width)x\(figures.height)"
            met["tiff_\(size)_disk_le_1_5x_source"] = figures.diskOverSource <= 1.5
            if let x = figures.jpegOverDjpeg { met["tiff_\(size)_jpeg_le_1_3x_djpeg"] = x <= 1.3 }
            if let x = figures.rawOverDjpeg { met["tiff_\(size)_raw_le_1_15x_djpeg"] = x <= 1.15 }
            if let x = figures.vipsOverJPEG { met["tiff_\(size)_2x_faster_than_vips_jpeg"] = x >= 2 }
            if figures.width == side { met["tiff_\(size)_peak_rss_le_100MiB"] = figures.jpegTIFF.peakRSSBytes <= 100 << 20 }
            if let luma = figures.lumaPSNR { met["tiff_\(size)_luma_psnr_ge_40dB"] = luma >= 40 }
        }
        notes.append(
            "fic tile and the baselines run as child processes; times are wall-clock, best of the runs, each started after a sync (no run pays for the write-back of an earlier one); peak RSS from wait4 (ru_maxrss), measured by /usr/bin/time around each child. The fic process has ~26 MiB resident before any work (19 MiB of it shared Swift/Foundation library pages). The RSS target is checked on --low-memory (one strip per level); the default keeps two strips per level so that the disk writes overlap decoding."
        )
        notes.append(
            "The paced stream is an in-process chunk stream at 20 MB/s; the streamed figure is `fic tile http://…` (the loader's chunks straight into the builder) from the project's nginx behind a relay that lets 20 MB/s through (ThrottledLink: nginx's limit_rate lets the first second through at once)."
        )
        notes.append(
            "Level files are written with O_DIRECT where possible, so the pyramid's tiles are not left in the page cache; the tile read is timed after one warming read."
        )
        return TilesBenchmarkResult(
            side: side, baselineBytes: fileSize(baseline), progressiveBytes: fileSize(progressive),
            djpeg: djpeg, pyramid: pyramid, lowMemoryPyramid: lowMemory, pyramidAfterLastByteMs: afterLastByte, vipsTiffsave: tiff,
            vipsDzsave: dz,
            progressiveDjpeg: progressiveDjpeg, progressivePyramid: progressivePyramid, progressiveVipsTiffsave: progressiveTiff,
            pacedStreamAfterLastByteMs: streamAfter, pacedStreamSeconds: streamSeconds,
            streamedAfterLastByteMs: streamed?.afterLastByteMs, streamedSeconds: streamed?.seconds, streamedBytes: streamed?.bytes,
            streamedPeakRSSBytes: streamed?.peakRSSBytes,
            tileReadNs: tileNs, mappedTileReadNs: mappedNs, memcpyNs: copyNs,
            wideWidth: widePyramid == nil ? nil : wide.width, wideHeight: widePyramid == nil ? nil : wide.height, wideDjpeg: wideDjpeg,
            widePyramid: widePyramid, widePyramidOverDjpeg: wideRatio, tiff: tiffs,
            pyramidOverDjpeg: overDjpeg, vipsTiffsaveOverPyramid: tiffRatio,
            vipsDzsaveOverPyramid: dz.map { $0.seconds / pyramid.seconds }, progressiveOverDjpeg: progressiveRatio,
            tileReadOverMemcpy: tileNs / copyNs, mappedTileReadOverMemcpy: mappedNs / copyNs, targetsMet: met, notes: notes)
    }

    static func describe(_ run: TilesBenchmarkResult.Run) -> String {
        "\(BenchKit.fixed(run.seconds, 2)) s (CPU \(BenchKit.fixed(run.cpuSeconds, 2)) s), peak RSS \(BenchKit.mebibytes(run.peakRSSBytes))"
    }

    static func fileSize(_ path: String) -> Int {
        var st = stat()
        return stat(path, &st) == 0 ? Int(st.st_size) : 0
    }

    /// The fastest of `count` runs.
    static func best(_ count: Int, _ body: () throws -> TilesBenchmarkResult.Run) rethrows -> TilesBenchmarkResult.Run {
        var fastest: TilesBenchmarkResult.Run?
        for _ in 0..<count {
            let run = try body()
            if fastest == nil || run.seconds < fastest!.seconds { fastest = run }
        }
        return fastest!
    }

    // MARK: Inputs

    /// Mirror-tiles `photo` to side × side as a PPM (streamed, row by row), encodes it with
    /// `cjpeg -quality 90`, and makes the progressive twin with `jpegtran -progressive`.
    static func makeJPEGs(
        photo: String, fallback: String, baseline: String, progressive: String, workDirectory: String, log: (String) -> Void
    ) throws {
        guard let cjpeg = Executables.find("cjpeg"), let jpegtran = Executables.find("jpegtran") else {
            throw BenchmarkError("cjpeg and jpegtran are needed to make the benchmark JPEG (Debian: libjpeg-turbo-progs)")
        }
        let source = FileManager.default.fileExists(atPath: photo) ? photo : fallback
        log("Making a \(side)×\(side) JPEG from \(source) (cjpeg -quality 90) and its progressive twin (jpegtran) …")
        let image = try ImageDecoder.decode(contentsOf: source)
        let ppm = workDirectory + "/tiles-\(side).ppm"
        defer { unlink(ppm) }
        guard let file = fopen(ppm, "wb") else { throw BenchmarkError("cannot write \(ppm)") }
        let header = Array("P6\n\(side) \(side)\n255\n".utf8)
        fwrite(header, 1, header.count, file)
        var row = [UInt8](repeating: 0, count: side * 3)
        image.withUnsafeBytes { raw in
            for y in 0..<side {
                var sy = y % image.height
                if (y / image.height) % 2 == 1 { sy = image.height - 1 - sy }
                let line = raw.baseAddress! + sy * image.bytesPerRow
                for x in 0..<side {
                    var sx = x % image.width
                    if (x / image.width) % 2 == 1 { sx = image.width - 1 - sx }
                    row[x * 3] = line.load(fromByteOffset: sx * 4 + 2, as: UInt8.self)
                    row[x * 3 + 1] = line.load(fromByteOffset: sx * 4 + 1, as: UInt8.self)
                    row[x * 3 + 2] = line.load(fromByteOffset: sx * 4, as: UInt8.self)
                }
                fwrite(row, 1, row.count, file)
            }
        }
        fclose(file)
        try BenchmarkProcess.run(cjpeg, ["-quality", "90", "-outfile", baseline, ppm])
        try BenchmarkProcess.run(jpegtran, ["-progressive", "-outfile", progressive, baseline])
    }

    // MARK: Streamed over HTTP

    /// `fic tile URL` of `path` served by nginx (started here) behind a 20 MB/s ``ThrottledLink``;
    /// nil when nginx is not installed.
    static func streamedOverHTTP(_ path: String, fic: String, workDirectory: String, output: String) throws -> (
        seconds: Double, afterLastByteMs: Double, bytes: Int, peakRSSBytes: Int
    )? {
        let server: LocalNginx
        do {
            server = try LocalNginx(root: (path as NSString).deletingLastPathComponent, prefix: workDirectory + "/tiles-nginx-\(getpid())")
        } catch let error as HarnessError where error.description.contains("not installed") {
            return nil
        }
        defer {
            server.stop()
            try? FileManager.default.removeItem(atPath: workDirectory + "/tiles-nginx-\(getpid())")
        }
        let link = try ThrottledLink(targetPort: server.port, bytesPerSecond: 20_000_000)
        defer { link.stop() }
        let url = "http://127.0.0.1:\(link.port)/\((path as NSString).lastPathComponent)"
        let measured = try MeasuredRun.run(fic, ["tile", url, "--out", output + "/pyramid.tif", "--compression", "none", "--json"])
        let (run, stdout) = (measured.figures, measured.output)
        let json = stdout.split(separator: "\n").last.map(String.init) ?? ""
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        guard let after = object?["after_last_byte_ms"] as? Double, let bytes = object?["bytes_downloaded"] as? Int else {
            throw BenchmarkError("fic tile \(url) gave no figures: \(json)")
        }
        return (run.seconds, after, bytes, run.peakRSSBytes)
    }

    // MARK: In-process figures

    /// Feeds the file as 64 KiB chunks at 20 MB/s; returns (whole duration s, last byte → ready ms).
    static func pacedStream(_ path: String, into folder: String) throws -> (Double, Double) {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let builder = try TilePyramidBuilder(destination: .temporary(folder: folder))
        let chunk = 64 << 10
        let interval = Duration.nanoseconds(Int64(Double(chunk) / 20_000_000 * 1e9))
        let clock = ContinuousClock()
        let start = clock.now
        var offset = 0
        var deadline = start
        while offset < bytes.count {
            deadline = deadline + interval
            let now = clock.now
            if deadline > now { Thread.sleep(forTimeInterval: BenchKit.nanoseconds(deadline - now) / 1e9) }
            let end = min(bytes.count, offset + chunk)
            try builder.append(bytes[offset..<end])
            offset = end
        }
        let pyramid = try builder.finish()
        let total = clock.now - start
        let after = pyramid.statistics.map { BenchKit.nanoseconds($0.afterLastByte) / 1e6 } ?? .nan
        return (BenchKit.nanoseconds(total) / 1e9, after)
    }

    /// Median ns of a warm 256 KiB tile pread, of a warm tile's mapped view copied out once, and of a
    /// 256 KiB memcpy from memory not in cache.
    static func tileRead(_ path: String, into folder: String) throws -> (Double, Double, Double) {
        let pyramid = try TilePyramidBuilder.build(contentsOf: path, destination: .temporary(folder: folder))
        let level = pyramid.geometry.levels[0]
        let buffer = try TileBuffer()
        // 64 tiles (16 MiB) cycled: warm in the page cache, but larger than the CPU's caches.
        let tiles = (0..<64).map { (column: $0 % level.columns, row: $0 / level.columns) }
        for tile in tiles { try pyramid.readTile(level: 0, column: tile.column, row: tile.row, into: buffer) }
        var index = 0
        let read = try BenchKit.measure(warmups: 1, runs: 9, operationsPerRun: 256) {
            for _ in 0..<256 {
                let tile = tiles[index & 63]
                try pyramid.readTile(level: 0, column: tile.column, row: tile.row, into: buffer)
                index += 1
            }
        }
        let sink = UnsafeMutableRawPointer.allocate(byteCount: 256 << 10, alignment: 4096)
        defer { sink.deallocate() }
        for tile in tiles { _ = try pyramid.withMappedTile(level: 0, column: tile.column, row: tile.row) { $0.count } }
        let mapped = try BenchKit.measure(warmups: 1, runs: 9, operationsPerRun: 256) {
            for _ in 0..<256 {
                let tile = tiles[index & 63]
                try pyramid.withMappedTile(level: 0, column: tile.column, row: tile.row) { view in
                    sink.copyMemory(from: view.baseAddress!, byteCount: view.count)
                }
                index += 1
            }
        }
        // memcpy from a 512 MiB buffer walked in 256 KiB steps: every source block comes from DRAM.
        let sourceBytes = 512 << 20, block = 256 << 10
        let source = UnsafeMutableRawPointer.allocate(byteCount: sourceBytes, alignment: 4096)
        let target = UnsafeMutableRawPointer.allocate(byteCount: block, alignment: 4096)
        defer { source.deallocate(); target.deallocate() }
        memset(source, 1, sourceBytes)
        memset(target, 0, block)
        var position = 0
        let copy = BenchKit.measure(warmups: 1, runs: 9, operationsPerRun: 256) {
            for _ in 0..<256 {
                memcpy(target, source + position, block)
                position = (position + block) % sourceBytes
            }
            BenchKit.blackHole(target.load(as: UInt8.self))
        }
        return (read.median, mapped.median, copy.median)
    }
}

extension MeasuredRun {
    /// Its figures as the benchmark's JSON has them.
    var figures: TilesBenchmarkResult.Run {
        TilesBenchmarkResult.Run(seconds: seconds, cpuSeconds: cpuSeconds, peakRSSBytes: peakRSSBytes)
    }
}
