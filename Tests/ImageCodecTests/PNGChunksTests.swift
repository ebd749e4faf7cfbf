import FICHarness
import FICTestSupport
import Testing

@testable import ImageCodec

/// The one walk of a PNG's chunk list: it gives exactly the chunks that are all there, wherever
/// the file is cut, stops at an absurd length, and never reads outside the bytes.
@Suite struct PNGChunksTests {
    /// A PNG of a few chunks of awkward sizes (an empty one among them), each with its CRC.
    static let file: [UInt8] =
        PNGFiles.signature + PNGFiles.chunk("IHDR", [UInt8](repeating: 1, count: 13)) + PNGFiles.chunk("tEXt", [])
        + PNGFiles.chunk("IDAT", (0..<301).map { UInt8($0 & 0xFF) }) + PNGFiles.chunk("IEND", [])
    /// Where each chunk of ``file`` starts, its type and length, and where the file ends.
    static let layout: [(offset: Int, type: String, length: Int)] = [(8, "IHDR", 13), (33, "tEXt", 0), (45, "IDAT", 301), (358, "IEND", 0)]

    @Test func everyCutGivesTheCompleteChunksAndSaysItIsCut() {
        #expect(Self.file.count == 370)
        for end in 0...Self.file.count {
            Self.file.prefix(end).withUnsafeBytes { bytes in
                var chunks = PNGChunks(bytes)
                var seen: [(Int, String, Int)] = []
                while let chunk = chunks.next() {
                    #expect(chunks.crcMatches(chunk), "cut at \(end): \(chunk.name)")
                    #expect(chunks.data(chunk).count == chunk.length)
                    seen.append((chunk.offset, chunk.name, chunk.length))
                }
                let complete = Self.layout.filter { $0.offset + 12 + $0.length <= end }
                #expect(seen.map(\.0) == complete.map(\.offset) && seen.map(\.1) == complete.map(\.type), "cut at \(end)")
                #expect(chunks.isCut, "the walk ends at the end of the bytes")

                // Headers only: every chunk whose length and type are there.
                var headers = PNGChunks(bytes)
                var named: [String] = []
                while let chunk = headers.nextHeader() {
                    named.append(chunk.name)
                    #expect(headers.data(chunk, atMost: 1000).count == max(0, min(chunk.length, end - chunk.dataOffset)))
                }
                #expect(named == Self.layout.filter { $0.offset + 8 <= end }.map(\.type), "cut at \(end)")
            }
        }
    }

    @Test func aFlippedByteFailsTheCRCOfItsChunkOnly() {
        var damaged = Self.file
        damaged[45 + 8 + 100] ^= 0x10  // inside IDAT's data
        damaged.withUnsafeBytes { bytes in
            var chunks = PNGChunks(bytes)
            var matches: [String: Bool] = [:]
            while let chunk = chunks.next() { matches[chunk.name] = chunks.crcMatches(chunk) }
            #expect(matches == ["IHDR": true, "tEXt": true, "IDAT": false, "IEND": true])
        }
    }

    /// A length over 2^31 − 1 (PNG's limit) ends the walk as a cut file, even where the sum of
    /// offsets would not overflow; a seeded run of random lengths never reads outside the bytes.
    @Test func absurdAndRandomLengthsEndTheWalk() {
        var huge = Self.file
        huge.replaceSubrange(33..<37, with: [0x80, 0, 0, 0])
        huge.withUnsafeBytes { bytes in
            var chunks = PNGChunks(bytes)
            #expect(chunks.next()?.name == "IHDR")
            #expect(chunks.next() == nil && chunks.isCut)
            var headers = PNGChunks(bytes)
            #expect(headers.nextHeader()?.name == "IHDR" && headers.nextHeader() == nil)
        }
        var rng = SplitMix64(seed: FuzzSeed.value(for: "PNG chunk lengths", default: 0x504E_4743))
        for _ in 0..<2000 {
            var bytes = Self.file
            let at = 8 + Int(rng.next() % UInt64(bytes.count - 8 - 4))
            for i in 0..<4 { bytes[at + i] = UInt8(truncatingIfNeeded: rng.next()) }
            bytes.withUnsafeBytes { b in
                var chunks = PNGChunks(b)
                while let chunk = chunks.next() {
                    #expect(chunk.end <= b.count)
                    _ = chunks.crcMatches(chunk)
                }
                var headers = PNGChunks(b)
                while let chunk = headers.nextHeader() { _ = headers.data(chunk, atMost: 1 << 20) }
            }
        }
    }
}
