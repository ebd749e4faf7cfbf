import FICHarness
import Foundation
import ImageCodec
import Testing

/// Runs mutated inputs through the decoders and checks every outcome.
enum FuzzRunner {
    struct Stats {
        var iterations = 0
        var successes = 0
        var failures = 0
        var incrementalRuns = 0
    }

    /// Pixel limit for fuzzed inputs, so that dimension edits do not allocate gigabytes.
    static let pixelLimit = 4_000_000

    /// Mutates the files of `format` among the test data, and `extra` files (made at test time
    /// for formats the test data has few of).
    static func run(format: ImageFileFormat, seconds: Double, seed: UInt64, extra: [(name: String, bytes: [UInt8])] = []) throws -> Stats {
        let corpus =
            try TestData.allFiles().filter { file in
                file.bytes.withUnsafeBytes { ImageDecoder.sniffFormat($0) } == format
            } + extra
        try #require(!corpus.isEmpty)
        var rng = SplitMix64(seed: seed)
        var stats = Stats()
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            let original = corpus.randomElement(using: &rng)!
            let input = FuzzMutator.mutate(original.bytes, format: format, using: &rng)
            let context = "\(original.name), iteration \(stats.iterations)"
            var options = DecodingOptions(maximumPixelCount: pixelLimit)
            options.allowCorruptData = Int.random(in: 0..<4, using: &rng) == 0
            options.applyOrientation = Bool.random(using: &rng)
            if Bool.random(using: &rng) {
                options.targetSize = PixelSize(width: Int.random(in: 1...800, using: &rng), height: Int.random(in: 1...800, using: &rng))
            }
            outcome(context, &stats) { try checkSane(ImageDecoder.decode(input, options: options), options: options) }
            outcome(context, &stats) { _ = try ImageDecoder.info(input) }
            outcome(context, &stats) { _ = try ImageDecoder.estimatedMemory(input, options: options) }
            // The row decoder tile pyramids run, in chunks of any size.
            stats.incrementalRuns += 1
            let chunk = [1, 7, 512, 4096, 65536].randomElement(using: &rng)!
            let chunkSize = input.count > 20_000 && chunk == 1 ? 97 : chunk
            outcome(context, &stats) { try streamed(input, chunkSize: chunkSize, allowCorruptData: options.allowCorruptData) }
            stats.iterations += 1
        }
        print(
            "Fuzz \(format.rawValue): \(stats.iterations) iterations, \(stats.successes) decodes succeeded, \(stats.failures) refused, \(stats.incrementalRuns) incremental runs"
        )
        return stats
    }

    /// Runs `body`, counting success or an ``ImageCacheError``; anything else is a test failure.
    private static func outcome(_ context: String, _ stats: inout Stats, _ body: () throws -> Void) {
        do {
            try body()
            stats.successes += 1
        } catch is ImageCacheError {
            stats.failures += 1
        } catch {
            Issue.record("\(context): unexpected error \(error)")
        }
    }

    /// A successful decode must be a plausible bitmap: sizes consistent and pixels well-formed.
    private static func checkSane(_ image: DecodedImage, options: DecodingOptions) throws {
        let source = image.source
        let d = image.scaleDenominator
        let rotated = options.applyOrientation && source.orientation.swapsDimensions
        let fullWidth = rotated ? source.height : source.width
        let fullHeight = rotated ? source.width : source.height
        #expect(d >= 1)
        if d == 1 {
            #expect(image.width == fullWidth && image.height == fullHeight)
        } else {
            // Shrunk, but never below the target, and never more than the denominator says.
            #expect(image.width <= fullWidth && image.height <= fullHeight)
            #expect(image.width >= (fullWidth + d - 1) / d - 1 && image.height >= (fullHeight + d - 1) / d - 1)
            if let target = options.targetSize, options.applyOrientation {
                #expect(image.width >= min(target.width, fullWidth) && image.height >= min(target.height, fullHeight))
            }
        }
        #expect(image.width * image.height <= pixelLimit)
        #expect(image.bytesPerRow >= image.width * 4)
        var bad = 0
        for y in 0..<image.height {
            let row = (image.baseAddress + y * image.bytesPerRow).assumingMemoryBound(to: UInt8.self)
            for x in 0..<image.width {
                let p = row + x * 4
                switch image.pixelFormat {
                case .bgrx32: if p[3] != 255 { bad += 1 }
                case .bgra32Premultiplied: if p[0] > p[3] || p[1] > p[3] || p[2] > p[3] { bad += 1 }
                default: bad += 1
                }
            }
        }
        #expect(bad == 0)
    }

    /// Streams `input` through its format's row decoder; every row arrives (``RowStreaming`` checks).
    private static func streamed(_ input: [UInt8], chunkSize: Int, allowCorruptData: Bool) throws {
        let result = try RowStreaming.decode(
            input, chunkSize: chunkSize, options: RowStreaming.options(maximumPixelCount: pixelLimit, allowCorruptData: allowCorruptData))
        #expect(result.pixels.count == result.header.width * result.header.height * 4)
    }
}
