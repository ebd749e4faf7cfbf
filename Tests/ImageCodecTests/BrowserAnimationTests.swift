import FICTestSupport
import Foundation
@testable import ImageCodec
import Testing

/// The reference a person holds an animation against is the browser: every animation the tests
/// make, and the APNG suite's cases, decoded by Chromium's own decoders (WebCodecs' ImageDecoder,
/// ``BrowserFrames``) and by the package, frame by frame.
@Suite(
    .serialized,
    .enabled(
        if: BrowserFrames.missing == nil || ProcessInfo.processInfo.environment["FIC_REQUIRE_TEST_SERVER"] == "1",
        Comment(rawValue: BrowserFrames.missing ?? "")))
struct BrowserAnimationTests {
    /// Chromium's frame as the package's pixels are: premultiplied BGRA.
    static func image(_ frame: BrowserFrames.Frame) -> DecodedImage {
        AnimationFiles.image(rgba: frame.rgba, width: frame.width, height: frame.height)
    }

    /// Expects the package's frames of `bytes` to be Chromium's: as many, each at least `floor` dB.
    static func expectSame(
        _ name: String, _ bytes: [UInt8], _ chromium: BrowserFrames, floor: Double = 35, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let (frames, error) = AnimationFiles.decodeUntilError(bytes)
        #expect(error == nil, "\(name): \(error.map(String.init(describing:)) ?? "")", sourceLocation: sourceLocation)
        #expect(chromium.error == nil, "\(name): Chromium: \(chromium.error ?? "")", sourceLocation: sourceLocation)
        #expect(
            frames.count == chromium.frames.count, "\(name): \(frames.count) frames, Chromium \(chromium.frames.count)",
            sourceLocation: sourceLocation)
        for (frame, reference) in zip(frames, chromium.frames) {
            guard frame.image.width == reference.width, frame.image.height == reference.height else {
                Issue.record(
                    "\(name) frame \(frame.index): \(frame.image.width)×\(frame.image.height), Chromium \(reference.width)×\(reference.height)",
                    sourceLocation: sourceLocation)
                continue
            }
            let psnr = PixelComparison.psnr(frame.image, image(reference))
            #expect(psnr >= floor, "\(name) frame \(frame.index): \(psnr) dB against Chromium's", sourceLocation: sourceLocation)
        }
    }

    /// Every animation of the tests' corpus (GIFs, animated WebPs, APNGs, AVIF sequences): the
    /// GIFs, WebPs and APNGs are Chromium's frame for frame (≥ 35 dB; most are identical). The
    /// AVIF sequences differ from Chromium's by a colour shift (red about 5 levels higher, blue 5
    /// lower; 28–33 dB): Chromium 156 converts these files' YUV with another matrix than their
    /// `colr` box names (BT.601, full range), which libavif's own `avifdec` follows, and the
    /// package with it (AVIFAnimationTests compares every frame with avifdec's). Here they are held
    /// to the same frame count and to 25 dB, which a wrong frame or a missed disposal falls under.
    @Test func theTestsAnimationsAreChromiumsFrameForFrame() throws {
        let folder = try AnimationFiles.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var corpus: [(name: String, bytes: [UInt8])] = [
            ("GIF, full frames", try AnimationCorpus.gifFullFrames(interlaced: false, in: folder)),
            ("GIF, interlaced", try AnimationCorpus.gifFullFrames(interlaced: true, in: folder)),
            ("GIF, every disposal", try AnimationCorpus.gifDisposal(in: folder)),
            ("WebP, lossless and lossy", try AnimationCorpus.webpMixed(in: folder)),
            ("WebP, from a GIF", try AnimationCorpus.webpFromGIF(in: folder)),
            ("APNG, default image a frame", try AnimationCorpus.apng(defaultImage: false, in: folder)),
            ("APNG, default image not a frame", try AnimationCorpus.apng(defaultImage: true, in: folder))
        ]
        if AVIFSequenceFiles.available {
            for kind in AVIFSequenceFiles.Kind.allCases {
                corpus.append(("AVIF sequence, \(kind.rawValue)", try ExternalTools.bytes(atPath: try AVIFSequenceFiles.standard(kind))))
            }
        }
        let paths = try corpus.enumerated().map { index, file in
            let path = folder + "/corpus-\(index)"
            try ExternalTools.write(file.bytes, to: path)
            return path
        }
        let chromium = try BrowserFrames.decode(paths, in: folder)
        for (file, reference) in zip(corpus, chromium) {
            Self.expectSame(file.name, file.bytes, reference, floor: file.name.hasPrefix("AVIF") ? 25 : 35)
        }
    }

    /// The APNG suite's valid cases play as in Chromium. Its invalid ones are held to the suite
    /// (APNGSuiteTests): where Chromium shows something else (it plays the frames before the
    /// error, or a frame whose data is too long), this prints what, as docs/FORMATS.md records it.
    @Test func theAPNGSuiteAgainstChromium() throws {
        let folder = try AnimationFiles.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let paths = try APNGSuite.cases.enumerated().map { index, test in
            let path = folder + "/apng-\(index).png"
            try ExternalTools.write(test.bytes, to: path)
            return path
        }
        let chromium = try BrowserFrames.decode(paths, in: folder)
        for (test, reference) in zip(APNGSuite.cases, chromium) {
            if test.valid {
                Self.expectSame(test.name, test.bytes, reference)
            } else {
                let shown = reference.frames.map { APNGSuiteTests.isSolidGreen(Self.image($0)) ? "green" : "not green" }
                if shown != ["green"] {
                    print(
                        "APNG suite, invalid \"\(test.name)\": Chromium \(reference.frameCount.map { "\($0) frames" } ?? "no image") \(shown)\(reference.error.map { ", \($0)" } ?? ""); the package: the default image or an error, as the suite says"
                    )
                }
            }
        }
    }
}
