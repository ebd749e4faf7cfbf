import FICTestSupport
import Foundation
import Testing
@testable import FastImageCache
@testable import ImageTable

/// Animations stored frame by frame: every frame drawn into every format of the family, the
/// record persisted beside them, the quarter-of-a-table bound, and the timeline's rules.
@Suite struct AnimationStoreTests {
    /// The frames of the test GIF: solid colours (B, G, R as bytes) and delays in milliseconds.
    static let colours: [(b: UInt8, g: UInt8, r: UInt8)] = [(0, 0, 255), (0, 255, 0), (255, 0, 0), (0, 255, 255)]
    static let names = ["red", "lime", "blue", "yellow"]
    /// GIF delays are hundredths of a second: 5, 2, 0, 12.
    static let delays = [50, 20, 0, 120]

    /// Writes a 16×16 GIF of four solid frames with ImageMagick, played 3 times: ImageMagick's
    /// `-loop` counts plays and stores a NETSCAPE repeat count of 2 (it repeats twice after its
    /// first play), which this checks in the file's bytes.
    static func makeGIF(in folder: String) throws -> URL {
        let path = folder + "/colours.gif"
        var arguments: [String] = ["-size", "16x16"]
        for (name, delay) in zip(names, delays) { arguments += ["-delay", "\(delay / 10)", "xc:\(name)"] }
        arguments += ["-loop", "3", path]
        try ExternalTools.run("/usr/bin/convert", arguments)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let netscape = Array("NETSCAPE2.0".utf8)
        let at = (0...(bytes.count - netscape.count)).first { Array(bytes[$0..<$0 + netscape.count]) == netscape }
        #expect(at.map { Int(bytes[$0 + 13]) | Int(bytes[$0 + 14]) << 8 } == 2)
        return URL(fileURLWithPath: path)
    }

    static func formats(max: Int = 40) throws -> [ImageFormat] {
        [
            try ImageFormat(
                name: "small", family: "anim", size: CGSize(width: 8, height: 8), scale: 1, style: .bgra32Premultiplied, maximumCount: max),
            try ImageFormat(
                name: "large", family: "anim", size: CGSize(width: 24, height: 20), scale: 1, style: .bgra32Premultiplied, maximumCount: max
            )
        ]
    }

    /// The centre pixel of `image` (B, G, R).
    static func centre(_ image: CachedImage) -> (b: UInt8, g: UInt8, r: UInt8) {
        image.withUnsafeBytes { p in
            let o = (image.height / 2) * image.bytesPerRow + (image.width / 2) * 4
            return (p[o], p[o + 1], p[o + 2])
        }
    }

    /// Every frame of `entity` in each format is stored, in its colour, and the record matches.
    static func expectStored(_ cache: ImageCache, _ entity: some ImageEntity, formats: [String]) {
        for format in formats {
            let animation = cache.animation(for: entity, format: format)
            #expect(animation == StoredAnimation(durations: delays, loopCount: 3), "format \(format)")
            #expect(animation?.frameCount == 4)
            for (n, colour) in colours.enumerated() {
                guard let frame = cache.cachedImage(for: entity, format: format, frame: n) else {
                    Issue.record("frame \(n) of \(format) is not stored")
                    continue
                }
                let c = centre(frame)
                #expect(c == colour, "frame \(n) of \(format): \(c), expected \(colour)")
            }
            #expect(cache.cachedImage(for: entity, format: format, frame: 4) == nil)
            #expect(cache.cachedImage(for: entity, format: format, frame: -1) == nil)
        }
    }

