import FICHarness
import FICTestSupport
import Foundation
@testable import ImageCodec
import Testing

/// Mutation fuzzing of the AVIF sequence decoder (libavif and dav1d behind ``AVIFAnimation``),
/// seeded with sequences avifenc makes at test time: 8-bit 4:2:0, alpha, 10-bit, and a lossless
/// one turned, mirrored and cropped by its track. It gets as long as each animated format of
/// ``AnimationFuzz``, so `scripts/test` runs it under Address Sanitizer too (its library-test run
/// leaves out no ImageCodecTests suite). Every frame must be a canvas-sized bitmap, or the decoder
/// must throw an ``ImageCacheError``.
@Suite(.serialized, .enabled(if: AVIFSequenceFiles.available, AVIFSequenceFiles.missing))
struct AVIFAnimationFuzz {
    @Test func sequences() async throws {
        let turned = try AVIFSequenceFiles.sequence(
            "fuzz-turned.avif", try ["coffee", "rocket", "chelsea"].map { (try AVIFSequenceFiles.png($0, 48, 32), 40) },
            options: ["-l", "--crop", "4,2,40,28", "--irot", "1", "--imir", "1"])
        let paths = try [AVIFSequenceFiles.Kind.opaque, .alpha, .tenBit].map { try AVIFSequenceFiles.standard($0) } + [turned]
        let corpus = try paths.map { (name: ($0 as NSString).lastPathComponent, bytes: try HEIFTestFiles.bytes($0)) }
        try #require(corpus.allSatisfy { seed in seed.bytes.withUnsafeBytes { AnimatedImageDecoder.mayBeAnimated($0) } })
        let (iterations, frames) = try await AnimationFuzz.fuzz(corpus, format: .avif, seed: 0x4156_4953)
        print("Fuzz animated avif: \(iterations) iterations, \(frames) frames decoded")
        #expect(iterations > 0)
    }
}
