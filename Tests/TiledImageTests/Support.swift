import FICHarness
import FICTestSupport
import Foundation
import Glibc
import ImageCodec
import Testing
@testable import TiledImage

/// Test data, generated inputs and references for the tile pyramid tests.
enum Fixtures {
    /// The shared test images (`FIC_TESTDATA`, or `../../../shared/testdata` from this file).
    static let testdata: String = {
        if let override = ProcessInfo.processInfo.environment["FIC_TESTDATA"], !override.isEmpty { return override }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../shared/testdata").standardizedFileURL.path
    }()

    static func path(_ relative: String) -> String { testdata + "/" + relative }

    /// The bytes of a file (POSIX reads: no Foundation buffers for LeakSanitizer to report).
    static func bytes(atPath path: String) throws -> [UInt8] {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw ImageCacheError.system("open", path: path, errno: .init(rawValue: errno)) }
        defer { close(fd) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { return result }
            result.append(contentsOf: chunk[0..<n])
        }
    }

    static func bytes(_ relative: String) throws -> [UInt8] { try bytes(atPath: path(relative)) }

    /// A fresh empty folder under the system's temporary folder.
    static func makeFolder(_ name: String = #function) throws -> String {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("tiled-image-tests").path
        let clean = name.filter { $0.isLetter || $0.isNumber }
        let path = base + "/\(clean)-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func remove(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// The full path of `name` on PATH.
    static func executable(_ name: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(dir)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    static func run(_ tool: String, _ arguments: [String]) throws {
        guard let executable = executable(tool) else {
            throw ImageCacheError(
                .sourceUnavailable, "\(tool) is not installed (Debian: libjpeg-turbo-progs); scripts/install-deps installs it")
        }
        let run = try ChildProcess.run(executable, arguments, timeout: .seconds(600))
        guard run.ending == .exited(0) else {
            throw ImageCacheError(.io, "\(tool) \(arguments.joined(separator: " ")) \(run.ending): \(run.standardError)")
        }
    }

    /// A `width × height` JPEG made from a test photograph (mirrored tiles, so the content varies
    /// everywhere) with cjpeg; progressive with `progressive`. Cached per size in `folder`.
    static func makeJPEG(width: Int, height: Int, progressive: Bool = false, in folder: String) throws -> String {
        let photo = try ImageDecoder.decode(bytes("photos/hubble.jpg"))
        var ppm = Array("P6\n\(width) \(height)\n255\n".utf8)
        ppm.reserveCapacity(ppm.count + width * height * 3)
        photo.withUnsafeBytes { raw in
            for y in 0..<height {
                let band = y / photo.height
                var sy = y % photo.height
                if band % 2 == 1 { sy = photo.height - 1 - sy }
                let row = raw.baseAddress! + sy * photo.bytesPerRow
                for x in 0..<width {
                    let tile = x / photo.width
                    var sx = x % photo.width
                    if tile % 2 == 1 { sx = photo.width - 1 - sx }
                    let p = row + sx * 4
                    ppm.append(p.load(fromByteOffset: 2, as: UInt8.self))
                    ppm.append(p.load(fromByteOffset: 1, as: UInt8.self))
                    ppm.append(p.load(as: UInt8.self))
                }
            }
        }
        let ppmPath = folder + "/source-\(width)x\(height).ppm"
        try Data(ppm).write(to: URL(fileURLWithPath: ppmPath))
        let jpegPath = folder + "/generated-\(width)x\(height)\(progressive ? "-progressive" : "").jpg"
        try run("cjpeg", (progressive ? ["-progressive"] : []) + ["-quality", "85", "-outfile", jpegPath, ppmPath])
        try? FileManager.default.removeItem(atPath: ppmPath)
        return jpegPath
    }
}

/// An upright image as packed 4-byte pixels (no row padding).
struct Bitmap: Equatable {
    var width: Int
    var height: Int
    var pixels: [UInt8]

    /// ImageDecoder's upright decode, packed.
    init(decoding bytes: [UInt8]) throws {
        let image = try ImageDecoder.decode(bytes, options: DecodingOptions(maximumPixelCount: 1 << 30))
        width = image.width
        height = image.height
        pixels = image.withUnsafeBytes {
            SampleComparison.packedRows($0.baseAddress!, height: image.height, rowBytes: image.width * 4, bytesPerRow: image.bytesPerRow)
        }
    }

    init(width: Int, height: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// One level of a pyramid, assembled from its tiles (padding dropped), each read with pread.
    init(level: Int, of pyramid: TilePyramid) throws {
        let info = pyramid.geometry.levels[level]
        width = info.width
        height = info.height
        pixels = [UInt8](repeating: 0, count: width * height * 4)
        let buffer = try TileBuffer()
        for row in 0..<info.rows {
            for column in 0..<info.columns {
                try pyramid.readTile(level: level, column: column, row: row, into: buffer)
                let valid = info.validSize(column: column, row: row)
                buffer.withUnsafeBytes { tile in
                    pixels.withUnsafeMutableBytes { pixels in
                        for y in 0..<valid.height {
                            let target = ((row * 256 + y) * width + column * 256) * 4
                            (pixels.baseAddress! + target).copyMemory(from: tile.baseAddress! + y * 1024, byteCount: valid.width * 4)
                        }
                    }
                }
            }
        }
    }

    /// The 2 × 2 box filter reference: odd sizes round up, a missing column or row repeats the last.
    func halved() -> Bitmap {
        let w = (width + 1) / 2, h = (height + 1) / 2
        var out = [UInt8](repeating: 0, count: w * h * 4)
        // Index arithmetic on pointers, in while loops: this is the debug build's reference for
        // every level of every pyramid test, and ranges and array subscripts there cost a call each.
        pixels.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                let p = source.baseAddress!, q = target.baseAddress!
                var y = 0
                while y < h {
                    let row0 = 2 * y * width, row1 = (2 * y + 1 < height ? 2 * y + 1 : height - 1) * width
                    var x = 0
                    while x < w {
                        let x0 = 2 * x, x1 = 2 * x + 1 < width ? 2 * x + 1 : width - 1
                        var c = 0
                        while c < 4 {
                            let sum =
                                Int(p[(row0 + x0) * 4 + c]) + Int(p[(row0 + x1) * 4 + c]) + Int(p[(row1 + x0) * 4 + c])
                                + Int(p[(row1 + x1) * 4 + c])
                            q[(y * w + x) * 4 + c] = UInt8(truncatingIfNeeded: (sum + 2) >> 2)
                            c += 1
                        }
                        x += 1
                    }
                    y += 1
                }
            }
        }
        return Bitmap(width: w, height: h, pixels: out)
    }

    /// The largest difference of any channel (Int.max when the sizes differ).
    func maximumDifference(to other: Bitmap) -> Int {
        guard width == other.width, height == other.height else { return Int.max }
        return pixels.withUnsafeBytes { a in other.pixels.withUnsafeBytes { b in SampleComparison.largestDifference(a, b) } }
    }

    /// Equal sizes and the same bytes (compared whole, not sample by sample as `[UInt8]`'s `==`
    /// does in the debug build).
    static func == (a: Bitmap, b: Bitmap) -> Bool {
        a.width == b.width && a.height == b.height
            && a.pixels.withUnsafeBytes { a in b.pixels.withUnsafeBytes { b in SampleComparison.equal(a, b) } }
    }
}

