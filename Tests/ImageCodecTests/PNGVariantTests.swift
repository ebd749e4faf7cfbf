import FICTestSupport
import Foundation
import ImageCodec
import Testing

/// PNG variants made here from the bundled files: grey with tRNS at every bit depth, eXIf
/// orientation, APNG, and scaled decoding through the box shrinker.
@Suite struct PNGVariantTests {
    /// The bundled 8-bit grey photo's pixels (one byte each), and its size.
    static func grayPhoto() throws -> (levels: [UInt8], width: Int, height: Int) {
        let image = try ImageDecoder.decode(try TestData.bytes("png/camera-gray8.png"))
        var levels: [UInt8] = []
        for y in 0..<image.height {
            let row = (image.baseAddress + y * image.bytesPerRow).assumingMemoryBound(to: UInt8.self)
            for x in 0..<image.width { levels.append(row[x * 4]) }
        }
        return (levels, image.width, image.height)
    }

    @Test(arguments: [1, 2, 4, 8, 16])
    func grayTransparencyAtEveryDepth(bits: Int) throws {
        let (levels, width, height) = try Self.grayPhoto()
        let maximum = (1 << bits) - 1
        let samples = levels.map { Int($0) * maximum / 255 }
        let transparent = samples[samples.count / 2]  // a level the photo has
        let png = PNGFiles.png(
            width: width, height: height, bitDepth: UInt8(bits), colorType: 0, rows: PNGFiles.pack(samples, width: width, bits: bits),
            extra: [PNGFiles.chunk("tRNS", [UInt8(transparent >> 8), UInt8(transparent & 0xFF)])]
        )
        let image = try ImageDecoder.decode(png)
        #expect(image.source.hasAlpha)
        #expect(image.pixelFormat == .bgra32Premultiplied)
        var transparentCount = 0, wrong = 0
        for y in 0..<height {
            let row = (image.baseAddress + y * image.bytesPerRow).assumingMemoryBound(to: UInt32.self)
            for x in 0..<width {
                let sample = samples[y * width + x]
                let level = UInt32((sample * 255 + maximum / 2) / maximum)
                let expected = sample == transparent ? 0 : level | level << 8 | level << 16 | 0xFF00_0000
                if sample == transparent { transparentCount += 1 }
                if row[x] != expected { wrong += 1 }
            }
        }
        #expect(wrong == 0, "\(wrong) pixels differ")
        #expect(transparentCount > 0)
    }

    @Test(arguments: [1, 2, 4])
    func anOutOfRangeGrayTransparencyIsMaskedToTheBitDepth(bits: Int) throws {
        // libpng (and every browser with it) masks a tRNS level to the bit depth: 0xFFFF in a
        // 1-bit image means white. A photo thresholded to the depth's levels.
        let (levels, width, height) = try Self.grayPhoto()
        let maximum = (1 << bits) - 1
        let samples = levels.map { Int($0) * maximum / 255 }
        let png = PNGFiles.png(
            width: width, height: height, bitDepth: UInt8(bits), colorType: 0, rows: PNGFiles.pack(samples, width: width, bits: bits),
            extra: [PNGFiles.chunk("tRNS", [0xFF, 0xFF])])
        let image = try ImageDecoder.decode(png)
        #expect(image.pixelFormat == .bgra32Premultiplied)
        var transparent = 0, wrong = 0
        for y in 0..<height {
            let row = (image.baseAddress + y * image.bytesPerRow).assumingMemoryBound(to: UInt32.self)
            for x in 0..<width where (samples[y * width + x] == maximum) != (row[x] == 0) { wrong += 1 }
            for x in 0..<width where row[x] == 0 { transparent += 1 }
        }
        #expect(wrong == 0, "\(wrong) pixels: white is exactly the transparent level")
        #expect(transparent > 0)
    }

    @Test(arguments: [false, true])
    func exifOrientationBeforeImageData(prefixed: Bool) throws {
        let bytes = try TestData.bytes("png/astronaut-rgba.png")
        let payload = (prefixed ? Array("Exif".utf8) + [0, 0] : []) + PNGFiles.exif(orientation: 6)
        let rotated = PNGFiles.inserting(PNGFiles.chunk("eXIf", payload), into: bytes, before: "IDAT")
        let info = try ImageDecoder.info(rotated)
        #expect(info.orientation == .right)
        let image = try ImageDecoder.decode(rotated)
        let stored = try ImageDecoder.decode(bytes)
        // Orientation 6: display pixel (x, y) is stored pixel (y, height - 1 - x).
        #expect(image.width == stored.height && image.height == stored.width)
        for (x, y) in [(0, 0), (10, 200), (255, 3), (128, 128)] {
            let shown = image.baseAddress.load(fromByteOffset: y * image.bytesPerRow + x * 4, as: UInt32.self)
            let source = stored.baseAddress.load(fromByteOffset: (stored.height - 1 - x) * stored.bytesPerRow + y * 4, as: UInt32.self)
            #expect(shown == source)
        }
        // Streamed row by row, the orientation is reported the same way (rows stay as stored).
        let rows = try PNGRowDecoder(bytes: try ImageBytes(copying: rotated))
        #expect(rows.info.orientation == .right)
        var count = 0
        let streamed = try PNGRowDecoder(options: .init()) { buffer in
            let n = min(buffer.count, 7, rotated.count - count)  // a few bytes at a time
            buffer.copyBytes(from: rotated[count..<count + n])
            count += n
            return n
        }
        #expect(streamed.info.orientation == .right)
    }

