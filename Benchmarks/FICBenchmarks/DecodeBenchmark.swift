import FICHarness
import Foundation
import ImageCodec
import Glibc

/// Throughput figures of ``DecodeBenchmark``. Megapixels per second are counted on the source
/// image's pixels for every scale, so the scaled figures show how much faster a thumbnail decode is.
public struct DecodeBenchmarkResult: Sendable, Codable {
    /// Width of the benchmark JPEG.
    public var width: Int
    /// Height of the benchmark JPEG.
    public var height: Int
    /// Size of the benchmark JPEG in bytes.
    public var fileBytes: Int
    /// Timed runs per measurement (the best one counts).
    public var runs: Int
    /// Full-size decode (`ImageDecoder.decode`, BGRX), source megapixels per second.
    public var fullDecodeMegapixelsPerSecond: Double
    /// Decode at DCT scale 1/2.
    public var halfScaleMegapixelsPerSecond: Double
    /// Decode at DCT scale 1/4.
    public var quarterScaleMegapixelsPerSecond: Double
    /// Decode at DCT scale 1/8.
    public var eighthScaleMegapixelsPerSecond: Double
    /// `djpeg -dct int -outfile /dev/null` (wall time of the process), or `nil` without djpeg.
    public var djpegMegapixelsPerSecond: Double?
    /// Wall time of `djpeg` on a 1×1 JPEG (process start-up), in milliseconds, or `nil` without djpeg.
    public var djpegStartupMilliseconds: Double?
    /// ``fullDecodeMegapixelsPerSecond`` / ``djpegMegapixelsPerSecond`` (≥ 0.9 means within 10 % of djpeg).
    public var ratioToDjpeg: Double?
    /// One large photo of each kind decoded at full size and as a 300×300 thumbnail (one thread).
    public var thumbnails: [DecodeThumbnailResult]?
}

/// A large photo decoded at full size and straight to a thumbnail's size.
public struct DecodeThumbnailResult: Sendable, Codable {
    /// `jpeg-baseline`, `jpeg-progressive`, `png` or `webp`.
    public var kind: String
    /// The photo's size.
    public var width: Int, height: Int
    /// Its size in bytes.
    public var fileBytes: Int
    /// Milliseconds of the best full-size decode.
    public var fullMilliseconds: Double
    /// Milliseconds of the best decode covering 300×300.
    public var thumbnailMilliseconds: Double
    /// The size the thumbnail decode returned.
    public var thumbnailWidth: Int, thumbnailHeight: Int
}

/// A benchmark setup problem (missing tools or files).
public struct DecodeBenchmarkError: Error, CustomStringConvertible {
    /// What went wrong and what to do.
    public var description: String
}

/// Measures JPEG decoding speed against libjpeg-turbo's `djpeg`.
///
/// Builds a ~12-megapixel baseline JPEG (a test photograph tiled to 4000×3000 and encoded with
/// `cjpeg -quality 90`) in the work directory, then times the best of several in-process decodes at
/// each DCT scale and the best of several `djpeg` runs (whole process, start-up included; the
/// image is large enough that start-up, measured and reported separately, is negligible).
public enum DecodeBenchmark {
    /// Width and height of the generated JPEG.
    static let size = (width: 4000, height: 3000)
    /// Timed runs per measurement.
    static let runs = 5

