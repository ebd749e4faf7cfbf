import FICHarness
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
        pixels = []
        pixels.reserveCapacity(width * height * 4)
        image.withUnsafeBytes { raw in
            for y in 0..<height {
                pixels.append(
                    contentsOf: UnsafeRawBufferPointer(rebasing: raw[(y * image.bytesPerRow)..<(y * image.bytesPerRow + width * 4)]))
            }
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
                    for y in 0..<valid.height {
                        let target = ((row * 256 + y) * width + column * 256) * 4
                        for i in 0..<(valid.width * 4) { pixels[target + i] = tile[y * 1024 + i] }
                    }
                }
            }
        }
    }

    /// The 2 × 2 box filter reference: odd sizes round up, a missing column or row repeats the last.
    func halved() -> Bitmap {
        let w = (width + 1) / 2, h = (height + 1) / 2
        var out = [UInt8](repeating: 0, count: w * h * 4)
        for y in 0..<h {
            let y0 = 2 * y, y1 = min(2 * y + 1, height - 1)
            for x in 0..<w {
                let x0 = 2 * x, x1 = min(2 * x + 1, width - 1)
                for c in 0..<4 {
                    let sum =
                        Int(pixels[(y0 * width + x0) * 4 + c]) + Int(pixels[(y0 * width + x1) * 4 + c])
                        + Int(pixels[(y1 * width + x0) * 4 + c]) + Int(pixels[(y1 * width + x1) * 4 + c])
                    out[(y * w + x) * 4 + c] = UInt8((sum + 2) >> 2)
                }
            }
        }
        return Bitmap(width: w, height: h, pixels: out)
    }

    /// The largest difference of any channel (Int.max when the sizes differ).
    func maximumDifference(to other: Bitmap) -> Int {
        guard width == other.width, height == other.height else { return Int.max }
        var worst = 0
        for i in 0..<pixels.count { worst = max(worst, abs(Int(pixels[i]) - Int(other.pixels[i]))) }
        return worst
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