    @Test func exifAfterImageDataIsIgnoredAsBrowsersDo() throws {
        let bytes = try TestData.bytes("png/astronaut-rgb.png")
        let late = PNGFiles.inserting(PNGFiles.chunk("eXIf", PNGFiles.exif(orientation: 6)), into: bytes, before: "IEND")
        #expect(try ImageDecoder.info(late).orientation == .up)
        #expect(try ImageDecoder.decode(late).width == 256)
    }

    /// An APNG whose default image (IDAT) is also its first frame, and one where it is not part of
    /// the animation: both decode to the default image.
    @Test(arguments: [true, false])
    func animatedPNGDecodesItsDefaultImage(defaultIsFirstFrame: Bool) throws {
        let bytes = try TestData.bytes("png/astronaut-rgb.png")
        let chunks = PNGFiles.chunks(bytes)
        let ihdr = try #require(chunks.first { $0.type == "IHDR" }).data
        let idat = chunks.filter { $0.type == "IDAT" }.flatMap(\.data)
        func frameControl(_ sequence: Int) -> [UInt8] {
            PNGFiles.chunk(
                "fcTL",
                PNGFiles.bigEndian32(sequence) + ihdr[0..<8] + PNGFiles.bigEndian32(0) + PNGFiles.bigEndian32(0) + [0, 1, 0, 10, 0, 0])
        }
        var apng =
            PNGFiles.signature + PNGFiles.chunk("IHDR", ihdr) + PNGFiles.chunk("acTL", PNGFiles.bigEndian32(2) + PNGFiles.bigEndian32(0))
        var sequence = 0
        if defaultIsFirstFrame { apng += frameControl(sequence); sequence += 1 }
        apng += PNGFiles.chunk("IDAT", idat)
        // The animation's own frame: the same picture upside down would do, any valid data will.
        apng += frameControl(sequence)
        apng += PNGFiles.chunk("fdAT", PNGFiles.bigEndian32(sequence + 1) + idat)
        apng += PNGFiles.chunk("IEND", [])
        let image = try ImageDecoder.decode(apng)
        #expect(PixelComparison.identical(image, try ImageDecoder.decode(bytes)))
    }

    @Test func shrinkingAveragesWholeBlocks() throws {
        let bytes = try TestData.bytes("png/astronaut-rgba.png")
        let full = try ImageDecoder.decode(bytes)
        // 43 wide is covered by a factor of 6 exactly (ceil(256 / 6) = 43): the last column and row
        // of blocks are 4 pixels wide.
        let small = try ImageDecoder.decode(bytes, options: DecodingOptions(targetSize: PixelSize(width: 43, height: 43)))
        #expect(small.scaleDenominator == 6)
        #expect(small.width == 43 && small.height == 43)
        #expect(small.pixelFormat == .bgra32Premultiplied)
        for (ox, oy) in [(0, 0), (20, 17), (42, 42), (42, 0), (5, 42)] {
            var sums = [0, 0, 0, 0], count = 0
            for y in oy * 6..<min(oy * 6 + 6, 256) {
                for x in ox * 6..<min(ox * 6 + 6, 256) {
                    for c in 0..<4 {
                        sums[c] += Int(full.baseAddress.load(fromByteOffset: y * full.bytesPerRow + x * 4 + c, as: UInt8.self))
                    }
                    count += 1
                }
            }
            for c in 0..<4 {
                let got = Int(small.baseAddress.load(fromByteOffset: oy * small.bytesPerRow + ox * 4 + c, as: UInt8.self))
                #expect(got == (sums[c] + count / 2) / count, "block (\(ox), \(oy)) channel \(c)")
            }
        }
    }

    @Test func interlacedAndPlainDecodeAlike() throws {
        let target = DecodingOptions(targetSize: PixelSize(width: 100, height: 100))
        let plain = try ImageDecoder.decode(try TestData.bytes("png/astronaut-rgb.png"), options: target)
        let interlaced = try ImageDecoder.decode(try TestData.bytes("png/astronaut-interlaced.png"), options: target)
        #expect(plain.width == 100 && interlaced.width == 100)
        #expect(PixelComparison.maximumDifference(plain, interlaced) <= 1)
    }

