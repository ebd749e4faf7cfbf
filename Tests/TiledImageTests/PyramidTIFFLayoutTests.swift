import FICTestSupport
import Foundation
import Testing
@testable import TiledImage

/// The header region computed from the levels alone: IFDs and arrays where the layout says, tags
/// ascending, classic TIFF or BigTIFF chosen from the bound of the tile data.
@Suite struct PyramidTIFFLayoutTests {
    /// The entries of every IFD of a header region, parsed from its bytes.
    static func directories(_ layout: PyramidTIFFLayout) throws -> [[TIFFDirectoryParser.Entry]] {
        var parser = try TIFFDirectoryParser(source: PyramidTIFFMemorySource(layout.header))
        var result: [[TIFFDirectoryParser.Entry]] = []
        var next = parser.firstDirectory
        while next != 0 {
            let (entries, following) = try parser.directory(at: next)
            result.append(entries)
            next = following
        }
        return result
    }

    @Test(arguments: [(1, 1), (257, 255), (3000, 2000), (65535, 17)], [PyramidTIFFCompression.jpeg, .deflate, .none])
    func theHeaderRegionHoldsEveryIFDAndArray(size: (Int, Int), compression: PyramidTIFFCompression) throws {
        let geometry = try PyramidGeometry(width: size.0, height: size.1)
        for alpha in compression.isJPEG ? [false] : [false, true] {
            let layout = try PyramidTIFFLayout(geometry: geometry, compression: compression, hasAlpha: alpha)
            #expect(!layout.isBigTIFF && Array(layout.header[0..<4]) == [0x49, 0x49, 42, 0])
            let directories = try Self.directories(layout)
            #expect(directories.count == geometry.levels.count)
            for (level, entries) in zip(geometry.levels, directories) {
                let tags = entries.map(\.tag)
                #expect(tags == tags.sorted() && Set(tags).count == tags.count, "tags ascending, once each")
                let end = layout.tileOffsetsPosition[level.index] + level.tileCount * layout.offsetFieldSize
                #expect(
                    end <= layout.header.count && layout.tileByteCountsPosition[level.index] + level.tileCount * 4 <= layout.header.count)
                #expect(tags.contains(TIFFTag.extraSamples) == alpha)
                #expect(tags.contains(TIFFTag.yCbCrSubSampling) == compression.isJPEG)
            }
            #expect(layout.directoryPosition == layout.directoryPosition.sorted())
            // The header region alone is a TIFF whose tiles are all missing: the reader finds
            // every level in it, every tile's offset and byte count zero.
            let reader = try PyramidTIFFReader(source: PyramidTIFFMemorySource(layout.header))
            #expect(reader.levels.map(\.width) == geometry.levels.map(\.width))
            #expect(reader.levels.map(\.height) == geometry.levels.map(\.height))
            #expect(reader.levels.allSatisfy { $0.tileByteCounts.allSatisfy { $0 == 0 } })
            #expect(reader.levels.map(\.directoryOffset) == layout.directoryPosition)
        }
    }

    /// Classic TIFF while the bound of the tile data stays under 4 GiB, BigTIFF beyond: decided
    /// before any tile is written (no such file is written here).
    @Test func bigTIFFIsChosenFromTheBoundOfTheTileData() throws {
        let small = try PyramidGeometry(width: 20_000, height: 20_000)
        let large = try PyramidGeometry(width: 40_000, height: 40_000)
        let smallBound = PyramidTIFFLayout.tileDataBound(levels: small.levels, compression: .none, hasAlpha: false)
        let largeBound = PyramidTIFFLayout.tileDataBound(levels: large.levels, compression: .none, hasAlpha: false)
        #expect(smallBound < Int(UInt32.max) && largeBound > Int(UInt32.max))
        #expect(try !PyramidTIFFLayout(geometry: small, compression: .none, hasAlpha: false).isBigTIFF)
        let layout = try PyramidTIFFLayout(geometry: large, compression: .none, hasAlpha: false)
        #expect(layout.isBigTIFF && layout.offsetFieldSize == 8)
        #expect(Array(layout.header[0..<8]) == [0x49, 0x49, 43, 0, 8, 0, 0, 0])
        // Alpha makes the same 20000² bound pass 4 GiB for uncompressed tiles, not for JPEG.
        #expect(
            try PyramidTIFFLayout(geometry: try PyramidGeometry(width: 36_000, height: 36_000), compression: .none, hasAlpha: true)
                .isBigTIFF)
        #expect(
            try !PyramidTIFFLayout(geometry: try PyramidGeometry(width: 20_000, height: 20_000), compression: .jpeg, hasAlpha: false)
                .isBigTIFF)
        let reader = try PyramidTIFFReader(source: PyramidTIFFMemorySource(layout.header))
        #expect(reader.isBigTIFF && reader.levels.count == large.levels.count)
        #expect(reader.levels[0].tileOffsets.count == large.levels[0].tileCount)
        for entries in try Self.directories(layout) {
            let offsets = try #require(entries.first { $0.tag == TIFFTag.tileOffsets })
            #expect(offsets.type == TIFFTag.FieldType.long8)
        }
    }

    /// What cannot be stored is refused before any file is made.
    @Test func invalidLayoutsAreRefused() throws {
        let geometry = try PyramidGeometry(width: 600, height: 400)
        let refused: [() throws -> PyramidTIFFLayout] = [
            { try PyramidTIFFLayout(geometry: geometry, compression: .jpeg, hasAlpha: true) },
            { try PyramidTIFFLayout(geometry: geometry, compression: .jpeg(quality: 0), hasAlpha: false) },
            { try PyramidTIFFLayout(levels: [], compression: .none, hasAlpha: false) },
            {
                try PyramidTIFFLayout(
                    levels: Array(geometry.levels.dropFirst(1)) + [geometry.levels[0]], compression: .none, hasAlpha: false)
            },
            { try PyramidTIFFLayout(levels: [TileLevel(index: 0, width: 70_000, height: 1)], compression: .none, hasAlpha: false) }
        ]
        for make in refused {
            #expect(throws: ImageCacheError.self) { _ = try make() }
        }
    }
}
