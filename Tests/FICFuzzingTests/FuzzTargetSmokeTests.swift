import FICFuzzing
import FICHarness
import FICTestSupport
import Foundation
import Testing

/// Every libFuzzer target of `fic-fuzz`, run by the test suite for a short smoke time (under
/// Address Sanitizer and LeakSanitizer in scripts/test): each of its seeds once, then seeded
/// mutations of them for `FIC_FUZZ_SMOKE_SECONDS` (default 2) per target. The search by
/// coverage is scripts/fuzz's; this keeps every target building, running and clean between
/// campaigns, on the same entry points and bounds.
@Suite(.serialized) struct FuzzTargetSmoke {
    static let seconds = ProcessInfo.processInfo.environment["FIC_FUZZ_SMOKE_SECONDS"].flatMap(Double.init) ?? 2

    /// The shared test files scripts/fuzz seeds the image targets with: the conformance suites'
    /// and the test data's small files, each behind the byte that picks full size (0) or a
    /// 16-pixel target (3).
    static func imageSeeds(tiffOnly: Bool) -> [[UInt8]] {
        let shared = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../shared")
            .standardizedFileURL.path
        var seeds: [[UInt8]] = []
        for folder in [
            "testdata/png", "testdata/jpeg", "testdata/webp", "conformance/pngsuite", "conformance/webp-suite", "conformance/jpeg-suite"
        ] {
            let path = shared + "/" + folder
            for name in ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() {
                guard let bytes = try? ExternalTools.bytes(atPath: path + "/" + name), bytes.count < 64 << 10,
                    !tiffOnly || bytes.starts(with: [0x49, 0x49]) || bytes.starts(with: [0x4D, 0x4D])
                else { continue }
                seeds.append([0] + bytes)
                seeds.append([3] + bytes)
            }
        }
        return seeds
    }

    /// A few of the seeds scripts/fuzz writes for the targets that parse text.
    static let textSeeds: [String: [[UInt8]]] = [
        "descriptor": [
            [0]
                + Array(
                    #"<?xml version="1.0"?><Image xmlns="http://schemas.microsoft.com/deepzoom/2008" Format="jpg" Overlap="1" TileSize="254"><Size Width="18000" Height="12000"/></Image>"#
                        .utf8),
            [1]
                + Array(
                    #"{"@context":"http://iiif.io/api/image/3/context.json","id":"https://example.com/iiif/photo","type":"ImageService3","protocol":"http://iiif.io/api/image","profile":"level2","width":6000,"height":4000,"tiles":[{"width":512,"scaleFactors":[1,2,4,8,16]}]}"#
                        .utf8)
        ],
        "route": [
            "/iiif/3/photo/info.json", "/iiif/3/photo/pct:10,10,50,50/!120,120/!90/gray.png", "/iiif/3/photo/square/^max/270/bitonal.webp",
            "/dzi/photo_files/12/3_4.jpg"
        ].map { [0x0F, 0xA0, 0x0B, 0xB8] + Array($0.utf8) }
    ]

    @Test(arguments: FuzzTarget.all.map(\.name))
    func eachTargetRunsCleanOnItsSeedsAndTheirMutations(_ name: String) throws {
        let target = try #require(FuzzTarget.named(name))
        var seeds = try target.seeds().map(\.1) + (Self.textSeeds[name] ?? [])
        if ["info", "decode", "animation", "stream", "tiff"].contains(name) { seeds += Self.imageSeeds(tiffOnly: name == "tiff") }
        if name == "tiff" { seeds += Self.madeTIFFs() }
        try #require(!seeds.isEmpty, "the target has seeds")
        for seed in seeds { seed.withUnsafeBytes { target.run($0) } }
        var random = SplitMix64(seed: FuzzSeed.value(for: "smoke of \(name)", default: 0x5EED_0000 &+ UInt64(name.utf8.count)))
        let deadline = ContinuousClock.now + .milliseconds(Int(Self.seconds * 1000))
        var runs = seeds.count
        while ContinuousClock.now < deadline {
            var input = seeds[Int(random.next() % UInt64(seeds.count))]
            for _ in 0..<(1 + Int(random.next() % 8)) where !input.isEmpty {
                let at = Int(random.next() % UInt64(input.count))
                switch random.next() % 4 {
                case 0: input[at] ^= UInt8(1 << (random.next() % 8))
                case 1: input[at] = UInt8(truncatingIfNeeded: random.next())
                case 2: input.removeSubrange(at..<min(input.count, at + 1 + Int(random.next() % 64)))
                default: input.insert(contentsOf: [UInt8](repeating: 0xFF, count: 1 + Int(random.next() % 8)), at: at)
                }
            }
            input.withUnsafeBytes { target.run($0) }
            runs += 1
        }
        print("smoke of \(name): \(runs) inputs")
        #expect(runs > seeds.count || Self.seconds == 0)
    }

    /// Small TIFFs (the shared files have none): strips and tiles, written by TIFFFiles.
    static func madeTIFFs() -> [[UInt8]] {
        let samples = [UInt8]((0..<(24 * 16 * 3)).map { UInt8(truncatingIfNeeded: $0 * 7) })
        let strips = TIFFFiles.uncompressed(width: 24, height: 16, samplesPerPixel: 3, photometric: 2, rowsPerStrip: 8, samples: samples)
        let tiles = TIFFFiles.uncompressed(
            width: 16, height: 16, samplesPerPixel: 3, photometric: 2, rowsPerStrip: 16, samples: Array(samples[0..<(16 * 16 * 3)]),
            overrides: [322: [16], 323: [16], 324: [8], 325: [16 * 16 * 3]], removing: [273, 278, 279])
        return [[0] + strips, [3] + strips, [0] + tiles]
    }
}
