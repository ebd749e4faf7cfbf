import Foundation
import ImageCodec

/// Figures of ``ColorBenchmark``: milliseconds per megapixel of each conversion to sRGB.
public struct ColorBenchmarkResult: Sendable, Codable {
    /// Megapixels of the 8-bit buffers (the 16-bit ones are a quarter).
    public var megapixels: Double
    /// Timed runs per measurement (the best one counts).
    public var runs: Int
    /// memcpy of the 8-bit BGRX buffer, ms per megapixel: the floor of any pass over the pixels.
    public var memcpyMillisecondsPerMegapixel: Double
    /// One line per conversion.
    public var cases: [ColorBenchmarkCase]
}

/// One conversion measured both ways where both exist.
public struct ColorBenchmarkCase: Sendable, Codable {
    /// What is converted (profile, layout, threads).
    public var name: String
    /// The engine ``ColorConverter/make(for:layout:warnings:)`` picks, ms per megapixel.
    public var millisecondsPerMegapixel: Double
    /// Which engine that is.
    public var method: String
    /// The same through a LittleCMS transform, when the pick was not LittleCMS already.
    public var littleCMSMillisecondsPerMegapixel: Double?
    /// Making the converter the first time (reading the profile, tables or transform, the sRGB probe), ms.
    public var makeMilliseconds: Double
}

/// Times the colour engine on a 24-megapixel photo (hubble.jpg mirror-tiled to 6000 × 4000):
/// the matrix-shaper fast path against LittleCMS for Display P3, Adobe RGB and ProPhoto, 8- and
/// 16-bit sources, CMYK through a press profile and without one, grey through its table; one
/// thread unless said, the best of several runs.
public enum ColorBenchmark {
    static let size = (width: 6000, height: 4000)
    static let runs = 5

    /// Runs the benchmark; `testdata` is the shared test-image folder. A table goes to `log`.
    public static func run(testdata: String, log: (String) -> Void) throws -> ColorBenchmarkResult {
        let photo = try ImageDecoder.decode(contentsOf: testdata + "/photos/hubble.jpg")
        let count = size.width * size.height
        let megapixels = Double(count) / 1_000_000
        log("Converting a \(size.width)×\(size.height) photo (hubble.jpg tiled), best of \(runs) runs, one thread unless said")
        var bgrx = [UInt8](repeating: 0, count: count * 4)
        for y in 0..<size.height {
            let ty = (y / photo.height) % 2 == 0 ? y % photo.height : photo.height - 1 - y % photo.height
            let row = (photo.baseAddress + ty * photo.bytesPerRow).assumingMemoryBound(to: UInt8.self)
            for x in 0..<size.width {
                let tx = (x / photo.width) % 2 == 0 ? x % photo.width : photo.width - 1 - x % photo.width
                for c in 0..<4 { bgrx[(y * size.width + x) * 4 + c] = row[tx * 4 + c] }
            }
        }
        var rgb = [UInt8](repeating: 0, count: count * 3)
        for i in 0..<count { (rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]) = (bgrx[4 * i + 2], bgrx[4 * i + 1], bgrx[4 * i]) }
        let count16 = count / 4
        var rgb16 = [UInt16](repeating: 0, count: count16 * 3)
        for i in 0..<(count16 * 3) { rgb16[i] = UInt16(rgb[i]) * 257 &+ UInt16(i % 251) }
        let cmyk = (0..<count).flatMap { i -> [UInt8] in
            let (r, g, b) = (bgrx[4 * i + 2], bgrx[4 * i + 1], bgrx[4 * i])
            let k = 255 - max(r, g, b)
            return [255 - r - k, 255 - g - k, 255 - b - k, k]
        }
        let gray = (0..<count).map { bgrx[4 * $0 + 1] }
        var output = [UInt8](repeating: 0, count: count * 4)

        let memcpySeconds = best {
            output.withUnsafeMutableBytes { o in bgrx.withUnsafeBytes { _ = memcpy(o.baseAddress!, $0.baseAddress!, $0.count) } }
        }

