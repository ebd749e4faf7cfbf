import FICTestSupport
import Foundation
@testable import ImageCodec
import Testing

/// The public APNG test suite's cases (``APNGSuite``), each decoded as the cache plays it: a
/// valid file ends solid green; an invalid one shows its default image (solid green) as one
/// frame, or is refused with an error, never a frame of red.
@Suite struct APNGSuiteTests {
    /// Whether every pixel of `image` is opaque green.
    static func isSolidGreen(_ image: DecodedImage) -> Bool {
        for y in 0..<image.height {
            let row = (image.baseAddress + y * image.bytesPerRow).assumingMemoryBound(to: UInt8.self)
            for x in 0..<image.width where row[4 * x] != 0 || row[4 * x + 1] != 255 || row[4 * x + 2] != 0 || row[4 * x + 3] != 255 {
                return false
            }
        }
        return true
    }

    @Test(arguments: APNGSuite.cases)
    func eachCaseShowsWhatTheSuiteSays(_ test: APNGSuite.Case) throws {
        let (frames, error) = AnimationFiles.decodeUntilError(test.bytes)
        if test.valid {
            #expect(error == nil, "\(error.map(String.init(describing:)) ?? "")")
            #expect(frames.last.map { Self.isSolidGreen($0.image) } == true, "the last of \(frames.count) frames is solid green")
        } else {
            #expect(frames.allSatisfy { Self.isSolidGreen($0.image) }, "every frame shown is the default image")
            if error == nil { #expect(frames.count == 1, "the default image alone, not \(frames.count) frames") }
        }
        // The still decode is the default image, as a PNG decoder shows it: green, or red where a
        // valid file's default image is not one of its frames (the cache plays those frames).
        if let still = try? ImageDecoder.decode(test.bytes) {
            #expect(Self.isSolidGreen(still) != test.hidesDefaultImage, "the still picture is the default image")
        } else {
            #expect(!test.valid, "a valid file decodes as a still")
        }
    }
}
