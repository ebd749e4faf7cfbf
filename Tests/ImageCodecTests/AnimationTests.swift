import FICTestSupport
import Foundation
@testable import ImageCodec
import Testing

/// Every frame of GIFs, animated WebPs and APNGs made at test time, compared with Pillow's
/// composited frames: each disposal and blend mode, transparency, sub-rectangle frames, local
/// palettes, interlace, variable delays and loop counts.
@Suite(.serialized) struct AnimationTests {
    /// Compares every frame, duration and the loop count with Pillow's; `skipFirst` drops
    /// Pillow's first frame (an APNG default image that is not part of the animation).
    /// WebP durations are checked against the encoder's arguments instead: Pillow derives them from
    /// libwebp's timestamps.
    func expectMatchesPillow(
        _ bytes: [UInt8], in folder: String, tolerance: Int, loopCount: Int, skipFirst: Bool = false,
        durations: Bool = true, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let (info, frames) = try AnimationFiles.decode(bytes)
        var reference = try AnimationFiles.reference(bytes, in: folder)
        if skipFirst {
            reference.frames.removeFirst()
            reference.durations.removeFirst()
        }
        #expect(info.frameCount == reference.frames.count, sourceLocation: sourceLocation)
        #expect(frames.count == reference.frames.count, sourceLocation: sourceLocation)
        #expect(info.loopCount == loopCount, sourceLocation: sourceLocation)
        // Pillow's "loop" is a GIF's stored repeat count; AnimationInfo counts plays.
        let pillowLoop = info.format == .gif ? reference.loop.map { $0 == 0 ? 0 : $0 + 1 } ?? 1 : reference.loop ?? 1
        #expect(info.loopCount == pillowLoop, sourceLocation: sourceLocation)
        for (frame, expected) in zip(frames, reference.frames) {
            #expect(frame.image.width == expected.width && frame.image.height == expected.height, sourceLocation: sourceLocation)
            let differing = AnimationFiles.differingPixels(frame.image, expected, tolerance: tolerance)
            #expect(differing == 0, "frame \(frame.index): \(differing) pixels differ from Pillow's", sourceLocation: sourceLocation)
        }
        for (frame, expected) in zip(frames, reference.durations) where durations {
            #expect(
                abs(Double(frame.durationMs) - expected) <= 1, "frame \(frame.index): \(frame.durationMs) ms, Pillow \(expected)",
                sourceLocation: sourceLocation)
        }
    }

    /// Full-canvas frames of three photos (local palettes), variable delays (one of zero), played
    /// twice (ImageMagick's -loop counts plays: it stores one repeat), stored in order and interlaced.
    @Test(arguments: [false, true]) func gifFullFrames(interlaced: Bool) throws {
        let folder = try AnimationFiles.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let gif = try AnimationCorpus.gifFullFrames(interlaced: interlaced, in: folder)
        try expectMatchesPillow(gif, in: folder, tolerance: 0, loopCount: 2)
        #expect(try AnimationFiles.decode(gif).info.durations == [100, 250, 0])
    }

    /// With a target size, each frame comes out shrunk to cover it: by a whole factor of 4 it is
    /// Pillow's frame averaged over 4 × 4 blocks (computed here), and for a target between factors
    /// it is the smallest size of the canvas's aspect ratio that covers the target.
    @Test func framesShrunkToCoverTheTarget() throws {
        let folder = try AnimationFiles.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let a = try AnimationFiles.still("chelsea.jpg", 64, 48, in: folder), b = try AnimationFiles.still("coffee.jpg", 64, 48, in: folder)
        let gif = try ExternalTools.convert(["-delay", "10", a, "-delay", "20", b, "-loop", "0"], in: folder, name: "two.gif")
        let reference = try AnimationFiles.reference(gif, in: folder).frames
        let (_, frames) = try AnimationFiles.decode(gif, options: DecodingOptions(targetSize: PixelSize(width: 16, height: 12)))
        try #require(frames.count == 2)
        for (frame, full) in zip(frames, reference) {
            #expect(frame.image.width == 16 && frame.image.height == 12)
            let expected = DecodedImage(
                width: 16, height: 12, pixelFormat: .bgra32Premultiplied, source: full.source, isOrientationApplied: true)
            for y in 0..<12 {
                let out = (expected.baseAddress + y * expected.bytesPerRow).assumingMemoryBound(to: UInt8.self)
                for x in 0..<16 {
                    for c in 0..<4 {
                        var sum = 0
                        for dy in 0..<4 {
                            let row = (full.baseAddress + (4 * y + dy) * full.bytesPerRow).assumingMemoryBound(to: UInt8.self)
                            for dx in 0..<4 { sum += Int(row[4 * (4 * x + dx) + c]) }
                        }
                        out[4 * x + c] = UInt8((sum + 8) / 16)
                    }
                }
            }
            let differing = AnimationFiles.differingPixels(frame.image, expected, tolerance: 1)
            #expect(differing == 0, "frame \(frame.index): \(differing) pixels differ from Pillow's frame averaged over 4 × 4")
        }
        let between = try AnimationFiles.decode(gif, options: DecodingOptions(targetSize: PixelSize(width: 20, height: 10))).frames
        #expect(between.map { [$0.image.width, $0.image.height] } == [[20, 15], [20, 15]])
        let larger = try AnimationFiles.decode(gif, options: DecodingOptions(targetSize: PixelSize(width: 100, height: 100))).frames
        #expect(larger.map { [$0.image.width, $0.image.height] } == [[64, 48], [64, 48]])
    }

    /// Sub-rectangle frames with transparency over a first frame with transparency, disposed to
    /// nothing, to the background and to the previous frame, looping forever. (The first frame
    /// has a transparent index so that Pillow, too, disposes to transparent: without one it fills
    /// with the background colour, which browsers ignore.)
    @Test func gifDisposalModes() throws {
        let folder = try AnimationFiles.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let gif = try AnimationCorpus.gifDisposal(in: folder)
        try expectMatchesPillow(gif, in: folder, tolerance: 0, loopCount: 0)
    }

    /// img2webp: lossless and lossy frames (with an alpha plane), variable durations, two loops;
    /// gif2webp of the disposal GIF: sub-rectangles, blending and disposal to background.
    @Test func webp() throws {
        let folder = try AnimationFiles.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let webp = try AnimationCorpus.webpMixed(in: folder)
        try expectMatchesPillow(webp, in: folder, tolerance: 1, loopCount: 2, durations: false)
        #expect(try AnimationFiles.decode(webp).info.durations == [80, 120, 40])

        let converted = try AnimationCorpus.webpFromGIF(in: folder)
        try expectMatchesPillow(converted, in: folder, tolerance: 1, loopCount: 0, durations: false)
        #expect(try AnimationFiles.decode(converted).info.durations == [200, 200, 200])
    }

    /// Pillow's APNG writer: every dispose and blend operation, frames it crops to the
    /// rectangle that changed, transparency, and a default image that is or is not a frame.
    @Test(arguments: [false, true]) func apng(defaultImage: Bool) throws {
        let folder = try AnimationFiles.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let png = try AnimationCorpus.apng(defaultImage: defaultImage, in: folder)
        try expectMatchesPillow(png, in: folder, tolerance: 2, loopCount: 4, skipFirst: defaultImage)
    }

    /// APNG_BLEND_OP_OVER is Porter–Duff "over" on premultiplied pixels, as browsers composite
    /// (Pillow pastes through the alpha as a mask instead, which squares partial alpha).
    @Test func apngBlendOverIsPorterDuffOver() {
        // 50% red over opaque blue: half and half, opaque. 30/255 grey over transparent: itself.
        #expect(AnimationCanvas.over(0x8080_0000, 0xFF00_00FF) == 0xFF80_007F)
        #expect(AnimationCanvas.over(0x1E1E_1E1E, 0) == 0x1E1E_1E1E)
        #expect(AnimationCanvas.over(0, 0xFF12_3456) == 0xFF12_3456)
    }

    /// A still image is an animation of one frame that plays once, its picture the still decode.
    @Test func aStillImageIsOneFrame() throws {
        for file in ["photos/chelsea.jpg", "png/astronaut-rgba.png"] {
            let bytes = try TestData.bytes(file)
            let (info, frames) = try AnimationFiles.decode(bytes)
            #expect(info.frameCount == 1 && info.loopCount == 1 && frames.count == 1)
            #expect(PixelComparison.identical(frames[0].image, try ImageDecoder.decode(bytes)))
        }
    }
}
