import FICHarness
import FICTestSupport
import Foundation
import ImageCodec
import Testing

/// The colour converter on its own: what needs no work, what is refused with a warning, CMYK
/// without a profile, the matrix-shaper fast path against LittleCMS, grey, code points, gamma.
@Suite struct ColorConverterTests {
    static let rgbLayouts: [ColorConverter.Layout] = [.bgrx8, .bgra8, .rgb8, .rgba8, .rgb16, .rgba16]
    static let grayLayouts: [ColorConverter.Layout] = [.gray8, .grayAlpha8, .gray16, .grayAlpha16]

    @Test func sRGBNeedsNothing() throws {
        var descriptions: [ColorDescription] = [
            .untagged, .sRGB,
            .codePoints(primaries: 1, transfer: 13, matrix: 0, fullRange: true),
            .codePoints(primaries: 2, transfer: 2, matrix: 6, fullRange: false),
            .codePoints(primaries: 1, transfer: 13, matrix: 1, fullRange: false),
            .gamma(0.45455, chromaticities: nil),
            .gamma(0.45455, chromaticities: .sRGB)
        ]
        // sRGB profiles as shipped: icc-profiles-free's, colord's, ghostscript's, and the one a
        // test JPEG of Mozilla's carries.
        for path in ["/usr/share/color/icc/sRGB.icc", "/usr/share/color/icc/colord/sRGB.icc", "/usr/share/color/icc/ghostscript/srgb.icc"]
        where FileManager.default.fileExists(atPath: path) {
            descriptions.append(.iccProfile(try ExternalTools.bytes(atPath: path)))
        }
        let mozilla = try ExternalTools.bytes(atPath: ColorFixtures.jpegSuite + "/jpeg-decoder__reftest_mozilla_jpg-srgb-icc.jpg")
        descriptions.append(mozilla.withUnsafeBytes { EmbeddedColor.jpeg($0) }.description)
        #expect(descriptions.count >= 9)
        for description in descriptions {
            for layout in Self.rgbLayouts + Self.grayLayouts where !(layout.family == .gray && Self.isRGBProfile(description)) {
                var warnings: [String] = []
                #expect(
                    ColorConverter.make(for: description, layout: layout, warnings: &warnings) == nil, "\(Self.name(description)) \(layout)"
                )
                #expect(warnings.isEmpty, "\(warnings)")
            }
        }
    }

    @Test func cmykWithoutProfileAsBrowsers() throws {
        var warnings: [String] = []
        let plain = try #require(ColorConverter.make(for: .untagged, layout: .cmyk8, warnings: &warnings))
        let inverted = try #require(ColorConverter.make(for: .sRGB, layout: .cmykInverted8, warnings: &warnings))
        #expect(plain.method == .naiveCMYK && inverted.method == .naiveCMYK && warnings.isEmpty)
        // C, M, Y, K → B, G, R, A: R = (255 − C)(255 − K)/255.
        let cmyk: [UInt8] = [0, 0, 0, 0, 255, 255, 255, 255, 255, 0, 0, 0, 0, 128, 255, 64]
        #expect(ColorFixtures.convert(plain, cmyk, count: 4) == [255, 255, 255, 255, 0, 0, 0, 255, 255, 255, 0, 255, 0, 95, 191, 255])
        let flipped = cmyk.map { 255 - $0 }
        #expect(ColorFixtures.convert(inverted, flipped, count: 4) == ColorFixtures.convert(plain, cmyk, count: 4))
    }

    @Test(.enabled(if: ColorTools.available, ColorTools.missing))
    func unusableProfilesWarn() throws {
        let adobe = try ExternalTools.bytes(atPath: ColorTools.adobeRGB)
        let gray = try ExternalTools.bytes(atPath: "/usr/share/color/icc/Gray.icc")
        let cmyk = try ExternalTools.bytes(atPath: ColorTools.ghostscriptCMYK)
        var junk = [UInt8](repeating: 0x41, count: 600)
        junk.replaceSubrange(36..<40, with: Array("acsp".utf8))
        let cases: [(String, [UInt8], ColorConverter.Layout)] = [
            ("junk", Array("not a profile at all".utf8), .bgrx8),
            ("junk with a signature", junk, .rgb8),
            ("empty", [], .rgba8),
            ("cut to its header", Array(adobe.prefix(128)), .bgra8),
            ("cut in half", Array(adobe.prefix(adobe.count / 2)), .rgb16),
            ("cut by one byte", Array(adobe.dropLast()), .bgrx8),
            ("grey profile on RGB", gray, .bgrx8),
            ("CMYK profile on RGB", cmyk, .rgb8),
            ("RGB profile on grey", adobe, .gray8),
            ("CMYK profile on grey", cmyk, .grayAlpha16)
        ]
        for (name, bytes, layout) in cases {
            var warnings: [String] = []
            let converter = ColorConverter.make(for: .iccProfile(bytes), layout: layout, warnings: &warnings)
            // A profile cut by a byte may still be readable: then it converts, without complaint.
            if name == "cut by one byte" && converter != nil { continue }
            #expect(converter == nil, "\(name)")
            #expect(warnings.count == 1, "\(name): \(warnings)")
            #expect(warnings.first?.contains("taken as sRGB") == true, "\(name): \(warnings)")
        }
        var warnings: [String] = []
        _ = ColorConverter.make(for: .iccProfile(Array("not a profile at all".utf8)), layout: .bgrx8, warnings: &warnings)
        #expect(warnings.first?.contains("LittleCMS error") == true, "LittleCMS's reason is kept: \(warnings)")
        // CMYK pixels always convert: with a profile that does not fit, the way browsers do without one.
        for (bytes, layout) in [(adobe, ColorConverter.Layout.cmyk8), (junk, .cmykInverted8)] {
            var warnings: [String] = []
            let converter = try #require(ColorConverter.make(for: .iccProfile(bytes), layout: layout, warnings: &warnings))
            #expect(converter.method == .naiveCMYK && warnings.count == 1, "\(warnings)")
        }
        // Descriptions that make no sense for the layout.
        for (description, layout) in [
            (ColorDescription.gamma(0, chromaticities: nil), ColorConverter.Layout.rgb8),
            (.gamma(.nan, chromaticities: nil), .gray8),
            (.codePoints(primaries: 12, transfer: 13, matrix: 0, fullRange: true), .cmyk8)
        ] {
            var warnings: [String] = []
            let converter = ColorConverter.make(for: description, layout: layout, warnings: &warnings)
            #expect(layout == .cmyk8 ? converter?.method == .naiveCMYK : converter == nil)
            #expect(warnings.count == 1, "\(warnings)")
        }
    }

    @Test(.enabled(if: ColorTools.available, ColorTools.missing))
    func cacheSharesConverters() throws {
        let profile = try ExternalTools.bytes(atPath: ColorTools.adobeRGB)
        var first: [String] = [], second: [String] = []
        let a = try #require(ColorConverter.make(for: .iccProfile(profile), layout: .bgrx8, warnings: &first))
        let b = try #require(ColorConverter.make(for: .iccProfile(profile), layout: .bgrx8, warnings: &second))
        #expect(a === b)
        let c = try #require(ColorConverter.make(for: .iccProfile(profile), layout: .rgb8, warnings: &second))
        #expect(a !== c)
        // The warnings of a refused profile come with every answer from the cache.
        var once: [String] = [], twice: [String] = []
        _ = ColorConverter.make(for: .iccProfile([1, 2, 3]), layout: .rgb8, warnings: &once)
        _ = ColorConverter.make(for: .iccProfile([1, 2, 3]), layout: .rgb8, warnings: &twice)
        #expect(!once.isEmpty && once == twice)
    }

    @Test(.enabled(if: ColorTools.available, ColorTools.missing))
    func convertsInPlaceAndAcrossThreads() async throws {
        let profile = try ExternalTools.bytes(atPath: ColorTools.proPhoto)
        var warnings: [String] = []
        var rng = SplitMix64(seed: 7)
        let pixels = (0..<(4 * 10_000)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        for fastPath in [true, false] {
            let converter = try #require(
                ColorConverter.make(for: .iccProfile(profile), layout: .bgra8, fastPath: fastPath, warnings: &warnings))
            let expected = ColorFixtures.convert(converter, pixels, count: 10_000)
            var inPlace = pixels
            inPlace.withUnsafeMutableBytes { converter.convert($0.baseAddress!, to: $0.baseAddress!, count: 10_000) }
            #expect(inPlace == expected)
            // Alpha is copied, not premultiplied.
            #expect(stride(from: 3, to: pixels.count, by: 4).allSatisfy { expected[$0] == pixels[$0] })
            let results = await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        var ignored: [String] = []
                        guard
                            let shared = ColorConverter.make(
                                for: .iccProfile(profile), layout: .bgra8, fastPath: fastPath, warnings: &ignored)
                        else { return false }
                        return ColorFixtures.convert(shared, pixels, count: 10_000) == expected
                    }
                }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(results.allSatisfy { $0 })
        }
    }

    static func isRGBProfile(_ description: ColorDescription) -> Bool {
        if case .iccProfile = description { return true }
        return false
    }

    static func name(_ description: ColorDescription) -> String {
        if case .iccProfile(let bytes) = description { return "ICC profile of \(bytes.count) bytes" }
        return "\(description)"
    }
}
