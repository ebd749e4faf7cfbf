import FICTestSupport
import Foundation
import Testing
@testable import FastImageCache

/// Animated WebP and APNG through the cache: made at test time from the bundled photos, stored
/// by the family policy from a request, every stored frame compared with Pillow's composited
/// frame. The format is the animation's own size, so drawing is a copy and Pillow's frames are
/// the reference as they are: what is compared is the decode, the composition and the storing,
/// within the tolerances of the decoders' own tests against Pillow (the drawing adds no
/// difference of its own).
@Suite struct AnimationFormatsTests {
    static let (width, height) = (32, 24)

    static func format() throws -> [ImageFormat] {
        [
            try ImageFormat(
                name: "anim", family: "anim", size: CGSize(width: width, height: height), scale: 1, style: .bgra32Premultiplied,
                maximumCount: 100)
        ]
    }

    static func still(_ photo: String, roundAlpha: Bool = false, in folder: String) throws -> String {
        try PillowFrames.still(testFile("photos/" + photo).path, width, height, roundAlpha: roundAlpha, in: folder)
    }

    /// Stores the animation at `path` through a request and compares every frame with Pillow's
    /// within `tolerance`; returns what the cache says of the animation.
    static func storeAndCompare(
        _ path: String, in dir: TemporaryDirectory, tolerance: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> (StoredAnimation, PillowFrames) {
        let pillow = try PillowFrames(try ExternalTools.bytes(atPath: path), in: dir.path)
        let cache = try ImageCache(directory: dir.path, namespace: "a", formats: try format(), provider: CountingProvider())
        defer { cache.close() }
        let entity = Photo(entityID: URL(fileURLWithPath: path).lastPathComponent, url: URL(fileURLWithPath: path))
        _ = try await cache.image(for: entity, format: "anim")
        try await waitUntil("every frame is stored") { cache.requestStatistics.isIdle }
        let animation = try #require(cache.animation(for: entity, format: "anim"), sourceLocation: sourceLocation)
        #expect(animation.frameCount == pillow.frames.count, sourceLocation: sourceLocation)
        #expect(!animation.playsFromRing, sourceLocation: sourceLocation)
        #expect(cache.statistics.formats[0].count == pillow.frames.count + 1, sourceLocation: sourceLocation)
        #expect(cache.statistics.sourceDecodes == 1, sourceLocation: sourceLocation)
        for n in 0..<pillow.frames.count {
            guard let frame = cache.cachedImage(for: entity, format: "anim", frame: n) else {
                Issue.record("frame \(n) is not stored", sourceLocation: sourceLocation)
                continue
            }
            let differing = pillow.differingPixels(frame, frame: n, tolerance: tolerance)
            #expect(differing == 0, "frame \(n): \(differing) pixels differ from Pillow's", sourceLocation: sourceLocation)
        }
        return (animation, pillow)
    }

    /// img2webp: lossless and lossy frames, two with transparency outside an ellipse, variable
    /// durations, two plays. Tolerance 1: the lossy frame's alpha plane has partly transparent
    /// pixels, which Pillow returns unpremultiplied and this test premultiplies again (the
    /// decoder's own test against Pillow allows the same).
    @Test func animatedWebP() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanup() }
        let a = try Self.still("chelsea.jpg", in: dir.path), b = try Self.still("coffee.jpg", roundAlpha: true, in: dir.path)
        let c = try Self.still("rocket.jpg", roundAlpha: true, in: dir.path)
        let path = dir.path + "/mixed.webp"
        try ExternalTools.run(
            try ExternalTools.tool("img2webp", package: "webp"),
            ["-loop", "2", "-d", "80", "-lossless", a, "-d", "120", "-lossy", "-q", "60", b, "-d", "40", "-lossless", c, "-o", path])
        let (animation, _) = try await Self.storeAndCompare(path, in: dir, tolerance: 1)
        #expect(animation == StoredAnimation(durations: [80, 120, 40], loopCount: 2))
    }

    /// Pillow's APNG writer: frames it crops to the rectangle that changed, every dispose and
    /// blend operation, transparency, four plays. Tolerance 2, as the decoder's own test against
    /// Pillow: Pillow blends through the alpha as a mask, browsers (and the package) composite.
    @Test func animatedPNG() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanup() }
        let a = try Self.still("chelsea.jpg", in: dir.path)
        let b = try PillowFrames.still(testFile("photos/coffee.jpg").path, 12, 10, roundAlpha: true, in: dir.path)
        let c = try PillowFrames.still(testFile("photos/rocket.jpg").path, 14, 8, roundAlpha: true, in: dir.path)
        let path = dir.path + "/animation.png"
        try PillowFrames.run(
            """
            import sys
            from PIL import Image
            a, b, c = (Image.open(p).convert("RGBA") for p in sys.argv[1:4])
            frames = []
            for i, (small, x, y) in enumerate([(b, 2, 2), (c, 15, 10), (b, 18, 1), (c, 1, 15), (b, 10, 7)]):
                frame = Image.new("RGBA", a.size, (0, 0, 0, 0)) if i % 2 else a.copy()
                frame.alpha_composite(small, (x, y))
                frames.append(frame)
            images = frames + [a.copy()]
            images[0].save(sys.argv[4], save_all=True, append_images=images[1:], default_image=False,
                           duration=[100, 40, 0, 1000 / 3, 70, 55], loop=4,
                           disposal=[0, 1, 2, 0, 2, 1], blend=[0, 1, 0, 1, 1, 0])
            """, [a, b, c, path])
        let (animation, pillow) = try await Self.storeAndCompare(path, in: dir, tolerance: 2)
        #expect(animation.frameCount == 6)
        #expect(animation.loopCount == 4)
        #expect(pillow.loop == 4)
        for (stored, expected) in zip(animation.durations, pillow.durations) {
            #expect(abs(Double(stored) - expected) <= 1, "\(stored) ms, Pillow \(expected) ms")
        }
    }
}
