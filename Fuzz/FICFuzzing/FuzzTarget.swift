import Foundation
import ImageCodec

/// One parser of outside bytes, fuzzed by libFuzzer through `fic-fuzz` (scripts/fuzz): its name,
/// what it does with one input, and the seeds it starts from beyond the files scripts/fuzz
/// gathers (those only the package itself can make, such as table files).
///
/// An input must end in a value or an error, never a crash, a leak (LeakSanitizer), a read or
/// write out of bounds (AddressSanitizer), a hang (libFuzzer's `-timeout`) or an allocation above
/// ``FuzzBounds/largestAllocation`` — checked for `malloc` by libFuzzer's `-malloc_limit_mb` and
/// for the page buffers the decoders map themselves by ``FuzzBounds/checking(_:)``.
package struct FuzzTarget: Sendable {
    /// The name scripts/fuzz and `FIC_FUZZ_TARGET` use.
    package let name: String
    /// What is fuzzed, in a few words.
    package let summary: String
    /// Runs one input.
    package let run: @Sendable (UnsafeRawBufferPointer) -> Void
    /// Seeds made by the package itself: file name and bytes.
    package let seeds: @Sendable () throws -> [(String, [UInt8])]

    /// A target.
    package init(
        name: String, summary: String, seeds: @escaping @Sendable () throws -> [(String, [UInt8])] = { [] },
        run: @escaping @Sendable (UnsafeRawBufferPointer) -> Void
    ) {
        self.name = name
        self.summary = summary
        self.seeds = seeds
        self.run = run
    }

    /// Every target, in the order scripts/fuzz runs them.
    package static let all: [FuzzTarget] = ImageTargets.all + StorageTargets.all + TileTargets.all

    /// The target named `name`.
    package static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }
}

/// The bounds every input is held to.
package enum FuzzBounds {
    /// The largest single buffer an input may make the package allocate: 256 MiB. A decode
    /// checks the pixel limit below before it allocates for a size, so anything larger is an
    /// allocation made before a check (as a 523-byte PNG once made `ImageDecoder.info` map 2.6 GB).
    package static let largestAllocation = 256 << 20

    /// The pixel limit the decoders are given: 16 megapixels, 64 MiB of BGRA.
    package static let maximumPixelCount = 16 << 20

    /// Decoding options within the bounds, at `target` size when given.
    package static func options(target: PixelSize? = nil) -> DecodingOptions {
        var options = DecodingOptions()
        options.maximumPixelCount = maximumPixelCount
        options.maximumAnimationPixels = 64 << 20
        options.maximumFrames = 64
        options.targetSize = target
        return options
    }

    /// Runs `body`, then stops the process (so that libFuzzer saves the input) when a page
    /// buffer above ``largestAllocation`` was handed out meanwhile.
    package static func checking(_ body: () -> Void) {
        let probe = AllocationProbe()
        AllocationProbe.$current.withValue(probe) { body() }
        if probe.largestBytes > largestAllocation {
            FileHandle.standardError.write(
                Data(
                    "fic-fuzz: the input made the package allocate \(probe.largestBytes) bytes at once, above the bound of \(largestAllocation)\n"
                        .utf8))
            abort()
        }
    }
}
