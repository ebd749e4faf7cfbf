import FICTestSupport
import Foundation
@testable import ImageCodec
import Testing

/// Hostile and damaged animations: files cut inside a frame, too many frames, frame rectangles
/// huge or outside the canvas, APNG sequence numbers that loop, absurd delays. Never a crash, a
/// hang or a runaway allocation: frames before the damage, then a named error.
@Suite(.serialized) struct AnimationDamageTests {
    /// A six-frame GIF, APNG and animated WebP of the photos, each frame 64 × 48.
    static func sixFrames(in folder: String) throws -> [(name: String, bytes: [UInt8])] {
        let photos = try ["chelsea.jpg", "coffee.jpg", "rocket.jpg", "astronaut.jpg", "hubble.jpg", "retina.jpg"].map {
            try AnimationFiles.still($0, 64, 48, in: folder)
        }
        let gif = try ExternalTools.convert(["-delay", "10"] + photos + ["-loop", "0"], in: folder, name: "six.gif")
        try AnimationFiles.pillow(
            """
            import sys
            from PIL import Image
            images = [Image.open(p).convert("RGBA") for p in sys.argv[2:]]
            images[0].save(sys.argv[1], save_all=True, append_images=images[1:], duration=50, loop=0)
            """, [folder + "/six.png"] + photos)
        let webp = folder + "/six.webp"
        try ExternalTools.run(try ExternalTools.tool("img2webp", package: "webp"), ["-lossy", "-q", "50"] + photos + ["-o", webp])
        return [
            ("GIF", gif), ("APNG", try ExternalTools.bytes(atPath: folder + "/six.png")), ("WebP", try ExternalTools.bytes(atPath: webp))
        ]
    }

    /// Cut at 3/4 of its length, inside its fifth frame: the first frames are delivered, the
    /// same as from the whole file, then `.truncated`.
    @Test func aFileCutInsideAFrameDeliversTheFramesBeforeIt() throws {
        let folder = try AnimationFiles.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (name, bytes) in try Self.sixFrames(in: folder) {
            let whole = try AnimationFiles.decode(bytes)
            #expect(whole.frames.count == 6, "\(name)")
            let (frames, error) = AnimationFiles.decodeUntilError(Array(bytes.prefix(bytes.count * 3 / 4)))
            #expect(error?.code == .truncated, "\(name): \(String(describing: error))")
            #expect((3...5).contains(frames.count), "\(name): \(frames.count) frames before the cut")
            for frame in frames {
                #expect(PixelComparison.identical(frame.image, whole.frames[frame.index].image), "\(name) frame \(frame.index)")
            }
        }
    }

