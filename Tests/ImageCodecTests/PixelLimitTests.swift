import FICTestSupport
import ImageCodec
import Testing

/// Claimed dimensions are checked before anything is allocated for them.
@Suite struct PixelLimitTests {
    @Test func smallLimitRefusesNormalPhoto() throws {
        let bytes = try TestData.bytes("photos/astronaut.jpg")
        let error = try #require(throws: ImageCacheError.self) {
            try ImageDecoder.decode(bytes, options: DecodingOptions(maximumPixelCount: 512 * 512 - 1))
        }
        #expect(error.code == .dimensionsTooLarge)
        #expect(error.message.contains("512×512"))
        // Exactly at the limit is fine.
        let decoded = try ImageDecoder.decode(bytes, options: DecodingOptions(maximumPixelCount: 512 * 512))
        #expect(decoded.width == 512)
    }

    @Test(arguments: ["png/astronaut-rgba.png", "webp/astronaut-lossy.webp", "webp/astronaut-lossless-alpha.webp"])
    func limitAppliesToEveryFormat(file: String) throws {
        let error = try #require(throws: ImageCacheError.self) {
            try ImageDecoder.decode(try TestData.bytes(file), options: DecodingOptions(maximumPixelCount: 1000))
        }
        #expect(error.code == .dimensionsTooLarge)
    }

    /// Allocating for these claims (16 GB and 40 GB) would fail or take long; they are refused
    /// before anything is allocated for them: the probe sees no buffer handed out for the decode
    /// (it sees the bitmap of `control`, a photo of the same format within the limit).
    @Test(arguments: [
        ("bad/bomb-65000x65000.jpg", 65000, 65000, "photos/astronaut.jpg"),
        ("bad/bomb-100000x100000.png", 100_000, 100_000, "png/astronaut-rgba.png")
    ])
    func bombsAreRefusedWithDefaultLimit(file: String, width: Int, height: Int, control: String) throws {
        let bytes = try TestData.bytes(file)
        let info = try ImageDecoder.info(bytes)
        #expect(info.width == width && info.height == height)
        let probe = AllocationProbe()
        let error = try AllocationProbe.$current.withValue(probe) {
            try #require(throws: ImageCacheError.self) { try ImageDecoder.decode(bytes) }
        }
        #expect(error.code == .dimensionsTooLarge)
        #expect(probe.count == 0, "refused before any buffer was made for the claimed size: \(probe.sizes)")
        let seen = AllocationProbe()
        let decoded = try AllocationProbe.$current.withValue(seen) { try ImageDecoder.decode(try TestData.bytes(control)) }
        #expect(seen.largestBytes >= decoded.width * decoded.height * 4, "the probe sees a decode's bitmap")
    }

    @Test func theRowDecoderAppliesTheLimit() throws {
        var rows = 0
        let error = try #require(throws: ImageCacheError.self) {
            try RowStreaming.decode(
                try TestData.bytes("photos/coffee.jpg"), chunkSize: 1 << 20, options: RowStreaming.options(maximumPixelCount: 100)
            ) { rows = $0 }
        }
        #expect(error.code == .dimensionsTooLarge)
        #expect(rows == 0)
    }

    /// `info` applies no pixel limit (it only reads the header), so it may allocate nothing sized
    /// by what the header claims: a 16-bit RGBA PNG of gamma 1.0 (converted from its 16-bit
    /// samples through a row of them in host order) claiming a row of 400 million pixels, which
    /// once made a 3.2 GB row buffer when the file was opened. The control, the same file 64
    /// pixels wide, shows the probe sees that row buffer when a row is decoded.
    @Test func infoAllocatesNothingForTheClaimedWidth() throws {
        let gamma = PNGFiles.chunk("gAMA", PNGFiles.bigEndian32(100_000))
        let claimed = PNGFiles.png(width: 400_000_000, height: 1, bitDepth: 16, colorType: 6, rows: [], extra: [gamma])
        let probe = AllocationProbe()
        let info = try AllocationProbe.$current.withValue(probe) { try ImageDecoder.info(claimed) }
        #expect(info.width == 400_000_000 && info.bitsPerSample == 16)
        #expect(probe.count == 0, "nothing allocated for the header's claim: \(probe.sizes)")
        let row = (0..<64 * 8).map { UInt8(truncatingIfNeeded: $0 * 37) }
        let control = PNGFiles.png(width: 64, height: 1, bitDepth: 16, colorType: 6, rows: [row], extra: [gamma])
        let seen = AllocationProbe()
        _ = try AllocationProbe.$current.withValue(seen) { try ImageDecoder.decode(control) }
        #expect(seen.sizes.contains(64 * 8), "the probe sees the row of host-order samples: \(seen.sizes)")
    }
}
