import FICHarness
import FICTestSupport
import Foundation
import ImageCodec
import Testing

/// Mutation fuzzing of the colour parsers, and of the converter (LittleCMS reading the damaged
/// profiles they find). `FIC_FUZZ_SECONDS` (default 3) sets the time, a sixth of it per format;
/// scripts/test runs it under Address Sanitizer, where a read out of bounds fails the run.
@Suite(.serialized) struct ColorFuzz {
    static var secondsPerFormat: Double {
        let total = ProcessInfo.processInfo.environment["FIC_FUZZ_SECONDS"].flatMap(Double.init) ?? 3
        return max(total, 0.3) / 6
    }

    @Test func jpeg() async throws {
        let stats = try await OwnThread.running { try ColorFuzzRunner.run(.jpeg, seconds: Self.secondsPerFormat, seed: 0x1CC_4A50) }
        #expect(stats.iterations > 0 && stats.profiles > 0)
    }

    @Test func png() async throws {
        let stats = try await OwnThread.running { try ColorFuzzRunner.run(.png, seconds: Self.secondsPerFormat, seed: 0x1CC_504E) }
        #expect(stats.iterations > 0 && stats.profiles > 0)
    }

    @Test func webp() async throws {
        let stats = try await OwnThread.running { try ColorFuzzRunner.run(.webp, seconds: Self.secondsPerFormat, seed: 0x1CC_5745) }
        #expect(stats.iterations > 0 && stats.profiles > 0)
    }
}

/// Runs damaged files through a parser and, now and then, what it found through the converter.
enum ColorFuzzRunner {
    struct Stats {
        var iterations = 0
        var profiles = 0
        var converters = 0
    }

    static func run(_ format: ImageFileFormat, seconds: Double, seed: UInt64) throws -> Stats {
        let corpus = try Self.corpus(format)
        try #require(!corpus.isEmpty)
        var rng = SplitMix64(seed: seed)
        var stats = Stats()
        let layouts: [ColorConverter.Layout] = [
            .bgrx8, .bgra8, .rgb8, .rgba8, .rgb16, .rgba16, .gray8, .grayAlpha8, .gray16, .grayAlpha16, .cmyk8, .cmykInverted8
        ]
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            let original = corpus.randomElement(using: &rng)!
            // Mostly mutations; sometimes a clean cut anywhere.
            let input =
                Int.random(in: 0..<4, using: &rng) == 0
                ? Array(original.prefix(Int.random(in: 0...original.count, using: &rng)))
                : FuzzMutator.mutate(original, format: format, using: &rng)
            let found = input.withUnsafeBytes { bytes in
                switch format {
                case .jpeg: return EmbeddedColor.jpeg(bytes)
                case .png: return EmbeddedColor.png(bytes)
                default: return EmbeddedColor.webp(bytes)
                }
            }
            #expect(found.warnings.count <= 8)
            if case .iccProfile(let profile) = found.description {
                stats.profiles += 1
                #expect(!profile.isEmpty && profile.count <= (format == .png ? EmbeddedColor.pngProfileLimit : input.count))
            }
            if found.description != .untagged && Int.random(in: 0..<3, using: &rng) == 0 {
                let layout = layouts.randomElement(using: &rng)!
                var warnings: [String] = []
                if let converter = ColorConverter.make(for: found.description, layout: layout, warnings: &warnings) {
                    stats.converters += 1
                    let pixels = (0..<(64 * layout.bytesPerPixel)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                    _ = ColorFixtures.convert(converter, pixels, count: 64)
                }
            }
            stats.iterations += 1
        }
        print(
            "Colour fuzz \(format.rawValue): \(stats.iterations) iterations, \(stats.profiles) profiles found, \(stats.converters) converters made"
        )
        return stats
    }

    /// Files with colour information: made by hand (odd numbering, 255 pieces, every PNG chunk),
    /// other decoders' conformance files, and the photos the colour tests make when their tools are there.
    static func corpus(_ format: ImageFileFormat) throws -> [[UInt8]] {
        let profile = try ExternalTools.bytes(atPath: "/usr/share/color/icc/colord/AdobeRGB1998.icc")
        var files: [[UInt8]] = []
        switch format {
        case .jpeg:
            for name in ["chunk_order", "chunk_count_mismatch", "missing_chunk"] {
                files.append(try ExternalTools.bytes(atPath: ColorFixtures.jpegSuite + "/jpeg-decoder__icc_icc_\(name).jpeg"))
            }
            let half = profile.count / 2
            files.append(
                try EmbeddedColorTests.jpeg(with: [
                    EmbeddedColorTests.iccPiece(2, of: 2, Array(profile[half...])),
                    EmbeddedColorTests.iccPiece(1, of: 2, Array(profile[..<half])),
                    TestImageBuilder.appSegment(14, Array("Adobe".utf8) + [0, 100, 0, 0, 0, 0, 2])
                ]))
            files.append(try EmbeddedColorTests.jpeg(with: (1...255).map { EmbeddedColorTests.iccPiece($0, of: 255, [UInt8($0)]) }))
        case .png:
            files.append(EmbeddedColorTests.png(with: [EmbeddedColorTests.iccp(profile), PNGFiles.chunk("sRGB", [0])]))
            files.append(
                EmbeddedColorTests.png(with: [
                    PNGFiles.chunk("cICP", [9, 16, 0, 1]), PNGFiles.chunk("gAMA", PNGFiles.bigEndian32(45455)), EmbeddedColorTests.chrm
                ]))
        default:
            let body =
                TestImageBuilder.riffChunk("VP8X", [0x20, 0, 0, 0, 0, 0, 0, 0, 0, 0]) + TestImageBuilder.riffChunk("ICCP", profile)
                + TestImageBuilder.riffChunk("VP8L", [0x2F, 0, 0, 0, 0])
            files.append(Array("RIFF".utf8) + TestImageBuilder.littleEndian32(body.count + 4) + Array("WEBP".utf8) + body)
        }
        if ColorTools.available {
            let names: [ImageFileFormat: [String]] = [
                .jpeg: ["Display P3 JPEG", "CMYK JPEG (SWOP)"], .png: ["Adobe RGB PNG", "ProPhoto 16-bit PNG"], .webp: ["Display P3 WebP"]
            ]
            for name in names[format] ?? [] {
                files.append(try ExternalTools.bytes(atPath: try ColorFixtures.photo(name).path))
            }
        }
        return files
    }
}
