import FICHarness
import FICTestSupport
import Foundation
import ImageCodec
import Testing

/// Profiles made from H.273 code points and PNG gamma, and grey pixels.
@Suite struct ColorDescriptionTests {
    /// The BGRA output of converting grey values 0…255 (given as RGB) with `description`.
    static func ramp(_ description: ColorDescription, layout: ColorConverter.Layout = .rgb8) throws -> (output: [UInt8], warnings: [String])
    {
        var warnings: [String] = []
        let converter = try #require(ColorConverter.make(for: description, layout: layout, warnings: &warnings))
        let source: [UInt8] = layout == .gray8 ? (0...255).map { UInt8($0) } : (0...255).flatMap { [UInt8($0), UInt8($0), UInt8($0)] }
        return (ColorFixtures.convert(converter, source, count: 256), warnings)
    }

    @Test func linearLightIsEncoded() throws {
        // Linear 128/255 is sRGB 188 (0.50196 encodes to 0.7354).
        let linear = try Self.ramp(.codePoints(primaries: 1, transfer: 8, matrix: 0, fullRange: true))
        #expect(Array(linear.output[(128 * 4)..<(128 * 4 + 4)]) == [188, 188, 188, 255])
        #expect(linear.warnings.isEmpty)
        let gray = try Self.ramp(.gamma(1.0, chromaticities: nil), layout: .gray8)
        #expect(Array(gray.output[(128 * 4)..<(128 * 4 + 4)]) == [188, 188, 188, 255])
        // A gamma of 1/2.2 within 5 % is sRGB; far from it, a power law.
        var warnings: [String] = []
        #expect(ColorConverter.make(for: .gamma(0.46, chromaticities: nil), layout: .gray8, warnings: &warnings) == nil)
        let steep = try Self.ramp(.gamma(1 / 2.8, chromaticities: nil))
        #expect(steep.output[128 * 4] < 128)
    }

    @Test func rampsStayNeutralAndMonotonic() throws {
        let descriptions: [ColorDescription] = [
            .codePoints(primaries: 12, transfer: 13, matrix: 0, fullRange: true),  // Display P3
            .codePoints(primaries: 11, transfer: 13, matrix: 0, fullRange: true),  // DCI-P3's white point
            .codePoints(primaries: 9, transfer: 14, matrix: 9, fullRange: false),  // BT.2020
            .codePoints(primaries: 1, transfer: 1, matrix: 1, fullRange: false),  // BT.709's curve
            .codePoints(primaries: 6, transfer: 7, matrix: 6, fullRange: false),
            .codePoints(primaries: 9, transfer: 16, matrix: 9, fullRange: false),  // PQ
            .codePoints(primaries: 9, transfer: 18, matrix: 9, fullRange: false),  // HLG
            .gamma(
                0.5,
                chromaticities: .init(
                    whiteX: 0.3127, whiteY: 0.329, redX: 0.7, redY: 0.29, greenX: 0.17, greenY: 0.79, blueX: 0.13, blueY: 0.05))
        ]
        for description in descriptions {
            for layout in [ColorConverter.Layout.rgb8, .gray8] {
                // Grey depends on the curve alone: with sRGB's there is nothing to do.
                if case .codePoints(_, 13, _, _) = description, layout == .gray8 { continue }
                let (output, warnings) = try Self.ramp(description, layout: layout)
                for v in 0..<256 {
                    let (b, g, r) = (Int(output[4 * v]), Int(output[4 * v + 1]), Int(output[4 * v + 2]))
                    #expect(abs(r - g) <= 1 && abs(g - b) <= 1, "\(description) \(layout): grey \(v) became \(r) \(g) \(b)")
                    if v > 0 { #expect(g >= Int(output[4 * (v - 1) + 1]), "\(description) \(layout): not monotonic at \(v)") }
                }
                #expect(
                    output[1] <= 1 && output[255 * 4 + 1] >= 254,
                    "\(description) \(layout): black \(output[1]), white \(output[255 * 4 + 1])")
                let hdr: Bool
                if case .codePoints(_, let transfer, _, _) = description { hdr = transfer == 16 || transfer == 18 } else { hdr = false }
                #expect(warnings.count == (hdr ? 1 : 0), "\(warnings)")
            }
        }
    }

