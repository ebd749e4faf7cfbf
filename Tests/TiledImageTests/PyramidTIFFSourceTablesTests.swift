import FICTestSupport
import Foundation
import ImageCodec
import Testing
@testable import TiledImage

/// A JPEG tiled with the default compression keeps its own quantisation at level 0: every
/// full-resolution tile carries the source's tables (read from the files' DQT markers here, not
/// from the package), comes back nearer the source's plain decode (djpeg's) than quality 95's
/// tiles, in fewer bytes; the reduced levels, new pixels, keep the default quality's tables. A
/// quality asked for, and a source whose blocks are not the tiles' (rotated), keep the quality's
/// tables.
@Suite struct PyramidTIFFSourceTablesTests {
    typealias F = PyramidTIFFFixtures

    /// The quantisation tables of the JPEG `bytes` by table number, in natural order (a DQT marker
    /// lists them in zigzag order).
    static func tables(_ bytes: [UInt8]) -> [Int: [UInt16]] {
        let zigzag = [
            0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28, 35, 42,
            49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63
        ]
        var found: [Int: [UInt16]] = [:]
        var i = 2
        while i + 4 <= bytes.count, bytes[i] == 0xFF {
            let marker = bytes[i + 1], length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            if marker == 0xDA { break }
            if marker == 0xDB {
                var j = i + 4
                while j < i + 2 + length {
                    let precision = bytes[j] >> 4, id = Int(bytes[j] & 15)
                    var table = [UInt16](repeating: 0, count: 64)
                    for k in 0..<64 {
                        table[zigzag[k]] =
                            precision == 0 ? UInt16(bytes[j + 1 + k]) : UInt16(bytes[j + 1 + 2 * k]) << 8 | UInt16(bytes[j + 2 + 2 * k])
                    }
                    found[id] = table
                    j += 1 + (precision == 0 ? 64 : 128)
                }
            }
            i += 2 + length
        }
        return found
    }

    /// A binary PPM's pixels as BGRA, alpha 255.
    static func ppm(_ bytes: [UInt8]) throws -> Bitmap {
        var fields: [Int] = [], i = 2
        while fields.count < 3 {
            while bytes[i] == 0x20 || bytes[i] == 0x0A { i += 1 }
            var value = 0
            while bytes[i] >= 0x30 && bytes[i] <= 0x39 {
                value = value * 10 + Int(bytes[i] - 0x30)
                i += 1
            }
            fields.append(value)
        }
        i += 1
        let (width, height) = (fields[0], fields[1])
        try #require(Array(bytes.prefix(2)) == Array("P6".utf8) && bytes.count - i == width * height * 3)
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for p in 0..<(width * height) {
            pixels[p * 4] = bytes[i + p * 3 + 2]
            pixels[p * 4 + 1] = bytes[i + p * 3 + 1]
            pixels[p * 4 + 2] = bytes[i + p * 3]
        }
        return Bitmap(width: width, height: height, pixels: pixels)
    }

    /// `photo` encoded by cjpeg at quality 90 (4:2:0, as a camera or a web site stores it), its
    /// decode by djpeg, and the tables of a cjpeg file at the default quality.
    static func source(_ photo: String, folder: String) throws -> (path: String, decode: Bitmap, defaultQuality: [Int: [UInt16]]) {
        let decoded = folder + "/source.ppm", path = folder + "/source.jpg"
        try ExternalTools.run("/usr/bin/djpeg", ["-outfile", decoded, Fixtures.path("photos/" + photo)])
        try ExternalTools.run("/usr/bin/cjpeg", ["-quality", "90", "-outfile", path, decoded])
        try ExternalTools.run(
            "/usr/bin/cjpeg", ["-quality", PyramidTIFFQualityTests.defaultCjpegQuality, "-outfile", folder + "/default.jpg", decoded])
        try ExternalTools.run("/usr/bin/djpeg", ["-outfile", folder + "/decode.ppm", path])
        return (
            path, try ppm(try Fixtures.bytes(atPath: folder + "/decode.ppm")), tables(try Fixtures.bytes(atPath: folder + "/default.jpg"))
        )
    }

    @Test(arguments: ["astronaut.jpg", "chelsea.jpg", "coffee.jpg", "hubble.jpg", "retina.jpg", "rocket.jpg"])
    func levelZeroKeepsTheSourcesTables(photo: String) throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let source = try Self.source(photo, folder: folder)
        let sourceTables = Self.tables(try Fixtures.bytes(atPath: source.path))
        #expect(sourceTables.count == 2 && sourceTables != source.defaultQuality)
        let sourceBytes = try Fixtures.bytes(atPath: source.path).count

