import Dispatch
import FICHarness
import FICTestSupport
import Foundation
import ImageCodec
import Testing
@testable import TiledImage

/// Sources, writes and references for the pyramidal TIFF tests.
enum PyramidTIFFFixtures {
    static let vips = "/usr/bin/vips"

    /// A pyramid of a photo resized by vips to exactly `width × height` (sRGB, untagged), with an
    /// alpha band taken from its green samples (so it varies everywhere) when `alpha`.
    static func source(_ photo: String = "photos/hubble.jpg", width: Int, height: Int, alpha: Bool, in folder: String) throws
        -> TilePyramid
    {
        let name = "\(width)x\(height)\(alpha ? "a" : "")"
        let resized = folder + "/\(name)-rgb.png"
        try ExternalTools.run(
            vips,
            [
                "thumbnail", Fixtures.path(photo), resized, "\(width)", "--height", "\(height)", "--size", "force", "--export-profile",
                "srgb"
            ])
        var path = resized
        if alpha {
            let band = folder + "/\(name)-alpha.v"
            path = folder + "/\(name).png"
            try ExternalTools.run(vips, ["extract_band", resized, band, "1"])
            try ExternalTools.run(vips, ["bandjoin", "\(resized) \(band)", path])
        }
        let pyramid = try TilePyramidBuilder.build(contentsOf: path, destination: .temporary(folder: folder))
        #expect(pyramid.geometry.width == width && pyramid.geometry.height == height && pyramid.hasAlpha == alpha)
        return pyramid
    }

    /// Every tile of every level of `pyramid` (row-major per level).
    static func tiles(of pyramid: TilePyramid) throws -> [[[UInt8]]] {
        try pyramid.geometry.levels.map { level in
            try (0..<level.tileCount).map { try pyramid.tile(level: level.index, column: $0 % level.columns, row: $0 / level.columns) }
        }
    }

    /// Writes `tiles` as a pyramidal TIFF at `path`, in a shuffled order (seeded), compressed on
    /// two threads at once, appended under the writer's lock.
    @discardableResult
    static func write(
        _ tiles: [[[UInt8]]], geometry: PyramidGeometry, hasAlpha: Bool, compression: PyramidTIFFCompression, to path: String,
        seed: UInt64 = 1
    ) throws -> PyramidTIFFLayout {
        let writer = try PyramidTIFFWriter(path: path, geometry: geometry, compression: compression, hasAlpha: hasAlpha)
        var order = geometry.levels.flatMap { level in (0..<level.tileCount).map { (level.index, $0) } }
        var generator = SplitMix64(seed: seed)
        order.shuffle(using: &generator)
        let failures = LockedFailures(), shuffled = order
        DispatchQueue.concurrentPerform(iterations: 2) { half in
            for (i, (level, index)) in shuffled.enumerated() where i % 2 == half {
                let columns = geometry.levels[level].columns
                do {
                    let bytes = try tiles[level][index].withUnsafeBytes {
                        try writer.encode(level: level, column: index % columns, row: index / columns, pixels: $0)
                    }
                    try writer.append(bytes, level: level, column: index % columns, row: index / columns)
                } catch {
                    failures.add(error)
                }
            }
        }
        if let error = failures.first { throw error }
        try writer.finish()
        return writer.layout
    }

    /// Level `level` of `tiles` as a bitmap without the padding.
    static func bitmap(_ tiles: [[[UInt8]]], level: TileLevel) -> Bitmap {
        var pixels = [UInt8](repeating: 0, count: level.width * level.height * 4)
        for row in 0..<level.rows {
            for column in 0..<level.columns {
                let tile = tiles[level.index][row * level.columns + column]
                let valid = level.validSize(column: column, row: row)
                for y in 0..<valid.height {
                    let target = ((row * 256 + y) * level.width + column * 256) * 4
                    pixels.replaceSubrange(target..<(target + valid.width * 4), with: tile[(y * 1024)..<(y * 1024 + valid.width * 4)])
                }
            }
        }
        return Bitmap(width: level.width, height: level.height, pixels: pixels)
    }

