import FICHarness
import FICTestSupport
import Foundation
import ImageCodec
import Testing

/// The image data of PNGs in memory, inflated and unfiltered without libspng: every filter at
/// every pixel size gives the pixels the unfiltered file gives, and damage is refused.
@Suite struct PNGImageDataTests {
    /// Samples of a photo-like gradient with noise, `channels × depth` bits per pixel.
    static func rows(width: Int, height: Int, channels: Int, depth: Int) -> [[UInt8]] {
        var rng = SplitMix64(seed: UInt64(channels * 100 + depth))
        return (0..<height).map { y in
            let samples = (0..<width * channels).map { i -> Int in
                let base = (i / channels * 7 + y * 5 + i % channels * 40) % 256
                let value = (base + Int(rng.next() % 9)) % 256
                return depth == 16 ? min(65535, value * 257 + Int(rng.next() % 200)) : value >> (8 - min(depth, 8))
            }
            if depth == 16 { return samples.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } }
            if depth == 8 { return samples.map { UInt8($0) } }
            var bytes = [UInt8](repeating: 0, count: (samples.count * depth + 7) / 8)
            for (i, v) in samples.enumerated() { bytes[i * depth / 8] |= UInt8(v << (8 - depth - i * depth % 8)) }
            return bytes
        }
    }

    @Test(arguments: [(0, 8), (0, 16), (0, 2), (2, 8), (2, 16), (4, 8), (4, 16), (6, 8), (6, 16)])
    func everyFilterAtEveryPixelSize(colorType: Int, depth: Int) throws {
        let channels = [0: 1, 2: 3, 4: 2, 6: 4][colorType]!
        let (width, height) = (37, 23)
        let rows = Self.rows(width: width, height: height, channels: channels, depth: depth)
        let plain = try ImageDecoder.decode(
            PNGFiles.png(width: width, height: height, bitDepth: UInt8(depth), colorType: UInt8(colorType), rows: rows))
        for filter in 1...5 {
            let png = PNGFiles.png(
                width: width, height: height, bitDepth: UInt8(depth), colorType: UInt8(colorType), rows: rows, filter: UInt8(filter),
                idatBytes: 97)
            let image = try ImageDecoder.decode(png)
            #expect(PixelComparison.identical(image, plain), "filter \(filter), color type \(colorType), \(depth) bits")
            // libspng, streaming, agrees.
            var offset = 0
            let streamed = try PNGRowDecoder { buffer in
                let n = min(buffer.count, png.count - offset)
                buffer.copyBytes(from: png[offset..<offset + n])
                offset += n
                return n
            }
            var same = true
            try streamed.decodeRows { row, pixels in
                same =
                    same
                    && pixels.elementsEqual(UnsafeRawBufferPointer(start: plain.baseAddress + row * plain.bytesPerRow, count: width * 4))
            }
            #expect(same, "libspng decodes filter \(filter) otherwise")
        }
    }

    @Test func damagedImageDataIsRefused() throws {
        let rows = Self.rows(width: 64, height: 64, channels: 3, depth: 8)
        let png = PNGFiles.png(width: 64, height: 64, bitDepth: 8, colorType: 2, rows: rows, filter: 5, idatBytes: 1000)
        _ = try ImageDecoder.decode(png)
        // Cut inside the image data.
        let cut = try #require(throws: ImageCacheError.self) { try ImageDecoder.decode(Array(png.prefix(png.count / 2))) }
        #expect(cut.code == .truncated)
        // A flipped byte in an IDAT chunk fails its CRC.
        var flipped = png
        flipped[png.count / 2] ^= 0x40
        let crc = try #require(throws: ImageCacheError.self) { try ImageDecoder.decode(flipped) }
        #expect(crc.code == .corruptData && crc.message.contains("IDAT"))
        // Without IEND: decoded by default (the image data is whole), refused by strict decoding.
        let noEnd = Array(png.dropLast(12))
        #expect((try? ImageDecoder.decode(noEnd, options: DecodingOptions(allowCorruptData: false))) == nil)
        #expect(try ImageDecoder.decode(noEnd).width == 64)
        // An ancillary chunk after the image data, cut short: the same (its rows are all there).
        let cutAfter = noEnd + Array(PNGFiles.chunk("tEXt", Array("Comment\0after the image data".utf8)).prefix(20))
        #expect((try? ImageDecoder.decode(cutAfter, options: DecodingOptions(allowCorruptData: false))) == nil)
        #expect(try PixelComparison.identical(ImageDecoder.decode(cutAfter), ImageDecoder.decode(png)))
        // A filter type beyond 4.
        var badFilter = PNGFiles.png(width: 64, height: 64, bitDepth: 8, colorType: 2, rows: rows)
        let idat = try #require(PNGFiles.chunks(badFilter).firstIndex { $0.type == "IDAT" })
        var chunks = PNGFiles.chunks(badFilter)
        chunks[idat].data[7] = 9  // the first row's filter byte, after zlib's and the stored block's headers
        badFilter = PNGFiles.signature + chunks.flatMap { PNGFiles.chunk($0.type, $0.data) }
        let filterError = try #require(throws: ImageCacheError.self) { try ImageDecoder.decode(badFilter) }
        #expect(filterError.code == .corruptData)
    }
}