    @Test func everyFrameIsStoredInEveryFormatOfTheFamily() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanup() }
        let gif = try Self.makeGIF(in: dir.path)
        let entity = Photo(entityID: "colours", url: gif)
        let provider = CountingProvider()
        do {
            let cache = try ImageCache(directory: dir.path, namespace: "a", formats: try Self.formats(), provider: provider)
            let first = try await cache.image(for: entity, format: "small")
            #expect(Self.centre(first) == Self.colours[0])
            // The same job stores the other frames after the first was delivered.
            try await waitUntil("every frame is stored") {
                ["small", "large"].allSatisfy { cache.cachedImage(for: entity, format: $0, frame: 3) != nil }
            }
            Self.expectStored(cache, entity, formats: ["small", "large"])
            #expect(cache.statistics.sourceDecodes == 1)
            #expect(provider.calls == 1)
            // Four frames and the record per format; the listing shows the entity once.
            #expect(cache.statistics.formats.map(\.count) == [5, 5])
            #expect(try cache.entries(format: "small").map(\.label) == ["colours"])
            #expect(cache.statistics.formats.map(\.animationsTooLarge) == [0, 0])
            cache.close()
        }
        // A new process knows the animation and serves every frame with no fetch and no decode.
        let again = CountingProvider()
        let reopened = try ImageCache(directory: dir.path, namespace: "a", formats: try Self.formats(), provider: again)
        defer { reopened.close() }
        Self.expectStored(reopened, entity, formats: ["small", "large"])
        _ = try await reopened.image(for: entity, format: "large")
        #expect(reopened.statistics.sourceDecodes == 0)
        #expect(again.calls == 0)
        // Another source version is another image: nothing is served for it.
        var newer = entity
        newer.sourceImageID = "v2"
        #expect(reopened.animation(for: newer, format: "small") == nil)
        #expect(reopened.cachedImage(for: newer, format: "small", frame: 2) == nil)
        // Deleting the entity deletes its frames and its record.
        reopened.deleteImages(for: entity)
        #expect(reopened.statistics.formats.map(\.count) == [0, 0])
    }

    @Test func storeImagesStoresEveryFrameAtOnce() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanup() }
        let gif = try Self.makeGIF(in: dir.path)
        let entity = Photo(entityID: "colours")
        let cache = try ImageCache(directory: dir.path, namespace: "a", formats: try Self.formats())
        defer { cache.close() }
        let images = try cache.storeImages(from: .encoded([UInt8](try Data(contentsOf: gif))), for: entity, family: "anim")
        #expect(Set(images.images.keys) == ["small", "large"])
        #expect(images.decoded && images.warnings.isEmpty)
        Self.expectStored(cache, entity, formats: ["small", "large"])
        #expect(cache.statistics.sourceDecodes == 1)
    }

    @Test func anAnimationOverAQuarterOfTheTablePlaysFromARing() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanup() }
        let gif = try Self.makeGIF(in: dir.path)
        let entity = Photo(entityID: "colours", url: gif)
        // A quarter of 16 is 4 slots: four frames and a record do not fit; a quarter of 40 does.
        let formats = [
            try ImageFormat(
                name: "small", family: "anim", size: CGSize(width: 8, height: 8), scale: 1, style: .bgra32Premultiplied, maximumCount: 16),
            try ImageFormat(
                name: "large", family: "anim", size: CGSize(width: 24, height: 20), scale: 1, style: .bgra32Premultiplied, maximumCount: 40)
        ]
        let cache = try ImageCache(directory: dir.path, namespace: "a", formats: formats, provider: CountingProvider())
        defer { cache.close() }
        let first = try await cache.image(for: entity, format: "small")
        #expect(Self.centre(first) == Self.colours[0])
        try await waitUntil("every frame of the large format is stored") {
            cache.cachedImage(for: entity, format: "large", frame: 3) != nil
        }
        #expect(cache.animation(for: entity, format: "small") == StoredAnimation(durations: Self.delays, loopCount: 3, playsFromRing: true))
        // The first frame and the record; the other frames come from a ring.
        #expect(cache.statistics.formats.map(\.count) == [2, 5])
        #expect(cache.statistics.formats.map(\.animationsTooLarge) == [1, 0])
        #expect(cache.statistics.formats.map(\.ringAnimations) == [1, 0])
        #expect(cache.cachedImage(for: entity, format: "small", frame: 1) == nil)
        for (n, colour) in Self.colours.enumerated().dropFirst() {
            let frame = try await AnimationRingTests.frame(n, of: entity, in: cache, format: "small")
            #expect(Self.centre(frame) == colour, "frame \(n)")
        }
        Self.expectStored(cache, entity, formats: ["large"])
    }

    @Test func aStillImageIsAnAnimationOfOneFrame() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanup() }
        let cache = try ImageCache(directory: dir.path, namespace: "a", formats: try Self.formats(), provider: CountingProvider())
        defer { cache.close() }
        let entity = Photo(entityID: "coffee", url: coffee)
        #expect(cache.animation(for: entity, format: "small") == nil)
        let image = try await cache.image(for: entity, format: "small")
        #expect(cache.animation(for: entity, format: "small") == StoredAnimation(durations: [0], loopCount: 1))
        #expect(cache.cachedImage(for: entity, format: "small", frame: 0)?.baseAddress == image.baseAddress)
        #expect(cache.cachedImage(for: entity, format: "small", frame: 1) == nil)
        #expect(cache.statistics.formats.map(\.count) == [1, 1])
    }

    @Test func frameKeysAreDerivedApartFromEntityKeys() {
        let entity = TableKey("colours")
        #expect(AnimationKeys.frame(0, of: entity) == entity)
        let derived = (1..<50).map { AnimationKeys.frame($0, of: entity) } + [AnimationKeys.record(of: entity)]
        #expect(Set(derived).count == derived.count)
        #expect(!derived.contains(entity))
        #expect(!derived.contains(AnimationKeys.frame(1, of: TableKey("other"))))
        // Names that spell a frame out are ordinary entities.
        #expect(!derived.contains(TableKey("colours#1")))
    }

    // MARK: The timeline

    /// Stored 50, 20, 0, 120 ms are shown 50, 20, 100, 120 ms: one play is 290 ms, and frames
    /// start at 0, 50, 70 and 170.
    @Test func timelineMapsElapsedTimeToFrames() {
        let t = AnimationTimeline(durations: [50, 20, 0, 120], loopCount: 3)
        #expect(t.frameDurations == [50, 20, 100, 120])
        #expect(t.playDuration == 290)
        let expected: [(Int, Int)] = [
            (-5, 0), (0, 0), (49, 0), (50, 1), (69, 1), (70, 2), (169, 2), (170, 3), (289, 3),
            (290, 0), (340, 1), (579, 3), (580, 0), (750, 3), (869, 3),
            (870, 3), (871, 3), (10_000, 3)  // after the third play, the last frame stays
        ]
        for (ms, frame) in expected {
            #expect(t.frame(atMilliseconds: ms) == frame, "at \(ms) ms")
        }
        #expect(!t.isFinished(atMilliseconds: 869))
        #expect(t.isFinished(atMilliseconds: 870))
        #expect(t.frame(at: .milliseconds(170)) == 3)
        #expect(t.frame(at: .microseconds(169_999)) == 2)
        #expect(t.frame(at: .seconds(1)) == 3)
    }

    @Test func timelineLoopsForeverWhenTheCountIsZero() {
        let t = AnimationTimeline(durations: [50, 20, 0, 120], loopCount: 0)
        #expect(t.frame(atMilliseconds: 870) == 0)
        #expect(t.frame(atMilliseconds: 290 * 1000 + 50) == 1)
        #expect(t.frame(at: .seconds(1)) == 2)  // 1000 = 3 × 290 + 130
        #expect(!t.isFinished(atMilliseconds: Int.max))
        #expect(t.frame(at: .seconds(Int64.max)) == t.frame(atMilliseconds: Int.max))
    }

    @Test func tinyDelaysAreShownFor100Milliseconds() {
        #expect(AnimationTimeline.displayDuration(0) == 100)
        #expect(AnimationTimeline.displayDuration(10) == 100)
        #expect(AnimationTimeline.displayDuration(11) == 11)
        #expect(AnimationTimeline.displayDuration(-3) == 100)
        let once = AnimationTimeline(durations: [10, 11], loopCount: 1)
        #expect(once.frame(atMilliseconds: 99) == 0)
        #expect(once.frame(atMilliseconds: 100) == 1)
        #expect(once.frame(atMilliseconds: 110) == 1)  // played once: the last frame stays
        #expect(once.isFinished(atMilliseconds: 111))
        let still = AnimationTimeline(durations: [0], loopCount: 1)
        #expect([0, 99, 100, 1_000_000].map { still.frame(atMilliseconds: $0) } == [0, 0, 0, 0])
    }
}
