import FICCore
import FICTestSupport
import Foundation
import ImageCodec
import Logging
import Testing
import TiledImage
import TileServer

/// A store holding one pyramid of a generated pattern, whose every pixel the tests know without
/// the package: red rises left to right, green top to bottom, blue is a checkerboard of
/// 37 × 23 cells.
final class PatternStore: @unchecked Sendable {
    static let width = 1500, height = 1100
    let folder: String
    let server: TileServer
    static let name = "pattern"

    init(options: TileServerOptions = .init(), logger: Logger = Logger(label: "TileServer")) throws {
        folder = try ExternalTools.makeFolder("tile-server-tests")
        var pixels = [UInt8](repeating: 0, count: Self.width * Self.height * 4)
        for y in 0..<Self.height {
            for x in 0..<Self.width {
                let p = Self.pixel(x, y), i = (y * Self.width + x) * 4
                (pixels[i], pixels[i + 1], pixels[i + 2], pixels[i + 3]) = (p.b, p.g, p.r, 255)
            }
        }
        let source = folder + "/pattern.png"
        try pixels.withUnsafeBytes {
            try PNGEncoder.write(
                pixels: $0.baseAddress!, width: Self.width, height: Self.height, bytesPerRow: Self.width * 4, format: .bgrx32, to: source)
        }
        try FileManager.default.createDirectory(atPath: folder + "/store", withIntermediateDirectories: true)
        // Uncompressed tiles: the tests check the server's arithmetic against the pattern exactly.
        _ = try TilePyramidStore(path: folder + "/store", byteLimit: Int.max).build(
            Self.name, contentsOf: source, compression: PyramidTIFFCompression.none)
        server = try TileServer(storePath: folder + "/store", options: options, logger: logger)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// The pattern's pixel at (`x`, `y`).
    static func pixel(_ x: Int, _ y: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
        (UInt8(x * 255 / (width - 1)), UInt8(y * 255 / (height - 1)), (x / 37 + y / 23) % 2 == 0 ? 40 : 210)
    }

    /// The average of the pattern over the full-resolution area [x0, x1) × [y0, y1) (fractional
    /// edges weighted), in doubles: the reference of scaled answers.
    static func average(x0: Double, y0: Double, x1: Double, y1: Double) -> (r: Double, g: Double, b: Double) {
        var sum = (r: 0.0, g: 0.0, b: 0.0), total = 0.0
        for y in Int(y0.rounded(.down))..<Int(y1.rounded(.up)) {
            let wy = min(Double(y + 1), y1) - max(Double(y), y0)
            for x in Int(x0.rounded(.down))..<Int(x1.rounded(.up)) {
                let w = (min(Double(x + 1), x1) - max(Double(x), x0)) * wy
                let p = pixel(x, y)
                sum.r += w * Double(p.r); sum.g += w * Double(p.g); sum.b += w * Double(p.b)
                total += w
            }
        }
        return (sum.r / total, sum.g / total, sum.b / total)
    }

    /// GETs `path` from the server (no HTTP: its framework-free entry).
    func get(_ path: String, host: String = "tiles.test:8080", ifNoneMatch: String? = nil, ifModifiedSince: String? = nil) async
        -> TileServerResponse
    {
        await server.respond(to: TileServerRequest(path: path, host: host, ifNoneMatch: ifNoneMatch, ifModifiedSince: ifModifiedSince))
    }
}

/// A decoded answer: its size and each pixel's red, green and blue.
struct Picture {
    let width: Int
    let height: Int
    private let bytes: [UInt8]
    private let bytesPerRow: Int

    init(_ file: [UInt8]) throws {
        let image = try ImageDecoder.decode(file)
        width = image.width
        height = image.height
        bytesPerRow = image.bytesPerRow
        bytes = image.withUnsafeBytes { Array($0) }
    }

    func pixel(_ x: Int, _ y: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
        let i = y * bytesPerRow + x * 4
        return (bytes[i + 2], bytes[i + 1], bytes[i])
    }
}