        var cases: [ColorBenchmarkCase] = []
        func measure(
            _ name: String, _ description: ColorDescription, _ layout: ColorConverter.Layout, source: UnsafeRawBufferPointer,
            pixels: Int, inPlace: Bool = false, threads: Int = 1, compare: Bool = true
        ) {
            var warnings: [String] = []
            let start = ContinuousClock.now
            guard let converter = ColorConverter.make(for: description, layout: layout, warnings: &warnings) else {
                log("  \(name): nothing to convert (\(warnings.joined(separator: "; ")))")
                return
            }
            let makeMilliseconds = BenchKit.nanoseconds(ContinuousClock.now - start) / 1e6
            func time(_ converter: ColorConverter) -> Double {
                let seconds = output.withUnsafeMutableBytes { out in
                    best {
                        if inPlace { out.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[0..<(pixels * 4)])) }
                        // Addresses as integers: the threads share these buffers for the duration of the call.
                        let destination = UInt(bitPattern: out.baseAddress),
                            from = inPlace ? destination : UInt(bitPattern: source.baseAddress)
                        let rows = size.height * pixels / count
                        let perRow = pixels / rows
                        DispatchQueue.concurrentPerform(iterations: threads) { part in
                            let first = rows * part / threads, last = rows * (part + 1) / threads
                            converter.convert(
                                UnsafeRawPointer(bitPattern: from)! + first * perRow * layout.bytesPerPixel,
                                to: UnsafeMutableRawPointer(bitPattern: destination)! + first * perRow * 4, count: (last - first) * perRow)
                        }
                    }
                }
                return seconds * 1000 / (Double(pixels) / 1_000_000)
            }
            let fast = time(converter)
            var lcms: Double?
            if compare && converter.method != .littleCMS && converter.method != .naiveCMYK,
                let slow = ColorConverter.make(for: description, layout: layout, fastPath: false, warnings: &warnings),
                slow.method == .littleCMS
            {
                lcms = time(slow)
            }
            cases.append(
                ColorBenchmarkCase(
                    name: name, millisecondsPerMegapixel: fast, method: "\(converter.method)",
                    littleCMSMillisecondsPerMegapixel: lcms, makeMilliseconds: makeMilliseconds))
            log(
                "  " + name.padding(toLength: 46, withPad: " ", startingAt: 0)
                    + String(format: "%6.2f ms/MP (%@)", fast, "\(converter.method)")
                    + (lcms.map { String(format: ", LittleCMS %6.2f ms/MP: %.1f× faster", $0, $0 / fast) } ?? "")
                    + String(format: "; made in %.1f ms", makeMilliseconds))
        }

        let p3 = ColorDescription.codePoints(primaries: 12, transfer: 13, matrix: 0, fullRange: true)
        var profiles: [(String, ColorDescription)] = [("Display P3", p3)]
        for (name, path) in [
            ("Adobe RGB", "/usr/share/color/icc/colord/AdobeRGB1998.icc"), ("ProPhoto", "/usr/share/color/icc/colord/ProPhotoRGB.icc")
        ] {
            if let bytes = FileManager.default.contents(atPath: path) { profiles.append((name, .iccProfile([UInt8](bytes)))) }
        }
        bgrx.withUnsafeBytes { source in
            for (name, description) in profiles {
                measure("\(name), BGRX in place", description, .bgrx8, source: source, pixels: count, inPlace: true)
            }
            measure(
                "Display P3, BGRX in place, 2 threads", p3, .bgrx8, source: source, pixels: count, inPlace: true, threads: 2, compare: false
            )
        }
        rgb.withUnsafeBytes { measure("Display P3, RGB to BGRA", p3, .rgb8, source: $0, pixels: count) }
        rgb16.withUnsafeBytes { measure("Display P3, 16-bit RGB to BGRA", p3, .rgb16, source: $0, pixels: count16) }
        cmyk.withUnsafeBytes { source in
            if let swop = FileManager.default.contents(atPath: "/usr/share/color/icc/ghostscript/default_cmyk.icc") {
                measure("CMYK (SWOP), in place", .iccProfile([UInt8](swop)), .cmyk8, source: source, pixels: count, inPlace: true)
            }
            measure("CMYK without a profile, in place", .untagged, .cmyk8, source: source, pixels: count, inPlace: true)
        }
        gray.withUnsafeBytes { measure("grey, linear light (gamma 1)", .gamma(1, chromaticities: nil), .gray8, source: $0, pixels: count) }
        return ColorBenchmarkResult(
            megapixels: megapixels, runs: runs, memcpyMillisecondsPerMegapixel: memcpySeconds * 1000 / megapixels, cases: cases)
    }

    /// The best of ``runs`` runs of `body` (after one untimed), in seconds.
    private static func best(_ body: () -> Void) -> Double {
        body()
        return (0..<runs).map { _ in
            let start = ContinuousClock.now
            body()
            return BenchKit.nanoseconds(ContinuousClock.now - start) / 1e9
        }.min()!
    }
}
