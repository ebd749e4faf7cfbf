import FICTestSupport
import Foundation
import ImageCodec
import Testing

/// Real photos in Display P3, Adobe RGB, ProPhoto and CMYK, converted by the package (the
/// profile its own parser found, the pixels as decoded) against LittleCMS's own conversion of
/// the same file by vips.
@Suite(.enabled(if: ColorTools.available, ColorTools.missing))
struct ColorPhotoTests {
    @Test(arguments: ColorFixtures.names)
    func matchesLittleCMS(name: String) throws {
        let photo = try ColorFixtures.photo(name)
        let bytes = try ExternalTools.bytes(atPath: photo.path)
        let embedded = ColorFixtures.embeddedColor(bytes, photo.format)
        #expect(embedded.isComplete)
        #expect(embedded.warnings.isEmpty, "\(embedded.warnings)")
        guard case .iccProfile(let profile) = embedded.description else {
            Issue.record("\(name): no profile found")
            return
        }
        #expect(
            profile == (try ColorTools.embeddedProfile(of: photo.path, in: ColorFixtures.folder)), "the parser's profile is not exiftool's")

        let raw = try ColorTools.rawPixels(of: photo.path, in: ColorFixtures.folder)
        let reference = try ColorTools.sRGBReference(of: photo.path, in: ColorFixtures.folder)
        let count = reference.count / 3
        try #require(raw.count == count * (photo.layout == .rgb16 ? 6 : photo.layout == .cmyk8 ? 4 : 3))

        var warnings: [String] = []
        let converter = try #require(ColorConverter.make(for: embedded.description, layout: photo.layout, warnings: &warnings))
        #expect(warnings.isEmpty, "\(warnings)")
        let converted = ColorFixtures.rgb(ofBGRA: ColorFixtures.convert(converter, raw, count: count))
        let psnr = PixelComparison.psnr(samples: converted, reference)

        // What the file looks like when its profile is ignored, for comparison.
        var ignored: [String] = []
        let untagged: [UInt8]
        switch photo.layout {
        case .cmyk8:
            untagged = ColorFixtures.rgb(
                ofBGRA: ColorFixtures.convert(
                    try #require(ColorConverter.make(for: .untagged, layout: .cmyk8, warnings: &ignored)), raw, count: count))
        case .rgb16: untagged = stride(from: 1, to: raw.count, by: 2).map { raw[$0] }  // the high bytes (little-endian)
        default: untagged = raw
        }
        let before = PixelComparison.psnr(samples: untagged, reference)
        print(
            "\(name): \(String(format: "%.1f", psnr)) dB against LittleCMS (\(converter.method)); \(String(format: "%.1f", before)) dB with the profile ignored"
        )
        #expect(psnr >= 38, "\(name): \(psnr) dB")
        #expect(psnr > before)
    }

    @Test func adobeMarkers() throws {
        func transform(_ name: String) throws -> Int? {
            let photo = try ColorFixtures.photo(name)
            return ColorFixtures.embeddedColor(try ExternalTools.bytes(atPath: photo.path), .jpeg).adobeTransform
        }
        #expect(try transform("Display P3 JPEG") == nil)
        #expect(try transform("CMYK JPEG") == 0)  // vips writes Adobe's inverted CMYK
        #expect(try transform("YCCK JPEG") == 2)  // ImageMagick writes YCCK
    }
}

/// The same photos through the decoders themselves, as applications get them: the whole file,
/// its rows as bytes arrive (tile pyramids), against LittleCMS's conversion by vips.
@Suite(.enabled(if: ColorTools.available, ColorTools.missing))
struct ColorDecodeTests {
    @Test(arguments: ColorFixtures.names)
    func decodersConvertToSRGB(name: String) throws {
        let photo = try ColorFixtures.photo(name)
        let bytes = try ExternalTools.bytes(atPath: photo.path)
        let reference = try ColorTools.sRGBReference(of: photo.path, in: ColorFixtures.folder)
        let image = try ImageDecoder.decode(bytes)
        #expect(image.source.color != .untagged, "\(name): the decoder found no colour information")
        #expect(image.warnings.isEmpty, "\(name): \(image.warnings)")
        let whole = PixelComparison.psnr(samples: ColorFixtures.rgb(ofBGRA: PixelComparison.packed(image)), reference)
        // 16-bit samples are converted before they are reduced to 8 bits (53 dB if reduced first).
        let least: Double = photo.layout == .rgb16 ? 60 : 38
        #expect(whole >= least, "\(name): \(whole) dB against LittleCMS")
        let streamed = try RowStreaming.decode(bytes, chunkSize: 8192)
        let rows = PixelComparison.psnr(samples: ColorFixtures.rgb(ofBGRA: streamed.pixels), reference)
        #expect(rows >= least, "\(name), streamed: \(rows) dB against LittleCMS")
        print("\(name): decoded \(String(format: "%.1f", whole)) dB, streamed \(String(format: "%.1f", rows)) dB against LittleCMS")
    }
}
