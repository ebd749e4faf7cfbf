import FICHarness
import FICTestSupport
import Foundation
import ImageCodec
import Testing
@testable import TiledImage

/// Damaged and hostile pyramidal TIFFs: each refused with an `ImageCacheError`, never a crash,
/// a hang or a huge allocation.
@Suite struct PyramidTIFFHostileTests {
    typealias F = PyramidTIFFFixtures

    /// A small pyramid (257 × 255: 2 × 1 tiles, then one) written with `compression`.
    static func smallFile(_ compression: PyramidTIFFCompression, bigTIFF: Bool = false, hasAlpha: Bool = false, in folder: String) throws
        -> (bytes: [UInt8], layout: PyramidTIFFLayout)
    {
        let geometry = try PyramidGeometry(width: 257, height: 255)
        var tiles: [[[UInt8]]] = []
        for level in geometry.levels {
            tiles.append(
                (0..<level.tileCount).map { index in
                    (0..<PyramidGeometry.tileBytes).map {
                        $0 % 4 == 3 && !hasAlpha ? 255 : UInt8(truncatingIfNeeded: ($0 / 4) &* 13 &+ index &* 7 &+ $0 % 4 &* 50)
                    }
                })
        }
        let path = folder + "/small.tif"
        let layout = try PyramidTIFFLayout(levels: geometry.levels, compression: compression, hasAlpha: hasAlpha, forceBigTIFF: bigTIFF)
        let writer = try PyramidTIFFWriter(path: path, layout: layout)
        for level in geometry.levels {
            for index in 0..<level.tileCount {
                try tiles[level.index][index].withUnsafeBytes {
                    try writer.write(level: level.index, column: index % level.columns, row: index / level.columns, pixels: $0)
                }
            }
        }
        try writer.finish()
        return (try ExternalTools.bytes(atPath: path), layout)
    }

    /// Reads `bytes` as far as it goes: the levels, then every tile, decoded. Returns the error
    /// met first, if any; any error that is not an `ImageCacheError` fails the test.
    @discardableResult
    static func readEverything(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> ImageCacheError? {
        do {
            let reader = try PyramidTIFFReader(source: PyramidTIFFMemorySource(bytes))
            for (i, level) in reader.levels.enumerated() {
                for row in 0..<level.rows {
                    for column in 0..<level.columns {
                        _ = try reader.decodeTile(level: i, column: column, row: row)
                    }
                }
            }
            return nil
        } catch let error as ImageCacheError {
            return error
        } catch {
            Issue.record("not an ImageCacheError: \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    /// A JPEG tile whose frame claims an image far larger than a tile (9000 × 9000, within the
    /// decoders' default limit) is refused before anything of that size is allocated.
    @Test func aJPEGTileClaimingAHugeFrameIsRefusedUnallocated() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let geometry = try PyramidGeometry(width: 200, height: 100)
        let path = folder + "/one-tile.tif"
        let writer = try PyramidTIFFWriter(path: path, geometry: geometry, compression: .jpeg, hasAlpha: false)
        let tile = [UInt8](repeating: 200, count: PyramidGeometry.tileBytes)
        try tile.withUnsafeBytes { try writer.write(level: 0, column: 0, row: 0, pixels: $0) }
        try writer.finish()
        var bytes = try ExternalTools.bytes(atPath: path)
        let level = try PyramidTIFFReader(source: PyramidTIFFMemorySource(bytes)).levels[0]
        let tileRange = level.tileOffsets[0]..<(level.tileOffsets[0] + level.tileByteCounts[0])
        // The baseline frame header: FF C0, length, precision, then height and width.
        let sof = try #require(tileRange.first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
        #expect(Self.readEverything(bytes) == nil, "the tile as written decodes")
        bytes.replaceSubrange((sof + 5)..<(sof + 9), with: [0x23, 0x28, 0x23, 0x28])
        let probe = AllocationProbe()
        let error = AllocationProbe.$current.withValue(probe) { Self.readEverything(bytes) }
        #expect(error != nil, "a 9000 × 9000 tile is refused")
        #expect(probe.largestBytes < 8 << 20, "largest buffer: \(probe.largestBytes) bytes")
    }

    /// A file cut anywhere in its header region, or inside its tiles, is refused.
    @Test(arguments: [false, true])
    func truncationsAreRefused(bigTIFF: Bool) throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let (bytes, layout) = try Self.smallFile(.deflate, bigTIFF: bigTIFF, in: folder)
        #expect(Self.readEverything(bytes) == nil)
        for cut in Array(0...layout.header.count) + stride(from: layout.header.count + 1, to: bytes.count, by: 97) {
            let error = Self.readEverything(Array(bytes[0..<cut]))
            #expect(error != nil, "cut at \(cut) of \(bytes.count)")
        }
    }

    /// Random bytes flipped in the header region of each kind of file, vips's JPEG pyramid
    /// (JPEGTables, abbreviated tiles) included: errors or pictures, never a crash.
    @Test(arguments: ["jpeg", "deflate", "none", "vips-jpeg"])
    func randomFlipsNeverCrash(kind: String) throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        var bytes: [UInt8], region: [Int]
        if kind == "vips-jpeg" {
            try ExternalTools.run(
                F.vips,
                [
                    "tiffsave", Fixtures.path("photos/coffee.jpg"), folder + "/v.tif", "--tile", "--tile-width", "256", "--tile-height",
                    "256", "--pyramid", "--compression", "jpeg"
                ])
            bytes = try ExternalTools.bytes(atPath: folder + "/v.tif")
            // libtiff writes each IFD after the tiles: the bytes flipped are the header's and
            // those of each IFD and the values after it.
            let reader = try PyramidTIFFReader(source: PyramidTIFFMemorySource(bytes))
            region = Array(0..<16) + reader.levels.flatMap { $0.directoryOffset..<min(bytes.count, $0.directoryOffset + 1024) }
        } else {
            let compression: PyramidTIFFCompression = kind == "jpeg" ? .jpeg : kind == "deflate" ? .deflate : .none
            let small = try Self.smallFile(compression, in: folder)
            (bytes, region) = (small.bytes, Array(0..<small.layout.header.count))
        }
        let seed = UInt64.random(in: 0...UInt64.max)
        print("pyramidal TIFF byte flips (\(kind)): seed \(seed)")
        var random = SplitMix64(seed: seed)
        var refused = 0
        for _ in 0..<300 {
            var damaged = bytes
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                damaged[region.randomElement(using: &random)!] ^= UInt8.random(in: 1...255, using: &random)
            }
            if Self.readEverything(damaged) != nil { refused += 1 }
        }
        print("pyramidal TIFF byte flips (\(kind)): \(refused) of 300 refused")
    }

