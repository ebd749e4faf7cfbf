import FICTestSupport
import Foundation
import ImageCodec
import Testing

/// Every file of the shared manifest decodes to its reference, or fails with the promised kind.
@Suite struct ManifestTests {
    @Test func manifestIsReadable() {
        #expect(TestData.okEntries.count >= 30)
        #expect(TestData.errorEntries.count >= 10)
    }

    @Test(arguments: TestData.okEntries)
    func decodesToReference(entry: TestData.Entry) throws {
        let decoded = try ImageDecoder.decode(contentsOf: TestData.path(entry.file))
        #expect(decoded.width == entry.displayWidth)
        #expect(decoded.height == entry.displayHeight)
        #expect(decoded.source.width == entry.width)
        #expect(decoded.source.height == entry.height)
        #expect(decoded.source.orientation.rawValue == entry.orientation)
        #expect(decoded.source.hasAlpha == entry.hasAlpha)
        #expect(decoded.source.format.rawValue == entry.format)
        #expect(decoded.isOrientationApplied)
        #expect(decoded.scaleDenominator == 1)
        #expect(decoded.pixelFormat == (entry.hasAlpha == true ? .bgra32Premultiplied : .bgrx32))

        let reference = try ImageDecoder.decode(contentsOf: TestData.path(try #require(entry.reference)))
        try #require(reference.width == decoded.width && reference.height == decoded.height)
        let lossless = entry.format == "png" || entry.file.contains("lossless")
        if lossless {
            #expect(PixelComparison.maximumDifference(decoded, reference) <= 1)
        } else if case .iccProfile(let profile) = decoded.source.color, entry.hasAlpha != true {
            // The reference (ImageMagick's decode) keeps the stored values; the decoder converts
            // them to sRGB through the file's profile. The reference converted through the same
            // profile by LittleCMS (vips icc_transform) is what it must match.
            try #require(ColorTools.available, ColorTools.missing)
            let folder = ColorFixtures.folder, name = UUID().uuidString
            try ExternalTools.write(profile, to: folder + "/\(name).icc")
            let converted = folder + "/\(name).v"
            try ColorTools.run([
                ColorTools.vips, "icc_transform", TestData.path(try #require(entry.reference)), converted, "srgb",
                "--input-profile", folder + "/\(name).icc", "--intent", "relative"
            ])
            let expected = try ColorTools.rawPixels(of: converted, in: folder)
            let rgb = ColorFixtures.rgb(ofBGRA: PixelComparison.packed(decoded))
            // vips keeps the reference's alpha band: take R, G, B of each RGBA pixel when it has one.
            let channels = expected.count / (decoded.width * decoded.height)
            let expectedRGB =
                channels == 3 ? expected : stride(from: 0, to: expected.count, by: channels).flatMap { expected[$0..<($0 + 3)] }
            let psnr = PixelComparison.psnr(samples: rgb, expectedRGB)
            #expect(psnr >= 35, "PSNR \(psnr) dB against the reference converted through the file's profile")
        } else {
            let psnr = PixelComparison.psnr(decoded, reference)
            #expect(psnr >= 35, "PSNR \(psnr) dB")
        }
    }

    @Test(arguments: TestData.okEntries)
    func infoMatchesManifest(entry: TestData.Entry) throws {
        let info = try ImageDecoder.info(try TestData.bytes(entry.file))
        #expect(info.format.rawValue == entry.format)
        #expect(info.width == entry.width && info.height == entry.height)
        #expect(info.orientation.rawValue == entry.orientation)
        #expect(info.displayWidth == entry.displayWidth && info.displayHeight == entry.displayHeight)
        #expect(info.hasAlpha == entry.hasAlpha)
    }

    @Test(arguments: TestData.errorEntries)
    func refusesBadFile(entry: TestData.Entry) throws {
        let expected = try #require(Self.code(for: entry.why))
        let path = TestData.path(entry.file)
        let error = try #require(throws: ImageCacheError.self) {
            try ImageDecoder.decode(contentsOf: path)
        }
        #expect(error.code == expected, "\(error)")
        #expect(error.path == path)
        #expect(!error.message.isEmpty)

        let bytes = try TestData.bytes(entry.file)
        let fromMemory = try #require(throws: ImageCacheError.self) {
            try ImageDecoder.decode(bytes)
        }
        #expect(fromMemory.code == expected)
        #expect(fromMemory.path == nil)
    }

    /// JPEG-shaped bad files fail the row decoder tile pyramids use with the same kind.
    @Test(arguments: TestData.errorEntries.filter { $0.file.hasSuffix(".jpg") })
    func theRowDecoderRefusesBadJPEG(entry: TestData.Entry) throws {
        let expected = try #require(Self.code(for: entry.why))
        let bytes = try TestData.bytes(entry.file)
        let error = try #require(throws: ImageCacheError.self) { try RowStreaming.decode(bytes, chunkSize: 4096) }
        #expect(error.code == expected, "\(error)")
    }

    @Test func unsupportedFormatsAreNamed() throws {
        let bmp = try #require(throws: ImageCacheError.self) { try ImageDecoder.decode(try TestData.bytes("bad/unsupported.bmp")) }
        #expect(bmp.message.contains("BMP"))
        let random = try #require(throws: ImageCacheError.self) { try ImageDecoder.decode(try TestData.bytes("bad/random-bytes.jpg")) }
        #expect(random.message.contains("0xd7 0x1a"))
    }

    /// The manifest's `why` wording mapped to the error kind it promises.
    static func code(for why: String?) -> ImageCacheError.Code? {
        switch why {
        case "empty input": return .emptyInput
        case "not an image", "unsupported format": return .unsupportedFormat
        case "truncated": return .truncated
        case "corrupt data": return .corruptData
        case "dimensions over the configured limit": return .dimensionsTooLarge
        default: return nil
        }
    }
}
