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

    /// Allocating for these claims (16 GB and 40 GB) would fail or take long; they are refused at once.
    @Test(arguments: [("bad/bomb-65000x65000.jpg", 65000, 65000), ("bad/bomb-100000x100000.png", 100_000, 100_000)])
    func bombsAreRefusedWithDefaultLimit(file: String, width: Int, height: Int) throws {
        let bytes = try TestData.bytes(file)
        let info = try ImageDecoder.info(bytes)
        #expect(info.width == width && info.height == height)
        let clock = ContinuousClock()
        let start = clock.now
        let error = try #require(throws: ImageCacheError.self) { try ImageDecoder.decode(bytes) }
        #expect(error.code == .dimensionsTooLarge)
        #expect(clock.now - start < .seconds(2))
    }

    @Test func theRowDecoderAppliesTheLimit() throws {
        var rows = 0
        let error = try #require(throws: ImageCacheError.self) {
            try RowStreaming.decode(try TestData.bytes("photos/coffee.jpg"), chunkSize: 1 << 20, options: RowStreaming.options(maximumPixelCount: 100)) { rows = $0 }
        }
        #expect(error.code == .dimensionsTooLarge)
        #expect(rows == 0)
    }
}