/// Feeds `bytes` to a builder in chunks of `chunkSize`.
func buildPyramid(_ bytes: [UInt8], chunkSize: Int, destination: TilePyramidDestination, options: TilePyramidOptions = .init()) throws
    -> TilePyramid
{
    let builder = try TilePyramidBuilder(destination: destination, options: options)
    try append(bytes[...], to: builder, chunkSize: chunkSize)
    return try builder.finish()
}

/// Appends `bytes` to `builder` in chunks of `chunkSize` (the last one shorter).
func append(_ bytes: ArraySlice<UInt8>, to builder: TilePyramidBuilder, chunkSize: Int) throws {
    var start = bytes.startIndex
    while start < bytes.endIndex {
        let end = min(bytes.endIndex, start + chunkSize)
        try builder.append(Array(bytes[start..<end]))
        start = end
    }
}

/// Checks level 0 against `reference` exactly and every further level against the box filter of
/// the one above (±1).
func expectPyramid(_ pyramid: TilePyramid, matches reference: Bitmap, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let levels = pyramid.geometry.levels
    let top = try Bitmap(level: 0, of: pyramid)
    #expect(top.width == reference.width && top.height == reference.height, sourceLocation: sourceLocation)
    #expect(top.maximumDifference(to: reference) == 0, "level 0 equals the plain decode", sourceLocation: sourceLocation)
    var previous = top
    for level in levels.dropFirst() {
        let actual = try Bitmap(level: level.index, of: pyramid)
        let expected = previous.halved()
        #expect(
            actual.maximumDifference(to: expected) <= 1, "level \(level.index) equals the box filter of level \(level.index - 1)",
            sourceLocation: sourceLocation)
        previous = actual
    }
}

/// A pyramidal TIFF of raw tiles at `path`: lossless, so that tests compare its tiles exactly.
func rawTIFF(_ path: String) -> TilePyramidDestination {
    .tiff(path, compression: PyramidTIFFCompression.none)
}