    @Test func unsupportedCodePointsWarn() throws {
        for (primaries, transfer) in [(10, 13), (1, 9), (200, 13), (12, 255)] {
            var warnings: [String] = []
            _ = ColorConverter.make(
                for: .codePoints(primaries: primaries, transfer: transfer, matrix: 0, fullRange: true), layout: .bgrx8, warnings: &warnings)
            #expect(warnings.count == 1, "\(primaries)/\(transfer): \(warnings)")
        }
    }

    @Test(.enabled(if: ColorTools.available, ColorTools.missing))
    func displayP3FromCodePointsMatchesTheProfile() throws {
        // The memo's check: lcms's P3 from code points is within 5 levels of vips's compact profile.
        var rng = SplitMix64(seed: 0x9312)
        let pixels = (0..<(3 * 20_000)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        var warnings: [String] = []
        let built = try #require(
            ColorConverter.make(
                for: .codePoints(primaries: 12, transfer: 13, matrix: 0, fullRange: true), layout: .rgb8, warnings: &warnings))
        let profile = try #require(
            ColorConverter.make(
                for: .iccProfile(try ExternalTools.bytes(atPath: try ColorFixtures.displayP3.get())), layout: .rgb8, warnings: &warnings))
        #expect(built.method == .matrixShaper)
        let a = ColorFixtures.convert(built, pixels, count: 20_000), b = ColorFixtures.convert(profile, pixels, count: 20_000)
        #expect((zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0) <= 5)
    }

    @Test(.enabled(if: ColorTools.available, ColorTools.missing))
    func grayProfilesMatchLittleCMS() throws {
        // icc-profiles-free's Gray.icc (linear light): through a table of LittleCMS's own
        // results, against transicc's floating-point conversion (0…255 both ways).
        let path = "/usr/share/color/icc/Gray.icc"
        let input = ColorFixtures.folder + "/gray-ramp.txt", output = input + ".out"
        try Data((0...255).map { "\($0)\n" }.joined().utf8).write(to: URL(fileURLWithPath: input))
        try ColorTools.run([ColorTools.transicc, "-i", path, "-o", "*sRGB", "-t", "1", "-n"], stdin: input, stdout: output)
        let values = String(decoding: try ExternalTools.bytes(atPath: output), as: UTF8.self)
            .split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Double($0) }
        try #require(values.count == 256 * 3)
        var warnings: [String] = []
        for layout in [ColorConverter.Layout.gray8, .grayAlpha8, .gray16, .grayAlpha16] {
            let converter = try #require(
                ColorConverter.make(for: .iccProfile(try ExternalTools.bytes(atPath: path)), layout: layout, warnings: &warnings))
            #expect(converter.method == .grayLookup)
            var source: [UInt8] = []
            for v in 0...255 {
                switch layout {
                case .gray8: source.append(UInt8(v))
                case .grayAlpha8: source += [UInt8(v), 200]
                case .gray16: source += withUnsafeBytes(of: UInt16(v * 257)) { Array($0) }
                default: source += withUnsafeBytes(of: UInt16(v * 257)) { Array($0) } + withUnsafeBytes(of: UInt16(200 * 257)) { Array($0) }
                }
            }
            let converted = ColorFixtures.convert(converter, source, count: 256)
            for v in 0...255 {
                let expected = Int(min(max(values[3 * v].rounded(), 0), 255))
                #expect(abs(Int(converted[4 * v + 2]) - expected) <= 1, "\(layout) grey \(v): \(converted[4 * v + 2]) against \(expected)")
                #expect(converted[4 * v + 3] == (layout.hasAlpha ? 200 : 255))
            }
        }
        #expect(warnings.isEmpty)
    }
}
