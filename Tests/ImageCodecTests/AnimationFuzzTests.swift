import FICHarness
import FICTestSupport
import Foundation
@testable import ImageCodec
import Testing

/// Mutation fuzzing of the animated decoders (GIF, animated WebP, APNG), seeded with animations
/// made at test time, each given a third of one format's share of `FIC_FUZZ_SECONDS` (see
/// ``Fuzz``), so `scripts/test` runs them under Address Sanitizer too. Every frame must be a
/// canvas-sized bitmap (or, decoded for a smaller target half of the time, one that covers it
/// within the canvas), or the decoder must throw an ``ImageCacheError``.
@Suite(.serialized) struct AnimationFuzz {
    static var seconds: Double { max(Fuzz.secondsPerFormat / 3, 0.3) }

    /// The seeds: the six-frame files, and a GIF and a WebP with every disposal and sub-rectangles.
    static func seeds(in folder: String) throws -> [(name: String, bytes: [UInt8])] {
        let background = try AnimationFiles.still("astronaut.jpg", 40, 30, in: folder)
        let small = try AnimationFiles.still("coffee.jpg", 16, 12, roundAlpha: true, in: folder)
        let gif = try ExternalTools.convert(
            [
                "-loop", "3", "-delay", "20", "-dispose", "none", "-page", "40x30+0+0", background,
                "-dispose", "background", "-page", "+4+4", small, "-dispose", "previous", "-page", "+20+15", small,
                "-interlace", "Line", "-dispose", "none", "-page", "+10+10", small
            ], in: folder, name: "dispose.gif")
        let webp = folder + "/dispose.webp"
        try ExternalTools.run(try ExternalTools.tool("gif2webp", package: "webp"), ["-mixed", folder + "/dispose.gif", "-o", webp])
        return try AnimationDamageTests.sixFrames(in: folder) + [
            ("dispose GIF", gif), ("dispose WebP", try ExternalTools.bytes(atPath: webp))
        ]
    }

    /// Decodes mutants of `corpus` (mutated as `format`) for ``seconds`` on a thread of its own:
    /// every frame must be a canvas-sized bitmap within the frame count, or the decoder must throw
    /// an ``ImageCacheError``. Returns the iterations run and the frames decoded.
    static func fuzz(_ corpus: [(name: String, bytes: [UInt8])], format: ImageFileFormat, seed: UInt64) async throws -> (
        iterations: Int, frames: Int
    ) {
        let seconds = Self.seconds
        return try await OwnThread.running { () throws -> (Int, Int) in
            var rng = SplitMix64(seed: seed)
            var iterations = 0, frames = 0
            let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
            while ContinuousClock.now < deadline {
                let original = corpus.randomElement(using: &rng)!
                let input = FuzzMutator.mutate(original.bytes, format: format, using: &rng)
                var options = DecodingOptions(
                    maximumPixelCount: FuzzRunner.pixelLimit, maximumFrames: 1000, maximumAnimationPixels: 50_000_000)
                options.allowCorruptData = Bool.random(using: &rng)
                // Half of the time for a target (an animated WebP is then composited at a reduced size).
                let target =
                    Bool.random(using: &rng)
                    ? PixelSize(width: Int.random(in: 1...32, using: &rng), height: Int.random(in: 1...32, using: &rng)) : nil
                options.targetSize = target
                do {
                    let decoder = try AnimatedImageDecoder(input, options: options)
                    let info = decoder.info
                    try decoder.forEachFrame { frame in
                        frames += 1
                        #expect(frame.index < max(info.frameCount, 1), "\(original.name), iteration \(iterations)")
                        if let target {
                            #expect(
                                frame.image.width <= info.width && frame.image.height <= info.height,
                                "\(original.name), iteration \(iterations)")
                            #expect(
                                frame.image.width >= min(target.width, info.width) && frame.image.height >= min(target.height, info.height),
                                "\(original.name), iteration \(iterations): \(frame.image.width)×\(frame.image.height) for \(target)")
                        } else {
                            #expect(
                                frame.image.width == info.width && frame.image.height == info.height,
                                "\(original.name), iteration \(iterations)")
                        }
                    }
                } catch is ImageCacheError {
                } catch {
                    Issue.record("\(original.name), iteration \(iterations): unexpected error \(error)")
                }
                iterations += 1
            }
            return (iterations, frames)
        }
    }

    @Test(arguments: [ImageFileFormat.gif, .webp, .png]) func animated(_ format: ImageFileFormat) async throws {
        let folder = try AnimationFiles.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let corpus = try Self.seeds(in: folder).filter { seed in seed.bytes.withUnsafeBytes { ImageDecoder.sniffFormat($0) } == format }
        try #require(!corpus.isEmpty)
        let (iterations, frames) = try await Self.fuzz(corpus, format: format, seed: 0x414E_494D + UInt64(format.rawValue.count))
        print("Fuzz animated \(format.rawValue): \(iterations) iterations, \(frames) frames decoded")
        #expect(iterations > 0)
    }
}