    /// Page `page` of the TIFF at `path` as vips reads it, through a PNG.
    static func vipsPage(_ path: String, page: Int, folder: String) throws -> Bitmap {
        try Bitmap(decoding: ExternalTools.vipsPagePNG(path, page: page, folder: folder))
    }

    /// The peak signal-to-noise ratio of the colour samples of `a` against `b`, in dB (infinity
    /// when equal).
    static func psnr(_ a: Bitmap, _ b: Bitmap) -> Double {
        precondition(a.width == b.width && a.height == b.height)
        return a.pixels.withUnsafeBytes { a in b.pixels.withUnsafeBytes { b in SampleComparison.psnr(a, b, skippingFourth: true) } }
    }

    /// The PSNR of the luma (BT.601 Y) of `a` against `b`, in dB: what JPEG's 4:2:0 keeps at full
    /// resolution (its chroma is averaged over 2 × 2 pixels, which alone limits the PSNR of the
    /// colour samples of detailed photos to about 35 dB at any quality).
    static func lumaPSNR(_ a: Bitmap, _ b: Bitmap) -> Double {
        precondition(a.width == b.width && a.height == b.height)
        var squared = 0.0
        // A while loop over pointers: ranges and array subscripts cost a call each in the debug build.
        a.pixels.withUnsafeBufferPointer { a in
            b.pixels.withUnsafeBufferPointer { b in
                let p = a.baseAddress!, q = b.baseAddress!
                var i = 0
                while i < a.count {
                    let d =
                        0.114 * (Double(p[i]) - Double(q[i])) + 0.587 * (Double(p[i + 1]) - Double(q[i + 1])) + 0.299
                        * (Double(p[i + 2]) - Double(q[i + 2]))
                    squared += d * d
                    i += 4
                }
            }
        }
        return SampleComparison.psnr(squaredError: squared, count: a.width * a.height)
    }

    /// What a tool printed on its standard error and output, together (libtiff's tools print
    /// warnings and errors on standard error).
    static func output(of tool: String, _ arguments: [String], folder: String) throws -> String {
        let out = folder + "/tool-\(UInt32.random(in: 0...UInt32.max)).txt"
        let err = out + ".err"
        defer {
            unlink(out)
            unlink(err)
        }
        let pid = try ExternalTools.spawn(tool, arguments, standardOutput: out, standardError: err)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        let text = String(decoding: try ExternalTools.bytes(atPath: out), as: UTF8.self)
        let errors = String(decoding: try ExternalTools.bytes(atPath: err), as: UTF8.self)
        return errors + text + (status == 0 ? "" : "\nexit status \(status)")
    }
}

/// Errors collected from several threads.
final class LockedFailures: @unchecked Sendable {
    private let lock = NSLock()
    private var errors: [any Error] = []

    func add(_ error: any Error) { lock.withLock { errors.append(error) } }
    var first: (any Error)? { lock.withLock { errors.first } }
}

extension PyramidTIFFFixtures {
    /// Level `level` of a pyramidal TIFF decoded by the reader, without the padding.
    static func decodedLevel(_ reader: PyramidTIFFReader, level: Int) throws -> Bitmap {
        let info = reader.levels[level]
        var pixels = [UInt8](repeating: 0, count: info.width * info.height * 4)
        for row in 0..<info.rows {
            for column in 0..<info.columns {
                let tile = try reader.decodeTile(level: level, column: column, row: row)
                let validWidth = min(info.tileWidth, info.width - column * info.tileWidth)
                let validHeight = min(info.tileHeight, info.height - row * info.tileHeight)
                for y in 0..<validHeight {
                    let target = ((row * info.tileHeight + y) * info.width + column * info.tileWidth) * 4
                    let source = y * info.tileWidth * 4
                    pixels.replaceSubrange(target..<(target + validWidth * 4), with: tile[source..<(source + validWidth * 4)])
                }
            }
        }
        return Bitmap(width: info.width, height: info.height, pixels: pixels)
    }

    /// The number of pages vips finds in the TIFF at `path`.
    static func vipsPageCount(_ path: String, folder: String) throws -> Int {
        let said = try output(of: "/usr/bin/vipsheader", ["-f", "n-pages", path], folder: folder)
        return Int(said.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }
}
