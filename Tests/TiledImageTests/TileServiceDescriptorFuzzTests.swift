import FICHarness
import FICTestSupport
import Foundation
import Testing
@testable import TiledImage

/// Mutation fuzzing of the remote tile descriptors, seeded with the ones vips and the package write
/// and the IIIF 2.1 example: every parse returns a descriptor whose levels and tile URLs are sane,
/// or throws an ``ImageCacheError``; a crash, a trap or an ASan report fails the run. A fixed
/// number of mutations from a seed it prints (`FIC_FUZZ_SEED` replays one); `scripts/fuzz
/// descriptor` searches the same parser by coverage.
@Suite struct TileServiceDescriptorFuzzTests {
    @Test func descriptorsSurviveMutation() async throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let (source, pyramid) = try StaticExportTests.source(width: 1000, height: 601, in: folder)
        try ExternalTools.run(StaticExportTests.vips, ["dzsave", source, folder + "/image", "--overlap", "1", "--tile-size", "254"])
        try ExternalTools.run(
            StaticExportTests.vips, ["dzsave", source, folder + "/iiif", "--layout", "iiif3", "--id", "https://x.example"])
        _ = try StaticTileExport.write(pyramid, layout: .iiif, into: folder + "/ours", iiifID: "https://x.example/ours")
        let v2 =
            #"{"@context": "http://iiif.io/api/image/2/context.json", "@id": "http://www.example.org/abcd1234", "width": 6000, "height": 4000, "tiles": [{"width": 512, "scaleFactors": [1, 2, 4, 8, 16]}]}"#
        let seeds = [
            try ExternalTools.bytes(atPath: folder + "/image.dzi"), try ExternalTools.bytes(atPath: folder + "/iiif/info.json"),
            try ExternalTools.bytes(atPath: folder + "/ours/iiif/info.json"), Array(v2.utf8)
        ]
        let seed = FuzzSeed.value(for: "Fuzz descriptors", default: 0x445A_4949)
        let parsed = try await OwnThread.running { Self.fuzz(seeds, runs: 5000, seed: seed) }
        print("Fuzz descriptors: 5000 mutations, \(parsed) parsed")
        #expect(parsed > 0, "some mutations still parse: the checks are exercised past the first field")
        #expect(parsed < 5000, "some mutations are refused: the mutator changes what matters")
    }

    /// Makes `runs` mutations of the seeds; returns how many parsed.
    static func fuzz(_ seeds: [[UInt8]], runs: Int, seed: UInt64) -> Int {
        var random = SplitMix64(seed: seed)
        let numbers: [String] = [
            "0", "-1", "1", "255", "256", "257", "4096", "4097", "1048576", "1048577", "2147483648", "9223372036854775807", "1e300", "0.5",
            "-0", "NaN"
        ]
        let url = URL(string: "https://tiles.example/a/image.dzi")!
        var parsed = 0
        for _ in 0..<runs {
            var bytes = seeds[Int(random.next() % UInt64(seeds.count))]
            for _ in 0..<(1 + Int(random.next() % 4)) {
                guard !bytes.isEmpty else { break }
                let at = Int(random.next() % UInt64(bytes.count))
                switch random.next() % 5 {
                case 0: bytes[at] = UInt8(truncatingIfNeeded: random.next())
                case 1: bytes.removeSubrange(at..<min(bytes.count, at + 1 + Int(random.next() % 16)))
                case 2: bytes.insert(contentsOf: Array(numbers[Int(random.next() % UInt64(numbers.count))].utf8), at: at)
                case 3: bytes = Array(bytes.prefix(at))
                default:
                    // A number replaced: the checks of sizes, tiles and factors.
                    if let digit = bytes[at...].firstIndex(where: { (0x30...0x39).contains($0) }) {
                        let end = bytes[digit...].firstIndex { !(0x30...0x39).contains($0) } ?? bytes.count
                        bytes.replaceSubrange(digit..<end, with: Array(numbers[Int(random.next() % UInt64(numbers.count))].utf8))
                    }
                }
            }
            guard let d = try? TileServiceDescriptor.parse(bytes, from: url) else { continue }
            parsed += 1
            precondition(!d.levels.isEmpty && d.width >= 1 && d.height >= 1 && d.width <= TileServiceDescriptor.maximumSide)
            for (level, grid) in d.levels.enumerated() {
                precondition(grid.width >= 1 && grid.height >= 1 && grid.columns >= 1 && grid.rows >= 1)
                _ = d.tileURL(level: level, column: 0, row: 0)
                _ = d.tileURL(level: level, column: grid.columns - 1, row: grid.rows - 1)
            }
        }
        return parsed
    }
}