    /// Decoding ahead on a thread of its own changes nothing a caller sees: the same frames, the
    /// same error after the same frames of a cut file; and a decoder dropped after its first frame
    /// stops its thread (the test would hang in deinit otherwise).
    @Test(.timeLimit(.minutes(10))) func framesDecodedAheadAreTheSame() throws {
        let folder = try AnimationFiles.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let ahead = DecodingOptions(decodesFramesAhead: true)
        for (name, bytes) in try Self.sixFrames(in: folder) {
            for data in [bytes, Array(bytes.prefix(bytes.count * 3 / 4))] {
                let plain = AnimationFiles.decodeUntilError(data)
                let early = AnimationFiles.decodeUntilError(data, options: ahead)
                #expect(early.frames.count == plain.frames.count, "\(name)")
                #expect(
                    early.error?.code == plain.error?.code && early.error?.message == plain.error?.message,
                    "\(name): \(String(describing: early.error))")
                for (a, b) in zip(early.frames, plain.frames) {
                    #expect(
                        a.index == b.index && a.durationMs == b.durationMs && PixelComparison.identical(a.image, b.image),
                        "\(name) frame \(a.index)")
                }
            }
            let shrunk = DecodingOptions(targetSize: PixelSize(width: 16, height: 12), decodesFramesAhead: true)
            let small = try AnimationFiles.decode(bytes, options: shrunk).frames
            let reference = try AnimationFiles.decode(bytes, options: DecodingOptions(targetSize: PixelSize(width: 16, height: 12))).frames
            #expect(small.count == 6 && zip(small, reference).allSatisfy { PixelComparison.identical($0.image, $1.image) }, "\(name)")
            let dropped = try AnimatedImageDecoder(bytes, options: ahead)
            #expect(try dropped.nextFrame()?.index == 0)
        }
    }

    @Test func tooManyFramesOrPixelsAreRefusedBeforeDecoding() throws {
        let folder = try AnimationFiles.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (name, bytes) in try Self.sixFrames(in: folder) {
            for options in [
                DecodingOptions(maximumFrames: 5), DecodingOptions(maximumAnimationPixels: 64 * 48 * 5),
                DecodingOptions(maximumPixelCount: 64 * 47)
            ] {
                let (frames, error) = AnimationFiles.decodeUntilError(bytes, options: options)
                #expect(frames.isEmpty && error?.code == .dimensionsTooLarge, "\(name): \(String(describing: error))")
            }
        }
    }

    /// Each animation cut at eleven points through its length: never a quiet end. The frames
    /// before the cut are the whole file's, then `.truncated` names the cut.
    @Test func aFileCutAnywhereEndsWithTruncated() throws {
        let folder = try AnimationFiles.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (name, bytes) in try Self.sixFrames(in: folder) {
            let whole = try AnimationFiles.decode(bytes)
            for k in 1..<12 {
                let (frames, error) = AnimationFiles.decodeUntilError(Array(bytes.prefix(bytes.count * k / 12)))
                #expect(error?.code == .truncated, "\(name) cut at \(k)/12: \(frames.count) frames, \(String(describing: error))")
                #expect(frames.count < 6 || k == 11, "\(name) cut at \(k)/12")
                for frame in frames {
                    #expect(
                        PixelComparison.identical(frame.image, whole.frames[frame.index].image),
                        "\(name) cut at \(k)/12, frame \(frame.index)")
                }
            }
        }
    }

    /// A GIF of 60 frames cut in the middle of frame 40: the first 39 play, then `.truncated`.
    @Test func aGIFCutInTheMiddleOfFrame40PlaysTheFirst39() throws {
        let palette: [GIFBytes.Color] = [(255, 0, 0), (0, 0, 255)]
        var gif = GIFBytes.header(width: 4, height: 4, palette: palette)
        var starts: [Int] = []
        for i in 0..<60 {
            starts.append(gif.count)
            gif +=
                GIFBytes.graphicControl(transparentIndex: nil, delay: 4)
                + GIFBytes.image(
                    left: 0, top: 0, width: 4, height: 4, indices: Array(repeating: UInt8(i % 2), count: 16), minimumCodeSize: 2)
        }
        gif += GIFBytes.trailer
        let cut = Array(gif.prefix((starts[39] + starts[40]) / 2))
        let (frames, error) = AnimationFiles.decodeUntilError(cut)
        #expect(frames.count == 39, "frames 0 to 38")
        #expect(error?.code == .truncated, "\(String(describing: error))")
        #expect(frames.enumerated().allSatisfy { $0.element.index == $0.offset && $0.element.durationMs == 40 })
    }

    /// A GIF of 100,000 one-pixel frames: over the default frame limit (10,000), refused before a
    /// frame is decoded, with no more memory than a copy of the file; with the limit raised, it plays frame by frame.
    @Test func aHundredThousandOnePixelFramesAreRefusedByDefault() throws {
        let gif = GIFBytes.tinyFrames(100_000)
        let probe = AllocationProbe()
        let (frames, error) = AllocationProbe.$current.withValue(probe) { AnimationFiles.decodeUntilError(gif) }
        #expect(frames.isEmpty && error?.code == .dimensionsTooLarge, "\(String(describing: error))")
        #expect(probe.totalBytes < gif.count + 1 << 20, "a copy of the file at most, no frames: \(probe.count) buffers")
        let raised = try AnimatedImageDecoder(gif, options: DecodingOptions(maximumFrames: 100_000))
        #expect(raised.info.frameCount == 100_000)
        var seen = 0
        while let next = try raised.nextFrame(), seen < 1000 {
            #expect(next.index == seen)
            seen += 1
        }
        #expect(seen == 1000)
    }

    /// A 10 × 10 GIF whose second frame declares 65535 × 65535 pixels (with data for almost
    /// none): over the animation pixel limit. With the limit raised, a frame far larger than the
    /// canvas and one wholly outside it decode without a crash, what lies outside not shown.
    @Test func gifFramesLargerThanOrOutsideTheCanvas() throws {
        let red: GIFBytes.Color = (255, 0, 0), blue: GIFBytes.Color = (0, 0, 255)
        func control(disposal: UInt8, delay: Int) -> [UInt8] { [0x21, 0xF9, 4, disposal << 2] + GIFBytes.u16(delay) + [0, 0] }
        func gif(_ second: (width: Int, height: Int, left: Int, top: Int)) -> [UInt8] {
            GIFBytes.header(width: 10, height: 10, palette: [red, blue])
                + control(disposal: 1, delay: 0)
                + GIFBytes.image(left: 0, top: 0, width: 10, height: 10, indices: Array(repeating: 0, count: 100), minimumCodeSize: 2)
                + control(disposal: 2, delay: 65535)
                + GIFBytes.image(
                    left: second.left, top: second.top, width: second.width, height: second.height,
                    indices: Array(repeating: 1, count: 40), minimumCodeSize: 2)
                + GIFBytes.trailer
        }
        let huge = AnimationFiles.decodeUntilError(gif((65535, 65535, 0, 0)))
        #expect(huge.frames.isEmpty && huge.error?.code == .dimensionsTooLarge)
        // 40 pixels of data for a 2000 × 2000 frame: the first row's 40 pixels, then damage.
        let large = AnimationFiles.decodeUntilError(gif((2000, 2000, 3, 3)))
        #expect(large.frames.count == 2, "\(String(describing: large.error))")
        if large.frames.count == 2 {
            #expect(large.frames[1].durationMs == 655_350)
            #expect(large.frames[1].image.width == 10 && large.frames[1].image.height == 10)
        }
        let outside = try AnimationFiles.decode(gif((4, 10, 200, 300)))
        #expect(outside.frames.count == 2)
        #expect(PixelComparison.identical(outside.frames[0].image, outside.frames[1].image))
    }

    /// APNGs written chunk by chunk from a PNG's image data: damaged animation chunks show the
    /// default image, as browsers do.
    @Test(arguments: ["sequence loop", "frame outside", "huge frame", "missing frame", "bad CRC"])
    func damagedAPNGShowsItsDefaultImage(_ damage: String) throws {
        let bytes = try TestData.bytes("png/astronaut-rgb.png")
        let chunks = PNGFiles.chunks(bytes)
        let ihdr = try #require(chunks.first { $0.type == "IHDR" }).data
        let idat = chunks.filter { $0.type == "IDAT" }.flatMap(\.data)
        let width = Array(ihdr[0..<4]), height = Array(ihdr[4..<8])
        func frameControl(_ sequence: Int, size: [UInt8]? = nil, x: Int = 0, y: Int = 0) -> [UInt8] {
            PNGFiles.chunk(
                "fcTL",
                PNGFiles.bigEndian32(sequence) + (size ?? width + height) + PNGFiles.bigEndian32(x) + PNGFiles.bigEndian32(y) + [
                    0, 1, 0, 10, 0, 0
                ])
        }
        var frames = 3
        var body = frameControl(0) + PNGFiles.chunk("IDAT", idat)
        switch damage {
        case "sequence loop":
            body +=
                frameControl(1) + PNGFiles.chunk("fdAT", PNGFiles.bigEndian32(2) + idat)
                + frameControl(1) + PNGFiles.chunk("fdAT", PNGFiles.bigEndian32(2) + idat)
        case "frame outside":
            body += frameControl(1, x: 200) + PNGFiles.chunk("fdAT", PNGFiles.bigEndian32(2) + idat)
            frames = 2
        case "huge frame":
            body +=
                frameControl(1, size: PNGFiles.bigEndian32(65535) + PNGFiles.bigEndian32(65535))
                + PNGFiles.chunk("fdAT", PNGFiles.bigEndian32(2) + idat)
            frames = 2
        case "missing frame":
            body += frameControl(1) + PNGFiles.chunk("fdAT", PNGFiles.bigEndian32(2) + idat)
        default:
            var fdAT = PNGFiles.chunk("fdAT", PNGFiles.bigEndian32(2) + idat)
            fdAT[fdAT.count - 1] ^= 0xFF
            body += frameControl(1) + fdAT
            frames = 2
        }
        let apng =
            PNGFiles.signature + PNGFiles.chunk("IHDR", ihdr)
            + PNGFiles.chunk("acTL", PNGFiles.bigEndian32(frames) + PNGFiles.bigEndian32(0)) + body + PNGFiles.chunk("IEND", [])
        let decoder = try AnimatedImageDecoder(apng)
        var decoded: [AnimationFrame] = []
        try decoder.forEachFrame { decoded.append($0) }
        #expect(decoder.info.frameCount == 1 && decoded.count == 1)
        #expect(decoder.warnings.contains { $0.contains("default image") }, "\(decoder.warnings)")
        #expect(PixelComparison.identical(decoded[0].image, try ImageDecoder.decode(bytes)))
    }

    /// A hand-made APNG whose two frames are the picture, the second with a delay of 0/0 (a
    /// hundredth of nothing: 0 ms) and the first 65535/1 seconds: as stored, no crash.
    @Test func absurdAPNGDelays() throws {
        let bytes = try TestData.bytes("png/astronaut-rgb.png")
        let chunks = PNGFiles.chunks(bytes)
        let ihdr = try #require(chunks.first { $0.type == "IHDR" }).data
        let idat = chunks.filter { $0.type == "IDAT" }.flatMap(\.data)
        func frameControl(_ sequence: Int, delay: [UInt8]) -> [UInt8] {
            PNGFiles.chunk(
                "fcTL", PNGFiles.bigEndian32(sequence) + ihdr[0..<8] + PNGFiles.bigEndian32(0) + PNGFiles.bigEndian32(0) + delay + [0, 0])
        }
        let apng =
            PNGFiles.signature + PNGFiles.chunk("IHDR", ihdr) + PNGFiles.chunk("acTL", PNGFiles.bigEndian32(2) + PNGFiles.bigEndian32(7))
            + frameControl(0, delay: [0xFF, 0xFF, 0, 1]) + PNGFiles.chunk("IDAT", idat)
            + frameControl(1, delay: [0, 0, 0, 0]) + PNGFiles.chunk("fdAT", PNGFiles.bigEndian32(2) + idat) + PNGFiles.chunk("IEND", [])
        let (info, frames) = try AnimationFiles.decode(apng)
        #expect(info.durations == [65_535_000, 0] && info.loopCount == 7 && frames.count == 2)
    }
}
