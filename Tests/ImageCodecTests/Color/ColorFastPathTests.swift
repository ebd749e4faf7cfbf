import FICHarness
import FICTestSupport
import Foundation
import ImageCodec
import Testing

/// The matrix-shaper fast path against LittleCMS on the same random pixels: 8-bit sources
/// against a LittleCMS transform (the same arithmetic, so the same bytes), 16-bit sources
/// against LittleCMS's floating-point conversion by transicc.
@Suite(.enabled(if: ColorTools.available, ColorTools.missing))
struct ColorFastPathTests {
    /// The profiles photos most often carry, and every RGB profile colord ships.
    static func profiles() throws -> [(name: String, bytes: [UInt8])] {
        var profiles = [
            ("Display P3", try ExternalTools.bytes(atPath: try ColorFixtures.displayP3.get())),
            ("Adobe RGB", try ExternalTools.bytes(atPath: ColorTools.adobeRGB)),
            ("ProPhoto", try ExternalTools.bytes(atPath: ColorTools.proPhoto))
        ]
        let colord = "/usr/share/color/icc/colord"
        for file in try FileManager.default.contentsOfDirectory(atPath: colord).sorted() where file.hasSuffix(".icc") {
            profiles.append((file, try ExternalTools.bytes(atPath: colord + "/" + file)))
        }
        return profiles
    }

    @Test func eightBitEqualsLittleCMS() throws {
        var rng = SplitMix64(seed: 0xC0105)
        let count = 50_000
        let pixels = (0..<(count * 4)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        var fastProfiles = 0
        for (name, bytes) in try Self.profiles() {
            for layout in [ColorConverter.Layout.bgrx8, .bgra8, .rgb8, .rgba8] {
                var warnings: [String] = []
                guard let fast = ColorConverter.make(for: .iccProfile(bytes), layout: layout, warnings: &warnings) else {
                    continue  // sRGB itself, or not an RGB profile
                }
                guard fast.method == .matrixShaper else { continue }  // a profile with lookup tables
                let lcms = try #require(ColorConverter.make(for: .iccProfile(bytes), layout: layout, fastPath: false, warnings: &warnings))
                #expect(lcms.method == .littleCMS)
                let source = Array(pixels.prefix(count * layout.bytesPerPixel))
                let a = ColorFixtures.convert(fast, source, count: count), b = ColorFixtures.convert(lcms, source, count: count)
                let largest = a.withUnsafeBytes { a in b.withUnsafeBytes { b in SampleComparison.largestDifference(a, b) } }
                #expect(largest <= 1, "\(name) \(layout): differs by \(largest)")
                if layout == .rgb8 { fastProfiles += 1 }
            }
        }
        #expect(fastProfiles >= 8, "only \(fastProfiles) profiles took the fast path")
        for (name, bytes) in try Self.profiles().prefix(3) {
            var warnings: [String] = []
            #expect(ColorConverter.make(for: .iccProfile(bytes), layout: .bgrx8, warnings: &warnings)?.method == .matrixShaper, "\(name)")
        }
    }

    @Test func sixteenBitEqualsLittleCMSFloatingPoint() throws {
        var rng = SplitMix64(seed: 0x16B17)
        let count = 3000
        var samples = (0..<(count * 3)).map { _ in UInt16.random(in: 0...65535, using: &rng) }
        // The grey ramp. (Written as a loop: as one flatMap of literal arithmetic it took the type
        // checker 9 s, the longest compile of the test targets.)
        for level in 0...255 {
            let grey = UInt16(level) * 257
            samples += [grey, grey, grey]
        }
        let pixels = samples.count / 3
        let profiles = [
            ("Display P3", try ColorFixtures.displayP3.get()), ("Adobe RGB", ColorTools.adobeRGB), ("ProPhoto", ColorTools.proPhoto)
        ]
        for (name, path) in profiles {
            let reference = try ColorTools.transicc16(samples, profile: path, in: ColorFixtures.folder)
            var warnings: [String] = []
            let converter = try #require(
                ColorConverter.make(for: .iccProfile(try ExternalTools.bytes(atPath: path)), layout: .rgb16, warnings: &warnings))
            #expect(converter.method == .matrixShaper)
            let source = samples.withUnsafeBytes { Array($0) }
            let converted = ColorFixtures.rgb(ofBGRA: ColorFixtures.convert(converter, source, count: pixels))
            let differences = zip(converted, reference).map { abs(Int($0) - Int($1)) }
            let largest = differences.max() ?? 0
            #expect(largest <= 2, "\(name): differs by \(largest)")
            #expect(
                differences.filter { $0 > 1 }.count <= pixels / 1000, "\(name): \(differences.filter { $0 > 1 }.count) samples off by 2")

            // With alpha: the same colours, alpha rounded from 16 bits.
            let alphaConverter = try #require(
                ColorConverter.make(for: .iccProfile(try ExternalTools.bytes(atPath: path)), layout: .rgba16, warnings: &warnings))
            var withAlpha: [UInt16] = []
            for i in 0..<pixels { withAlpha += [samples[3 * i], samples[3 * i + 1], samples[3 * i + 2], UInt16(i * 37 % 65536)] }
            let four = ColorFixtures.convert(alphaConverter, withAlpha.withUnsafeBytes { Array($0) }, count: pixels)
            #expect(ColorFixtures.rgb(ofBGRA: four) == converted)
            #expect((0..<pixels).allSatisfy { Int(four[4 * $0 + 3]) == (Int(withAlpha[4 * $0 + 3]) * 255 + 32767) / 65535 })
        }
    }
}