    /// Runs the benchmark; `testdata` is the shared test-image folder, `workDirectory` receives the
    /// generated files. Progress and a table of results go to `log`.
    public static func run(testdata: String, workDirectory: String, log: (String) -> Void) throws -> DecodeBenchmarkResult {
        try FileManager.default.createDirectory(atPath: workDirectory, withIntermediateDirectories: true)
        let jpegPath = workDirectory + "/decode-benchmark-\(size.width)x\(size.height).jpg"
        if !FileManager.default.fileExists(atPath: jpegPath) {
            try makeBenchmarkJPEG(from: testdata + "/photos/hubble.jpg", at: jpegPath, workDirectory: workDirectory, log: log)
        }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: jpegPath))
        let info = try ImageDecoder.info(bytes)
        let megapixels = Double(info.width * info.height) / 1_000_000
        log("Decoding \(info.width)×\(info.height) baseline JPEG (\(bytes.count / 1024) KiB), best of \(runs) runs")

        func ourRate(denominator: Int) throws -> Double {
            let target = PixelSize(
                width: (info.width + denominator - 1) / denominator, height: (info.height + denominator - 1) / denominator)
            let options = DecodingOptions(targetSize: denominator == 1 ? nil : target)
            let seconds = try best { _ = try ImageDecoder.decode(bytes, options: options) }
            return megapixels / seconds
        }
        let full = try ourRate(denominator: 1)
        let half = try ourRate(denominator: 2)
        let quarter = try ourRate(denominator: 4)
        let eighth = try ourRate(denominator: 8)

        var djpegRate: Double?
        var startup: Double?
        if let djpeg = Executables.find("djpeg") {
            // Its standard error to /dev/null too: the timed run is the process alone.
            let seconds = try best {
                try BenchmarkProcess.run(djpeg, ["-dct", "int", "-outfile", "/dev/null", jpegPath], keepsErrors: false)
            }
            djpegRate = megapixels / seconds
            startup =
                try best { try BenchmarkProcess.run(djpeg, ["-outfile", "/dev/null", testdata + "/jpeg/tiny-1x1.jpg"], keepsErrors: false) }
                * 1000
        } else {
            log("djpeg not found in PATH (Debian: apt-get install libjpeg-turbo-progs); skipping the comparison")
        }
        var thumbnails: [DecodeThumbnailResult] = []
        let large = (workDirectory as NSString).appendingPathComponent("large-photos")
        for kind in LargePhotoSet.Kind.allCases {
            guard let path = try? LargePhotoSet.originals(kind, distinct: 1, testdata: testdata, folder: large, log: log).first else {
                log("could not make a large \(kind.rawValue) photo; skipping it")
                continue
            }
            let photo = try ImageBytes(contentsOf: path)
            let header = try ImageDecoder.info(photo)
            let fullSeconds = try best { _ = try ImageDecoder.decode(photo) }
            var small: DecodedImage?
            let thumbnailSeconds = try best {
                small = try ImageDecoder.decode(photo, options: DecodingOptions(targetSize: PixelSize(width: 300, height: 300)))
            }
            thumbnails.append(
                DecodeThumbnailResult(
                    kind: kind.rawValue, width: header.width, height: header.height, fileBytes: photo.count,
                    fullMilliseconds: fullSeconds * 1000, thumbnailMilliseconds: thumbnailSeconds * 1000,
                    thumbnailWidth: small?.width ?? 0, thumbnailHeight: small?.height ?? 0
                ))
        }
        let result = DecodeBenchmarkResult(
            width: info.width, height: info.height, fileBytes: bytes.count, runs: runs,
            fullDecodeMegapixelsPerSecond: full, halfScaleMegapixelsPerSecond: half,
            quarterScaleMegapixelsPerSecond: quarter, eighthScaleMegapixelsPerSecond: eighth,
            djpegMegapixelsPerSecond: djpegRate, djpegStartupMilliseconds: startup,
            ratioToDjpeg: djpegRate.map { full / $0 }, thumbnails: thumbnails
        )
        report(result, log: log)
        return result
    }

    private static func report(_ r: DecodeBenchmarkResult, log: (String) -> Void) {
        func row(_ name: String, _ rate: Double) -> String {
            name.padding(toLength: 34, withPad: " ", startingAt: 0) + String(format: "%8.1f MP/s", rate)
        }
        log(row("ImageDecoder, full size (BGRX)", r.fullDecodeMegapixelsPerSecond))
        log(row("ImageDecoder, DCT scale 1/2", r.halfScaleMegapixelsPerSecond))
        log(row("ImageDecoder, DCT scale 1/4", r.quarterScaleMegapixelsPerSecond))
        log(row("ImageDecoder, DCT scale 1/8", r.eighthScaleMegapixelsPerSecond))
        if let djpeg = r.djpegMegapixelsPerSecond, let ratio = r.ratioToDjpeg, let startup = r.djpegStartupMilliseconds {
            log(row("djpeg -dct int (whole process)", djpeg))
            log(String(format: "ours / djpeg = %.2f (≥ 0.90 is within 10%%)", ratio))
            log(String(format: "djpeg process start-up on a 1×1 JPEG: %.1f ms, not subtracted (negligible at this size)", startup))
        }
        for t in r.thumbnails ?? [] {
            log(
                "\(t.kind) \(t.width)×\(t.height): full size " + String(format: "%.1f ms", t.fullMilliseconds)
                    + ", to cover 300×300 (\(t.thumbnailWidth)×\(t.thumbnailHeight)) "
                    + String(
                        format: "%.1f ms, %.1f× faster", t.thumbnailMilliseconds, t.fullMilliseconds / max(t.thumbnailMilliseconds, 0.001)))
        }
        log("MP/s counts source megapixels at every scale. Repeated in-process decodes reuse the previous")
        log("bitmap's memory (large pixel buffers are recycled), as a cache decoding many photos does.")
    }

    /// Tiles `photo` (mirrored, so tiles join without seams) to the benchmark size as a PPM and
    /// encodes it with `cjpeg -quality 90` (baseline, 4:2:0).
    private static func makeBenchmarkJPEG(from photo: String, at path: String, workDirectory: String, log: (String) -> Void) throws {
        guard let cjpeg = Executables.find("cjpeg") else {
            throw DecodeBenchmarkError(
                description: "cjpeg not found in PATH; install libjpeg-turbo-progs (Debian) to build the benchmark JPEG.")
        }
        log("Building a \(size.width)×\(size.height) JPEG from \(photo) with cjpeg -quality 90 …")
        let tile = try ImageDecoder.decode(contentsOf: photo)
        var ppm = Data("P6\n\(size.width) \(size.height)\n255\n".utf8)
        var row = [UInt8](repeating: 0, count: size.width * 3)
        ppm.reserveCapacity(ppm.count + size.width * size.height * 3)
        for y in 0..<size.height {
            let ty = (y / tile.height) % 2 == 0 ? y % tile.height : tile.height - 1 - y % tile.height
            let source = (tile.baseAddress + ty * tile.bytesPerRow).assumingMemoryBound(to: UInt8.self)
            for x in 0..<size.width {
                let tx = (x / tile.width) % 2 == 0 ? x % tile.width : tile.width - 1 - x % tile.width
                row[x * 3] = source[tx * 4 + 2]
                row[x * 3 + 1] = source[tx * 4 + 1]
                row[x * 3 + 2] = source[tx * 4]
            }
            ppm.append(contentsOf: row)
        }
        let ppmPath = workDirectory + "/decode-benchmark-source.ppm"
        try ppm.write(to: URL(fileURLWithPath: ppmPath))
        defer { try? FileManager.default.removeItem(atPath: ppmPath) }
        try BenchmarkProcess.run(cjpeg, ["-quality", "90", "-outfile", path, ppmPath])
    }

    /// The best wall time of `runs` calls of `body`, after one warm-up call, in seconds.
    private static func best(_ body: () throws -> Void) throws -> Double {
        try body()
        let clock = ContinuousClock()
        var fastest = Duration.seconds(1_000_000)
        for _ in 0..<runs {
            let start = clock.now
            try body()
            fastest = min(fastest, clock.now - start)
        }
        let parts = fastest.components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
