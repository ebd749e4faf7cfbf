import FICTestSupport
import Foundation
import Testing
@testable import ImageCodec

/// Huffman tables learnt from one optimised tile code its neighbours: Huffman coding is lossless,
/// so each neighbour decodes to exactly the pixels of its standard-coded twin, in fewer bytes; and
/// a tile unlike the example (noise, whose symbols the example never used) still codes.
@Suite struct JPEGHuffmanTablesTests {
    /// The 256 × 256 tile at (`x`, `y`) of `image`, packed (rows of 1024 bytes).
    static func tile(_ image: DecodedImage, x: Int, y: Int) -> [UInt8] {
        SampleComparison.packedRows(
            image.baseAddress + y * image.bytesPerRow + x * 4, height: 256, rowBytes: 1024, bytesPerRow: image.bytesPerRow)
    }

    static func encode(_ tile: [UInt8], _ huffman: JPEGHuffmanCoding) throws -> [UInt8] {
        try tile.withUnsafeBytes {
            try JPEGEncoder.encode(
                pixels: $0.baseAddress!, width: 256, height: 256, bytesPerRow: 1024, format: .bgrx32, quality: 95, tables: nil,
                huffman: huffman)
        }
    }

    static func pixels(_ jpeg: [UInt8]) throws -> [UInt8] {
        let image = try ImageDecoder.decode(jpeg)
        return Self.tile(image, x: 0, y: 0)
    }

    @Test func learntTablesCodeTheNeighboursLosslesslyInFewerBytes() throws {
        let photo = try ImageDecoder.decode(try TestData.bytes("photos/hubble.jpg"))  // 1000 × 872
        let first = try Self.encode(Self.tile(photo, x: 0, y: 256), .optimized)
        let learnt = try #require(JPEGHuffmanTables(derivedFrom: first))
        var standardBytes = 0, learntBytes = 0, optimisedBytes = 0
        for x in [256, 512, 744] {
            let tile = Self.tile(photo, x: x, y: 256)
            let standard = try Self.encode(tile, .standard), coded = try Self.encode(tile, .tables(learnt))
            #expect(try Self.pixels(coded) == Self.pixels(standard), "tile at \(x): the same coefficients, coded otherwise")
            standardBytes += standard.count
            learntBytes += coded.count
            optimisedBytes += try Self.encode(tile, .optimized).count
        }
        print("three tiles: standard \(standardBytes), learnt \(learntBytes), each optimised \(optimisedBytes) bytes")
        #expect(learntBytes < standardBytes && optimisedBytes <= learntBytes)

        // Noise: large coefficients everywhere, sizes the photo's tile never needed.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15  // xorshift64, fixed seed
        let noise = (0..<(256 * 1024)).map { _ -> UInt8 in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state >> 32)
        }
        let coded = try Self.encode(noise, .tables(learnt))
        #expect(try Self.pixels(coded) == Self.pixels(try Self.encode(noise, .standard)))
    }

    @Test func aFileWithoutItsFourTablesGivesNone() throws {
        #expect(JPEGHuffmanTables(derivedFrom: []) == nil)
        #expect(JPEGHuffmanTables(derivedFrom: [0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x02]) == nil)
        // A DHT segment whose counts run past its end.
        #expect(JPEGHuffmanTables(derivedFrom: [0xFF, 0xD8, 0xFF, 0xC4, 0x00, 0x05, 0x00, 0xFF, 0xFF]) == nil)
        // An optimised encode has all four; cut before its second table, it has one.
        let tile = [UInt8](repeating: 128, count: 16 * 64)
        let bytes = try tile.withUnsafeBytes {
            try JPEGEncoder.encode(
                pixels: $0.baseAddress!, width: 16, height: 16, bytesPerRow: 64, format: .bgrx32, quality: 90, tables: nil,
                huffman: .optimized)
        }
        #expect(JPEGHuffmanTables(derivedFrom: bytes) != nil)
        let firstTable = try #require((2..<(bytes.count - 1)).first { (i: Int) -> Bool in bytes[i] == 0xFF && bytes[i + 1] == 0xC4 })
        #expect(JPEGHuffmanTables(derivedFrom: Array(bytes.prefix(firstTable + 30))) == nil)
    }
}
