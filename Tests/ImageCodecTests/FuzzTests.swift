import Foundation
import ImageCodec
import Testing

/// Deterministic mutation fuzzing of every decoder. `FIC_FUZZ_SECONDS` (default 3) is the total
/// time, split evenly across JPEG, PNG, WebP and HEIF/AVIF. Every call must either return a sane
/// image or throw an ``ImageCacheError``; a crash or an ASan report fails the run.
@Suite(.serialized) struct Fuzz {
    static var secondsPerFormat: Double {
        let total = ProcessInfo.processInfo.environment["FIC_FUZZ_SECONDS"].flatMap(Double.init) ?? 3
        return max(total, 0.4) / 4
    }

    @Test func jpeg() throws {
        let stats = try FuzzRunner.run(format: .jpeg, seconds: Self.secondsPerFormat, seed: 0x4A50_4547)
        #expect(stats.iterations > 0)
        #expect(stats.incrementalRuns > 0)
        #expect(stats.failures + stats.successes > 0)
    }

    @Test func png() throws {
        let stats = try FuzzRunner.run(format: .png, seconds: Self.secondsPerFormat, seed: 0x504E_47)
        #expect(stats.iterations > 0)
        #expect(stats.failures + stats.successes > 0)
    }

    @Test func webp() throws {
        let stats = try FuzzRunner.run(format: .webp, seconds: Self.secondsPerFormat, seed: 0x5745_4250)
        #expect(stats.iterations > 0)
        #expect(stats.failures + stats.successes > 0)
    }

    /// HEIC and AVIF made at test time: plain, with a thumbnail, alpha, 10-bit, a grid, turned and
    /// mirrored, an animation's first frame.
    @Test func heif() throws {
        let stats = try FuzzRunner.run(format: .heif, seconds: Self.secondsPerFormat, seed: 0x4845_4946, corpus: try HEIFTestFiles.fuzzCorpus())
        #expect(stats.iterations > 0)
        #expect(stats.failures + stats.successes > 0)
    }
}
