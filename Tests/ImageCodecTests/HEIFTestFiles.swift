import FICTestSupport
import Foundation
@testable import ImageCodec
import Testing

/// HEIC and AVIF files made at test time from the bundled photos with the encoders Debian ships
/// (`heif-enc` from libheif-examples: HEIC with x265, AVIF with aom; `avifenc` from libavif-bin),
/// and the references their own decoders make (`heif-convert`, `avifdec`), read back with the
/// package's PNG decoder. Each file is made once per test process, in a folder of its own.
enum HEIFTestFiles {
    /// This process's folder of made files.
    static let folder: String = {
        let path = NSTemporaryDirectory() + "fic-heif-tests-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    /// Paths already made, by name; making one holds the lock (the encoders are quick on these sizes).
    private final class Made: @unchecked Sendable {
        let lock = NSLock()
        var paths: [String: String] = [:]
    }
    private static let made = Made()

    /// The path of `name` in ``folder``, made by `make(path)` the first time it is asked for.
    static func file(_ name: String, _ make: (String) throws -> Void) throws -> String {
        made.lock.lock()
        defer { made.lock.unlock() }
        if let path = made.paths[name] { return path }
        let path = folder + "/" + name
        try make(path)
        made.paths[name] = path
        return path
    }

    /// Runs `/usr/bin/<tool>` (from Debian package `package`); throws, with what it said, unless
    /// it succeeds.
    static func run(_ tool: String, package: String, _ arguments: [String]) throws {
        try ExternalTools.run(try ExternalTools.tool("/usr/bin/" + tool, package: package), arguments)
    }

    // MARK: Sources

    /// A bundled photo decoded to cover `width × height` (by the package's JPEG decoder), as the
    /// bitmap encoders start from.
    static func photo(_ name: String, covering width: Int, _ height: Int) throws -> DecodedImage {
        try ImageDecoder.decode(
            contentsOf: TestData.path("photos/\(name).jpg"), options: DecodingOptions(targetSize: PixelSize(width: width, height: height)))
    }

    /// The alpha of the test images with transparency: fully transparent on the left eighth, then
    /// a ramp from 40 to 255 across the rest, so that most pixels are partly transparent.
    static func alpha(x: Int, width: Int) -> Int {
        x < width / 8 ? 0 : 40 + 215 * (x - width / 8) / max(1, width - 1 - width / 8)
    }

    /// `image` as an 8-bit RGB PNG, RGBA with ``alpha(x:width:)`` when `alpha`, or 16-bit RGB
    /// (each sample × 257 plus a smooth ramp in the low bits, so that there is more than 8 bits of detail).
    static func png(_ image: DecodedImage, alpha: Bool = false, sixteenBit: Bool = false, at path: String) throws {
        var rows: [[UInt8]] = []
        for y in 0..<image.height {
            let p = (image.baseAddress + y * image.bytesPerRow).assumingMemoryBound(to: UInt8.self)
            var row: [UInt8] = []
            for x in 0..<image.width {
                let rgb = [p[4 * x + 2], p[4 * x + 1], p[4 * x]]
                if sixteenBit {
                    for v in rgb {
                        let wide = min(65535, Int(v) * 257 + (x * 255 / max(1, image.width - 1)) - 127)
                        row += [UInt8(max(0, wide) >> 8), UInt8(max(0, wide) & 0xFF)]
                    }
                } else {
                    row += rgb
                    if alpha { row.append(UInt8(Self.alpha(x: x, width: image.width))) }
                }
            }
            rows.append(row)
        }
        let bytes = PNGFiles.png(
            width: image.width, height: image.height, bitDepth: sixteenBit ? 16 : 8, colorType: alpha ? 6 : 2, rows: rows)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// A photo covering `width × height` as a PNG (see ``png(_:alpha:sixteenBit:at:)``).
    static func sourcePNG(_ photo: String, _ width: Int, _ height: Int, alpha: Bool = false, sixteenBit: Bool = false) throws -> String {
        try file("\(photo)-\(width)x\(height)\(alpha ? "-alpha" : "")\(sixteenBit ? "-16" : "").png") { path in
            try png(try Self.photo(photo, covering: width, height), alpha: alpha, sixteenBit: sixteenBit, at: path)
        }
    }

    // MARK: Encoders

    /// `heif-enc OPTIONS -o NAME SOURCE` (AVIF when `name` ends in `.avif`).
    static func heifEnc(_ name: String, source: String, _ options: [String] = []) throws -> String {
        try file(name) { path in try run("heif-enc", package: "libheif-examples", options + ["-o", path, source]) }
    }

    /// `avifenc OPTIONS SOURCE NAME`, at speed 8 (the tests need files, not small ones).
    static func avifenc(_ name: String, source: String, _ options: [String] = []) throws -> String {
        try file(name) { path in try run("avifenc", package: "libavif-bin", ["-s", "8"] + options + [source, path]) }
    }

    // MARK: References

    /// `heif-convert`'s decode of `file` (libheif's own example decoder), read back from its PNG.
    static func heifConvert(_ file: String) throws -> DecodedImage {
        try ImageDecoder.decode(contentsOf: try heifConvertPNG(file))
    }

    /// The PNG `heif-convert` writes for `file`.
    static func heifConvertPNG(_ file: String) throws -> String {
        try Self.file((file as NSString).lastPathComponent + ".heif-convert.png") { path in
            try run("heif-convert", package: "libheif-examples", [file, path])
        }
    }

    /// `avifdec`'s decode of `file` (libavif with dav1d: independent of libheif), 16 bits a
    /// sample when `sixteenBit`, read back from its PNG (16-bit samples rounded to 8 bits); of
    /// frame `index` of an image sequence. avifdec applies no `clap`, `irot` or `imir`.
    static func avifdec(_ file: String, sixteenBit: Bool = false, index: Int = 0) throws -> DecodedImage {
        let frame = index == 0 ? "" : "-\(index)"
        let png = try Self.file((file as NSString).lastPathComponent + ".avifdec\(sixteenBit ? "16" : "")\(frame).png") { path in
            try run("avifdec", package: "libavif-bin", ["-d", sixteenBit ? "16" : "8", "--index", "\(index)", file, path])
        }
        return try ImageDecoder.decode(contentsOf: png)
    }

    /// Small HEIC and AVIF files of every kind the decoder meets, for the fuzzer.
    static func fuzzCorpus() throws -> [(name: String, bytes: [UInt8])] {
        let plain = try sourcePNG("coffee", 150, 100)
        let alpha = try sourcePNG("rocket", 96, 64, alpha: true)
        let deep = try sourcePNG("coffee", 150, 100, sixteenBit: true)
        let paths = [
            try heifEnc("fuzz-thumb.heic", source: plain, ["-q", "50", "-t", "64"]),
            try heifEnc("fuzz-alpha.heic", source: alpha, ["-q", "50"]),
            try heifEnc("fuzz-alpha.avif", source: alpha, ["-q", "50"]),
            try heifEnc("fuzz-10bit.heic", source: deep, ["-b", "10", "-q", "50"]),
            try avifenc("fuzz-10bit-irot1.avif", source: deep, ["-d", "10", "--irot", "1"]),
            try avifenc("fuzz-grid.avif", source: try sourcePNG("coffee", 300, 200), ["-g", "2x2", "--crop", "4,2,280,190", "--imir", "0"]),
            try avifenc("fuzz-premultiplied.avif", source: alpha, ["-p"]),
            try file("fuzz-animated.avif") { path in try run("avifenc", package: "libavif-bin", ["-s", "8", plain, plain, path]) }
        ]
        return try paths.map { (($0 as NSString).lastPathComponent, try bytes($0)) }
    }

    /// The bytes of a made file.
    static func bytes(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }
}
