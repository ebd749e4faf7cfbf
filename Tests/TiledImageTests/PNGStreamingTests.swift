import FICTestSupport
import Foundation
import ImageCodec
import Testing
@testable import TiledImage

/// PNGs stream through ImageCodec's row decoder: transparency of grey images at every bit depth,
/// `eXIf` orientation, interlaced images within a memory limit.
@Suite struct PNGStreamingTests {
    static let width = 600, height = 520

    @Test(arguments: [1, 2, 4, 8, 16])
    func greyTransparencyAtEveryDepth(bits: Int) throws {
        let levels = try PNGMaker.greyLevels(width: Self.width, height: Self.height)
        let maximum = (1 << bits) - 1
        let samples = levels.map { Int($0) * maximum / 255 }
        let transparent = samples[samples.count / 2]
        let png = PNGFiles.png(
            width: Self.width, height: Self.height, bitDepth: UInt8(bits), colorType: 0,
            rows: PNGFiles.pack(samples, width: Self.width, bits: bits),
            extra: [PNGFiles.chunk("tRNS", [UInt8(transparent >> 8), UInt8(transparent & 0xFF)])], idatBytes: 8192)
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let pyramid = try buildPyramid(png, chunkSize: 3000, destination: .temporary(folder: folder))
        #expect(pyramid.hasAlpha)
        #expect(pyramid.geometry.levels.count == 3)
        // Level 0 against the samples themselves: the transparent level is (0, 0, 0, 0), every
        // other one its grey, opaque.
        let top = try Bitmap(level: 0, of: pyramid)
        var wrong = 0, clear = 0
        for (index, sample) in samples.enumerated() {
            let grey = UInt8((sample * 255 + maximum / 2) / maximum)
            let expected: [UInt8] = sample == transparent ? [0, 0, 0, 0] : [grey, grey, grey, 255]
            if sample == transparent { clear += 1 }
            if Array(top.pixels[(index * 4)..<(index * 4 + 4)]) != expected { wrong += 1 }
        }
        #expect(wrong == 0, "\(wrong) pixels differ at \(bits) bits")
        #expect(clear > 0)
        try expectPyramid(pyramid, matches: Bitmap(decoding: png))
    }

    @Test(arguments: [false, true])
    func exifOrientationIsApplied(prefixed: Bool) throws {
        let payload = (prefixed ? Array("Exif".utf8) + [0, 0] : []) + PNGFiles.exif(orientation: 6)
        let levels = try PNGMaker.greyLevels(width: Self.width, height: Self.height)
        let plain = PNGFiles.png(
            width: Self.width, height: Self.height, bitDepth: 8, colorType: 0,
            rows: PNGFiles.pack(levels.map(Int.init), width: Self.width, bits: 8), idatBytes: 8192)
        let rotated = PNGFiles.inserting(PNGFiles.chunk("eXIf", payload), into: plain, before: "IDAT")
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        for chunk in [1000, 1 << 20] {
            let pyramid = try buildPyramid(rotated, chunkSize: chunk, destination: .temporary(folder: folder))
            #expect(pyramid.sourceOrientation == .right)
            #expect(pyramid.geometry.width == Self.height && pyramid.geometry.height == Self.width)
            // Orientation 6: display pixel (x, y) is stored pixel (y, height - 1 - x).
            let top = try Bitmap(level: 0, of: pyramid)
            var wrong = 0
            for y in 0..<top.height {
                for x in 0..<top.width where top.pixels[(y * top.width + x) * 4] != levels[(Self.height - 1 - x) * Self.width + y] {
                    wrong += 1
                }
            }
            #expect(wrong == 0)
            try expectPyramid(pyramid, matches: Bitmap(decoding: rotated))
        }
        // With alpha too (the bundled RGBA photograph).
        let astronaut = try Fixtures.bytes("png/astronaut-rgba.png")
        let withAlpha = PNGFiles.inserting(PNGFiles.chunk("eXIf", payload), into: astronaut, before: "IDAT")
        let pyramid = try buildPyramid(withAlpha, chunkSize: 4096, destination: .temporary(folder: folder))
        #expect(pyramid.sourceOrientation == .right && pyramid.hasAlpha)
        try expectPyramid(pyramid, matches: Bitmap(decoding: withAlpha))
    }

    @Test func interlacedPNGOverTheSampleLimitIsRefusedAtItsHeader() throws {
        // 20000 × 20000, 16-bit RGBA, interlaced: 3.2 GB of samples before the first row.
        let header = PNGFiles.bigEndian32(20000) + PNGFiles.bigEndian32(20000) + [16, 6, 0, 0, 1]
        let png = PNGFiles.signature + PNGFiles.chunk("IHDR", header) + PNGFiles.chunk("IDAT", [0x78, 0x01])
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let error = try #require(throws: ImageCacheError.self) {
            _ = try buildPyramid(png, chunkSize: 7, destination: rawTIFF(folder + "/p.tif"))
        }
        #expect(error.code == .overMemoryBudget)
        BadInputTests.expectNothingLeft(in: folder)
    }

    @Test func interlacedPNGStreamsLikeItsPlainTwin() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let plain = try buildPyramid(try Fixtures.bytes("png/astronaut-rgb.png"), chunkSize: 999, destination: .temporary(folder: folder))
        let interlaced = try buildPyramid(
            try Fixtures.bytes("png/astronaut-interlaced.png"), chunkSize: 999, destination: .temporary(folder: folder))
        #expect(try Bitmap(level: 0, of: interlaced).maximumDifference(to: Bitmap(level: 0, of: plain)) == 0)
    }
}