        _ = try TilePyramidBuilder.build(contentsOf: source.path, destination: .tiff(folder + "/default.tif"))
        _ = try TilePyramidBuilder.build(contentsOf: source.path, destination: .tiff(folder + "/q95.tif", compression: .jpeg(quality: 95)))
        let ours = try PyramidTIFFReader(path: folder + "/default.tif"), q95 = try PyramidTIFFReader(path: folder + "/q95.tif")
        for level in ours.levels.indices {
            for index in 0..<(ours.levels[level].columns * ours.levels[level].rows) {
                let (column, row) = (index % ours.levels[level].columns, index / ours.levels[level].columns)
                let tables = Self.tables(try ours.tileBytes(level: level, column: column, row: row))
                #expect(tables == (level == 0 ? sourceTables : source.defaultQuality), "\(photo): level \(level) tile \(column),\(row)")
            }
        }
        // Level 0 against the source's plain decode: nearer, and smaller, than quality 95.
        let decoded = try F.decodedLevel(ours, level: 0), decoded95 = try F.decodedLevel(q95, level: 0)
        let (psnr, psnr95) = (F.psnr(decoded, source.decode), F.psnr(decoded95, source.decode))
        func levelBytes(_ reader: PyramidTIFFReader, _ level: Int) throws -> Int {
            let info = reader.levels[level]
            return try (0..<(info.columns * info.rows)).reduce(0) {
                $0 + (try reader.tileBytes(level: level, column: $1 % info.columns, row: $1 / info.columns).count)
            }
        }
        let (bytes, bytes95) = (try levelBytes(ours, 0), try levelBytes(q95, 0))
        let fileBytes = try Fixtures.bytes(atPath: folder + "/default.tif").count
        print(
            "\(photo): level 0 \(String(format: "%.1f", psnr)) dB in \(bytes) bytes (quality 95: \(String(format: "%.1f", psnr95)) dB in \(bytes95)); source \(sourceBytes) bytes, the whole TIFF \(fileBytes) (\(String(format: "%.2f", Double(fileBytes) / Double(sourceBytes)))×)"
        )
        #expect(psnr >= 44 && psnr > psnr95, "\(photo): \(psnr) dB, quality 95's \(psnr95) dB")
        #expect(bytes < bytes95, "\(photo): \(bytes) bytes, quality 95's \(bytes95)")
    }

    @Test func aQualityAskedForOrARotatedSourceKeepsTheQualitysTables() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let source = try Self.source("hubble.jpg", folder: folder)
        try ExternalTools.run("/usr/bin/cjpeg", ["-quality", "95", "-outfile", folder + "/q95.jpg", folder + "/source.ppm"])
        let quality95 = Self.tables(try Fixtures.bytes(atPath: folder + "/q95.jpg"))
        _ = try TilePyramidBuilder.build(contentsOf: source.path, destination: .tiff(folder + "/q95.tif", compression: .jpeg(quality: 95)))
        let q95 = try PyramidTIFFReader(path: folder + "/q95.tif")
        for level in q95.levels.indices {
            #expect(Self.tables(try q95.tileBytes(level: level, column: 0, row: 0)) == quality95, "level \(level)")
        }
        // A 4:4:4 source: its luma blocks are the tiles' too, its chroma steps as fine as the file's.
        try ExternalTools.run(
            "/usr/bin/cjpeg", ["-quality", "90", "-sample", "1x1", "-outfile", folder + "/444.jpg", folder + "/source.ppm"])
        _ = try TilePyramidBuilder.build(contentsOf: folder + "/444.jpg", destination: .tiff(folder + "/444.tif"))
        let full = try PyramidTIFFReader(path: folder + "/444.tif")
        #expect(
            Self.tables(try full.tileBytes(level: 0, column: 1, row: 1)) == Self.tables(try Fixtures.bytes(atPath: folder + "/444.jpg")))
        #expect(Self.tables(try full.tileBytes(level: 1, column: 0, row: 0)) == source.defaultQuality)
        // Its luma re-quantised on the same blocks with the same steps (its colour, averaged to
        // 4:2:0, is held to about 35 dB by the averaging alone).
        let luma = F.lumaPSNR(try F.decodedLevel(full, level: 0), try Bitmap(decoding: try Fixtures.bytes(atPath: folder + "/444.jpg")))
        #expect(luma >= 44, "4:4:4 source: level 0's luma \(luma) dB from the source's decode")
        // Orientation 6 (turned a quarter): the stored blocks are not the tiles' blocks.
        let rotated = folder + "/rotated.jpg"
        try ExternalTools.run("/usr/bin/exiftool", ["-q", "-n", "-Orientation=6", "-o", rotated, source.path])
        _ = try TilePyramidBuilder.build(contentsOf: rotated, destination: .tiff(folder + "/rotated.tif"))
        let reader = try PyramidTIFFReader(path: folder + "/rotated.tif")
        #expect(reader.levels[0].width == source.decode.height, "upright")
        #expect(Self.tables(try reader.tileBytes(level: 0, column: 0, row: 0)) == source.defaultQuality)
    }
}