    /// An IFD chain that loops back to an IFD already read is refused.
    @Test func loopsAreRefused() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let (bytes, layout) = try Self.smallFile(.none, in: folder)
        var parser = try TIFFDirectoryParser(source: PyramidTIFFMemorySource(bytes))
        for (from, to) in [
            (layout.directoryPosition.last!, layout.directoryPosition[0]), (layout.directoryPosition[0], layout.directoryPosition[0])
        ] {
            let entries = try parser.directory(at: from).entries
            let nextField = from + 2 + entries.count * 12
            var looped = bytes
            for i in 0..<4 { looped[nextField + i] = UInt8(truncatingIfNeeded: to >> (8 * i)) }
            let error = try #require(Self.readEverything(looped))
            #expect(error.code == .damagedPyramid && error.message.contains("loops"), "\(error)")
        }
    }

    /// Counts of 2^60 (BigTIFF) and 2^32 - 1 (classic), in IFD entry counts and tag counts, are
    /// refused before anything of that size is read or allocated.
    @Test(arguments: [false, true])
    func absurdCountsAreRefused(bigTIFF: Bool) throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let (bytes, layout) = try Self.smallFile(.deflate, bigTIFF: bigTIFF, in: folder)
        var parser = try TIFFDirectoryParser(source: PyramidTIFFMemorySource(bytes))
        let size = bigTIFF ? 8 : 4
        let huge: UInt64 = bigTIFF ? 1 << 60 : UInt64(UInt32.max)
        func patched(_ position: Int, _ width: Int, _ value: UInt64) -> [UInt8] {
            var copy = bytes
            for i in 0..<width { copy[position + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(i))) }
            return copy
        }
        let directory = layout.directoryPosition[0]
        var damaged = [("the IFD's entry count", patched(directory, bigTIFF ? 8 : 2, bigTIFF ? huge : 0xFFFF))]
        for entry in try parser.directory(at: directory).entries where entry.tag != TIFFTag.software {
            // Each tag's count made absurd (Software, which nothing reads, aside), then each
            // array's offset.
            damaged.append(("the count of tag \(entry.tag)", patched(entry.field - size, size, huge)))
            if [TIFFTag.tileOffsets, TIFFTag.tileByteCounts, TIFFTag.bitsPerSample].contains(entry.tag) {
                damaged.append(("the value of tag \(entry.tag)", patched(entry.field, size, huge)))
            }
        }
        // The largest offset and byte count a field holds, for the first tile.
        let largest = bigTIFF ? UInt64.max : UInt64(UInt32.max)
        damaged.append(("the first tile's offset", patched(layout.tileOffsetsPosition[0], size, largest)))
        damaged.append(("the first tile's byte count", patched(layout.tileByteCountsPosition[0], size, largest)))
        for (what, file) in damaged {
            let error = Self.readEverything(file)
            #expect(error != nil, "\(what) set to \(huge)")
        }
    }

    /// ExtraSamples written as one 64-bit value of 2⁶⁴ − 1 (BigTIFF's LONG8 type): read as an
    /// extra sample that is not alpha, not a trap converting it to an Int.
    @Test func anExtraSampleBeyondIntIsNoTrap() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let (bytes, layout) = try Self.smallFile(.deflate, bigTIFF: true, hasAlpha: true, in: folder)
        var parser = try TIFFDirectoryParser(source: PyramidTIFFMemorySource(bytes))
        let entry = try #require(try parser.directory(at: layout.directoryPosition[0]).entries.first { $0.tag == TIFFTag.extraSamples })
        var damaged = bytes
        // A BigTIFF entry: tag (2 bytes), type (2), count (8), then the value field (8).
        damaged[entry.field - 10] = UInt8(TIFFTag.FieldType.long8)
        damaged[entry.field - 9] = 0
        for i in 0..<8 { damaged[entry.field + i] = 0xFF }
        let reader = try PyramidTIFFReader(source: PyramidTIFFMemorySource(damaged))
        #expect(!reader.levels[0].hasAlpha)
        #expect(Self.readEverything(damaged) == nil)
    }
}