    @Test(arguments: [
        "png/astronaut-rgb.png", "png/astronaut-rgba.png", "png/astronaut-16bit.png", "png/astronaut-rgba-16bit.png",
        "png/astronaut-palette.png", "png/astronaut-palette-trns.png", "png/astronaut-gray-alpha.png", "png/astronaut-interlaced.png",
        "png/camera-gray.png", "png/tiny-1x1.png"
    ])
    func rowDecoderMatchesTheOneShotDecode(file: String) throws {
        let bytes = try TestData.bytes(file)
        let reference = try ImageDecoder.decode(bytes, options: DecodingOptions(applyOrientation: false))
        for decoder in [
            try PNGRowDecoder(contentsOf: TestData.path(file)),
            try PNGRowDecoder(bytes: try ImageBytes(copying: bytes))
        ] {
            #expect(decoder.info == reference.source)
            #expect(decoder.pixelFormat == reference.pixelFormat)
            var next = 0
            try decoder.decodeRows { row, pixels in
                #expect(row == next)
                #expect(pixels.count == reference.width * 4)
                let expected = UnsafeRawBufferPointer(
                    start: reference.baseAddress + row * reference.bytesPerRow, count: reference.width * 4)
                #expect(pixels.elementsEqual(expected), "row \(row) of \(file)")
                next += 1
            }
            #expect(next == reference.height)
            #expect(throws: ImageCacheError.self) { try decoder.decodeRows { _, _ in } }
        }
    }

    @Test func rowDecoderReportsTruncationAndReaderErrors() throws {
        let bytes = try TestData.bytes("png/astronaut-rgb.png")
        let cut = Array(bytes.prefix(bytes.count / 2))
        let decoder = try PNGRowDecoder(bytes: try ImageBytes(copying: cut))
        var rows = 0
        let error = try #require(throws: ImageCacheError.self) { try decoder.decodeRows { _, _ in rows += 1 } }
        #expect(error.code == .truncated)
        #expect(rows < 256)
        struct Gone: Error {}
        var served = 0
        let failing = try PNGRowDecoder { buffer in
            guard served < 5000 else { throw Gone() }
            let n = min(buffer.count, 1000)
            buffer.copyBytes(from: bytes[served..<served + n])
            served += n
            return n
        }
        let readError = try #require(throws: ImageCacheError.self) { try failing.decodeRows { _, _ in } }
        #expect(readError.underlying is Gone)
        let missing = try #require(throws: ImageCacheError.self) { try PNGRowDecoder(contentsOf: "/nonexistent-\(UUID().uuidString).png") }
        #expect(missing.code == .io && missing.errno == .noSuchFileOrDirectory && missing.path != nil)
    }

    /// A PNG four times larger than a megabyte-sized budget decodes, scaled or row by row, without
    /// any buffer near its full size.
    @Test func largePNGNeverGetsAFullSizeBitmap() throws {
        let tile = try ImageDecoder.decode(try TestData.bytes("photos/hubble.jpg"))
        let width = 3000, height = 2000
        let canvas = DecodedImage(width: width, height: height, pixelFormat: .bgrx32, source: tile.source, isOrientationApplied: true)
        for y in 0..<height {
            (canvas.baseAddress + y * canvas.bytesPerRow).copyMemory(
                from: tile.baseAddress + (y % tile.height) * tile.bytesPerRow, byteCount: min(width, tile.width) * 4)
        }
        let png = try PNGEncoder.encode(
            pixels: canvas.baseAddress, width: width, height: height, bytesPerRow: canvas.bytesPerRow, format: .bgrx32)
        let fullSize = width * height * 4
        let probe = AllocationProbe()
        let scaled = try AllocationProbe.$current.withValue(probe) {
            try ImageDecoder.decode(png, options: DecodingOptions(targetSize: PixelSize(width: 300, height: 200)))
        }
        #expect(scaled.scaleDenominator == 10 && scaled.width == 300)
        #expect(probe.largestBytes <= 300 * 200 * 4 + 64 << 10, "largest buffer \(probe.largestBytes) bytes")
        #expect(probe.totalBytes < fullSize / 8)
        let rowProbe = AllocationProbe()
        var rows = 0
        try AllocationProbe.$current.withValue(rowProbe) {
            try PNGRowDecoder(bytes: try ImageBytes(copying: png)).decodeRows { _, _ in rows += 1 }
        }
        #expect(rows == height)
        #expect(rowProbe.largestBytes <= png.count, "only the file's own bytes are that large")
        #expect(rowProbe.totalBytes < png.count + 256 << 10)
    }
}
