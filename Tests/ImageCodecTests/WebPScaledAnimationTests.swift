import FICTestSupport
import Foundation
@testable import ImageCodec
import Testing

/// Animated WebPs decoded for a target smaller than their canvas are composited at the reduced
/// size (``WebPScaledFrames``): every frame is compared with Pillow's full-size frame averaged
/// down to the same size, the independent reference.
@Suite(.serialized) struct WebPScaledAnimationTests {
    /// Decodes `bytes` for `target` and compares each frame with Pillow's, area-averaged to the
    /// decoded size: at least `minimumPSNR` dB each, and `width × height`, `denominator` times
    /// smaller than the canvas.
    func expectMatchesShrunkPillow(
        _ bytes: [UInt8], in folder: String, target: PixelSize, width: Int, height: Int, denominator: Int,
        minimumPSNR: Double, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let reference = try AnimationFiles.reference(bytes, in: folder).frames
        let (info, frames) = try AnimationFiles.decode(bytes, options: DecodingOptions(targetSize: target))
        #expect(frames.count == reference.count && info.frameCount == reference.count, sourceLocation: sourceLocation)
        for (frame, full) in zip(frames, reference) {
            #expect(
                frame.image.width == width && frame.image.height == height,
                "frame \(frame.index): \(frame.image.width)×\(frame.image.height)", sourceLocation: sourceLocation)
            #expect(frame.image.scaleDenominator == denominator, sourceLocation: sourceLocation)
            guard frame.image.width == width, frame.image.height == height else { continue }
            let psnr = PixelComparison.psnr(frame.image, try ScaleTests.areaAverage(full, width: width, height: height))
            print("PSNR \(target) \(frame.index) \(psnr)");
            #expect(
                psnr >= minimumPSNR, "frame \(frame.index): \(psnr) dB against Pillow's frame averaged down", sourceLocation: sourceLocation
            )
        }
    }

    /// img2webp: a lossless frame, a lossy frame with an alpha plane (blended), and a lossless frame
    /// with transparency, shrunk by 4.
    @Test func fullCanvasFramesShrunkByFour() throws {
        let folder = try AnimationFiles.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let a = try AnimationFiles.still("chelsea.jpg", 256, 192, in: folder)
        let b = try AnimationFiles.still("coffee.jpg", 256, 192, roundAlpha: true, in: folder)
        let c = try AnimationFiles.still("rocket.jpg", 256, 192, roundAlpha: true, in: folder)
        let out = folder + "/mixed.webp"
        try ExternalTools.run(
            try ExternalTools.tool("img2webp", package: "webp"),
            ["-loop", "0", "-d", "80", "-lossless", a, "-d", "120", "-lossy", "-q", "80", b, "-d", "40", "-lossless", c, "-o", out])
        let webp = try ExternalTools.bytes(atPath: out)
        try expectMatchesShrunkPillow(
            webp, in: folder, target: PixelSize(width: 64, height: 48), width: 64, height: 48, denominator: 4, minimumPSNR: 40)
        // A target between two sizes: the smallest size of the canvas's shape that covers it.
        try expectMatchesShrunkPillow(
            webp, in: folder, target: PixelSize(width: 50, height: 20), width: 50, height: 38, denominator: 6, minimumPSNR: 40)
    }

    /// Frames smaller than the canvas, assembled by webpmux with each frame's blending and
    /// disposal given: lossless and lossy (with an alpha plane) ellipses blended over the canvas or
    /// replacing it, one disposed to the background. Their rectangles are scaled with the canvas,
    /// on whole pixels (offsets that are multiples of the factor) and between them.
    @Test(arguments: [(8, 8), (10, 6)]) func subRectangleFramesBlendedAndDisposed(offset: (x: Int, y: Int)) throws {
        let folder = try AnimationFiles.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cwebp = try ExternalTools.tool("cwebp", package: "webp"), webpmux = try ExternalTools.tool("webpmux", package: "webp")
        func encode(_ png: String, lossy: Bool) throws -> String {
            let out = png + (lossy ? ".lossy" : ".lossless") + ".webp"
            try ExternalTools.run(cwebp, (lossy ? ["-q", "85"] : ["-lossless"]) + ["-quiet", png, "-o", out])
            return out
        }
        let background = try encode(try AnimationFiles.still("astronaut.jpg", 160, 120, in: folder), lossy: false)
        let s1 = try encode(try AnimationFiles.still("coffee.jpg", 60, 48, roundAlpha: true, in: folder), lossy: false)
        let s2 = try encode(try AnimationFiles.still("chelsea.jpg", 52, 40, roundAlpha: true, in: folder), lossy: true)
        let output = folder + "/assembled.webp"
        // -frame FILE +duration+x+y+dispose(1: to the background)+b (blend) or -b (replace).
        try ExternalTools.run(
            webpmux,
            [
                "-frame", background, "+200+0+0+0-b",
                "-frame", s1, "+200+\(offset.x)+\(offset.y)+1+b",
                "-frame", s2, "+200+\(8 * offset.x)+\(6 * offset.y)+0+b",
                "-frame", s1, "+200+\(4 * offset.x)+\(4 * offset.y)+0-b",
                "-frame", s2, "+200+\(2 * offset.x)+\(8 * offset.y)+0+b",
                "-loop", "0", "-bgcolor", "0,0,0,0", "-o", output
            ])
        let webp = try ExternalTools.bytes(atPath: output)
        try expectMatchesShrunkPillow(
            webp, in: folder, target: PixelSize(width: 40, height: 30), width: 40, height: 30, denominator: 4, minimumPSNR: 38)
        // A scale that is not a whole factor: no frame but the first falls on pixel edges.
        try expectMatchesShrunkPillow(
            webp, in: folder, target: PixelSize(width: 50, height: 20), width: 50, height: 38, denominator: 4, minimumPSNR: 38)
    }

    /// A target as large as the canvas, or larger: libwebp's own compositor at full size, as before.
    @Test func aTargetAtLeastTheCanvasIsFullSize() throws {
        let folder = try AnimationFiles.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let a = try AnimationFiles.still("chelsea.jpg", 64, 48, in: folder), b = try AnimationFiles.still("coffee.jpg", 64, 48, in: folder)
        let out = folder + "/two.webp"
        try ExternalTools.run(try ExternalTools.tool("img2webp", package: "webp"), ["-lossless", a, b, "-o", out])
        let webp = try ExternalTools.bytes(atPath: out)
        let full = try AnimationFiles.decode(webp).frames
        let large = try AnimationFiles.decode(webp, options: DecodingOptions(targetSize: PixelSize(width: 64, height: 100))).frames
        #expect(large.map { [$0.image.width, $0.image.height, $0.image.scaleDenominator] } == [[64, 48, 1], [64, 48, 1]])
        for (a, b) in zip(full, large) { #expect(AnimationFiles.differingPixels(a.image, b.image, tolerance: 0) == 0) }
    }
}
