import FICTestSupport
import Foundation
import ImageCodec
import Testing
@testable import FastImageCache

/// The player, with the time given by the test: which frame it shows when, when it says the
/// next change comes, that it honours the loop count, waits for frames still being stored
/// without a blank, and does its lookups only when the frame changes.
@Suite struct AnimationPlayerTests {
    /// The test animation: four solid frames (B, G, R as bytes) shown 100, 200, 300 and 400 ms,
    /// so one play is 1000 ms and the frames start at 0, 100, 300 and 600 ms.
    static let colours: [(b: UInt8, g: UInt8, r: UInt8)] = [(0, 0, 255), (0, 255, 0), (255, 0, 0), (0, 255, 255)]
    static let red = colours[0], lime = colours[1], blue = colours[2], yellow = colours[3]
    static let names = ["red", "lime", "blue", "yellow"]
    static let delays = [100, 200, 300, 400]

    /// Writes the 16×16 GIF of the four frames with ImageMagick, played `plays` times (0: forever).
    static func makeGIF(in folder: String, plays: Int) throws -> [UInt8] {
        let path = folder + "/frames-\(plays).gif"
        var arguments: [String] = ["-size", "16x16"]
        for (name, delay) in zip(names, delays) { arguments += ["-delay", "\(delay / 10)", "xc:\(name)"] }
        arguments += ["-loop", "\(plays)", path]
        try ExternalTools.run("/usr/bin/convert", arguments)
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// A format of family "anim" keeping `max` images (an animation of 4 frames needs 20: its
    /// frames and record within a quarter of the table).
    static func format(max: Int = 40) throws -> ImageFormat {
        try ImageFormat(
            name: "anim", family: "anim", size: CGSize(width: 24, height: 20), scale: 1, style: .bgra32Premultiplied, maximumCount: max)
    }

    /// The centre pixel of `image` (B, G, R).
    static func centre(_ image: CachedImage?) -> (b: UInt8, g: UInt8, r: UInt8)? {
        guard let image else { return nil }
        return image.withUnsafeBytes { p in
            let o = (image.height / 2) * image.bytesPerRow + (image.width / 2) * 4
            return (p[o], p[o + 1], p[o + 2])
        }
    }

    /// A cache in `dir` with the animation stored (every frame) for entity "frames".
    static func stored(in dir: TemporaryDirectory, plays: Int, max: Int = 40) throws -> (ImageCache, Photo) {
        let bytes = try makeGIF(in: dir.path, plays: plays)
        let cache = try ImageCache(directory: dir.path, namespace: "p", formats: [try format(max: max)])
        let entity = Photo(entityID: "frames")
        try cache.storeImages(from: .encoded(bytes), for: entity)
        return (cache, entity)
    }

    @Test func showsEachFrameForItsDurationAndSaysWhenTheNextBegins() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanup() }
        let (cache, entity) = try Self.stored(in: dir, plays: 0)
        defer { cache.close() }
        var player = AnimationPlayer(cache: cache, entity: entity, format: "anim")
        // (time, colour, next change), from the durations given to ImageMagick; played forever.
        let expected: [(Int, (b: UInt8, g: UInt8, r: UInt8), Int)] = [
            (0, Self.red, 100), (99, Self.red, 100), (100, Self.lime, 300), (299, Self.lime, 300),
            (300, Self.blue, 600), (599, Self.blue, 600), (600, Self.yellow, 1000), (999, Self.yellow, 1000),
            (1000, Self.red, 1100), (1150, Self.lime, 1300), (10_450, Self.blue, 10_600), (3_600_000_000, Self.red, 3_600_000_100)
        ]
        for (ms, colour, next) in expected {
            let shown = Self.centre(player.image(at: .milliseconds(ms)))
            #expect(shown.map { $0 == colour } == true, "at \(ms) ms: \(String(describing: shown)), expected \(colour)")
            #expect(player.nextChange == .milliseconds(next), "at \(ms) ms")
        }
        #expect(player.isAnimated && player.animation?.loopCount == 0)
        // Time going back (played again from the start) shows the first frame again.
        #expect(Self.centre(player.image(at: .milliseconds(10))).map { $0 == Self.red } == true)
        // Instants of a clock: the time between them is what counts.
        let start = ContinuousClock.Instant.now
        #expect(Self.centre(player.image(at: start + .milliseconds(2350), startedAt: start)).map { $0 == Self.blue } == true)
        // An entity known by its identifier only plays the same.
        var byID = AnimationPlayer(cache: cache, entityID: "frames", format: "anim")
        #expect(Self.centre(byID.image(at: .milliseconds(650))).map { $0 == Self.yellow } == true)
    }

    @Test func looksUpAFrameOnlyWhenItChanges() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanup() }
        let (cache, entity) = try Self.stored(in: dir, plays: 0)
        defer { cache.close() }
        var player = AnimationPlayer(cache: cache, entity: entity, format: "anim")
        var addresses: [UnsafeRawPointer] = []
        // A display refreshing 60 times a second through one play (0 … 999 ms).
        for tick in 0..<60 {
            let image = player.image(at: .nanoseconds(Int64(tick) * 16_666_667))
            #expect(image != nil, "tick \(tick)")
            if let image, addresses.last != image.baseAddress { addresses.append(image.baseAddress) }
        }
        #expect(addresses.count == 4, "each frame shown once, in turn")
        // The record and frame 0 at the start, then one lookup for each of the three other frames.
        #expect(player.lookups == 5)
        // The next play reads the record again (its frame count may have grown), then frame 0.
        _ = player.image(at: .milliseconds(1000))
        #expect(player.lookups == 7)
        _ = player.image(at: .milliseconds(1001))
        _ = player.image(at: .milliseconds(1099))
        #expect(player.lookups == 7)
    }

    @Test func honoursTheLoopCount() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanup() }
        let (cache, entity) = try Self.stored(in: dir, plays: 2)
        defer { cache.close() }
        var player = AnimationPlayer(cache: cache, entity: entity, format: "anim")
        // Played twice: 0 … 1999 ms, then the last frame stays.
        let expected: [(Int, (b: UInt8, g: UInt8, r: UInt8), Int?)] = [
            (50, Self.red, 100), (999, Self.yellow, 1000), (1000, Self.red, 1100), (1350, Self.blue, 1600),
            (1599, Self.blue, 1600), (1600, Self.yellow, nil), (1999, Self.yellow, nil), (2000, Self.yellow, nil),
            (60_000, Self.yellow, nil)
        ]
        for (ms, colour, next) in expected {
            let shown = Self.centre(player.image(at: .milliseconds(ms)))
            #expect(shown.map { $0 == colour } == true, "at \(ms) ms: \(String(describing: shown)), expected \(colour)")
            #expect(player.nextChange == next.map { .milliseconds($0) }, "at \(ms) ms")
        }
        #expect(player.animation?.loopCount == 2)
    }

    @Test func waitsForTheFirstFrameThenPlays() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanup() }
        let bytes = try Self.makeGIF(in: dir.path, plays: 0)
        let cache = try ImageCache(directory: dir.path, namespace: "p", formats: [try Self.format()])
        defer { cache.close() }
        let entity = Photo(entityID: "frames")
        var player = AnimationPlayer(cache: cache, entity: entity, format: "anim")
        #expect(player.image(at: .zero) == nil)
        #expect(player.nextChange == .milliseconds(50), "it asks to be asked again")
        #expect(player.image(at: .milliseconds(10)) == nil)
        #expect(player.lookups == 2, "the record is read on each call while nothing is stored")
        try cache.storeImages(from: .encoded(bytes), for: entity)
        #expect(Self.centre(player.image(at: .milliseconds(20))).map { $0 == Self.red } == true)
        #expect(Self.centre(player.image(at: .milliseconds(150))).map { $0 == Self.lime } == true)
    }

    /// Frames stored one at a time (as the family policy stores them after the first, while the
    /// animation may already be playing): the record says four frames, only some are there.
    @Test func showsTheLastFrameShownWhileTheNextIsNotStored() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanup() }
        let bytes = try Self.makeGIF(in: dir.path, plays: 0)
        let cache = try ImageCache(directory: dir.path, namespace: "p", formats: [try Self.format()])
        defer { cache.close() }
        let table = try #require(cache.tables["anim"])
        let decoder = try AnimatedImageDecoder(bytes)
        var frames: [DecodedImage] = []
        while let frame = try decoder.nextFrame() { frames.append(frame.image) }
        #expect(frames.count == 4)
        let entity = Photo(entityID: "frames")
        _ = try table.draw(entity, from: frames[0], frame: 0)
        try table.storeRecord(StoredAnimation(durations: Self.delays, loopCount: 0), for: entity)
        _ = try table.draw(entity, from: frames[1], frame: 1)

        var player = AnimationPlayer(cache: cache, entity: entity, format: "anim")
        #expect(Self.centre(player.image(at: .milliseconds(0))).map { $0 == Self.red } == true)
        #expect(Self.centre(player.image(at: .milliseconds(150))).map { $0 == Self.lime } == true)
        // Frame 2 is due at 300 ms but not stored: frame 1 stays, and is looked up again 50 ms later.
        #expect(Self.centre(player.image(at: .milliseconds(350))).map { $0 == Self.lime } == true)
        #expect(player.nextChange == .milliseconds(400))
        let lookups = player.lookups
        #expect(Self.centre(player.image(at: .milliseconds(380))).map { $0 == Self.lime } == true)
        #expect(player.lookups == lookups, "no lookup before the retry")
        _ = try table.draw(entity, from: frames[2], frame: 2)
        #expect(Self.centre(player.image(at: .milliseconds(400))).map { $0 == Self.blue } == true)
        #expect(player.nextChange == .milliseconds(600))

        // A player that starts while frame 3 is due and missing shows frame 0, never nothing.
        var late = AnimationPlayer(cache: cache, entity: entity, format: "anim")
        #expect(Self.centre(late.image(at: .milliseconds(650))).map { $0 == Self.red } == true)
        #expect(late.frameIndex == 0)
        _ = try table.draw(entity, from: frames[3], frame: 3)
        #expect(Self.centre(late.image(at: .milliseconds(700))).map { $0 == Self.yellow } == true)
    }

    /// An animation over a quarter of its table plays from a ring; stored without a provider,
    /// nothing can decode its ring, so the player shows frame 0 and keeps looking at the retry
    /// interval (the ring's own playing is AnimationRingTests').
    @Test func anAnimationWhoseRingCannotDecodeShowsItsFirstFrame() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanup() }
        // A quarter of 16 slots is 4: four frames and a record do not fit, so it plays from a ring.
        let (cache, entity) = try Self.stored(in: dir, plays: 0, max: 16)
        defer { cache.close() }
        var player = AnimationPlayer(cache: cache, entity: entity, format: "anim")
        // (time, next change): the next frame's start, or 50 ms on when the frame due is missing.
        for (ms, next) in [(0, 100), (150, 200), (350, 400), (650, 700), (1000, 1100), (99_999, 100_000)] {
            #expect(Self.centre(player.image(at: .milliseconds(ms))).map { $0 == Self.red } == true, "at \(ms) ms")
            #expect(player.frameIndex == 0)
            #expect(player.nextChange == .milliseconds(next), "at \(ms) ms")
        }
        #expect(player.isAnimated && player.animation?.playsFromRing == true && player.animation?.frameCount == 4)
    }

    @Test func aStillImageNeverChanges() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanup() }
        let cache = try ImageCache(directory: dir.path, namespace: "p", formats: [try Self.format()])
        defer { cache.close() }
        let entity = Photo(entityID: "coffee")
        try cache.storeImages(from: .bytes(try ImageBytes(contentsOf: coffee.path)), for: entity)
        let stored = try #require(cache.cachedImage(for: entity, format: "anim"))
        var player = AnimationPlayer(cache: cache, entity: entity, format: "anim")
        for ms in [0, 100, 1000, 3_600_000] {
            #expect(player.image(at: .milliseconds(ms))?.baseAddress == stored.baseAddress, "at \(ms) ms")
            #expect(player.nextChange == nil)
        }
        #expect(player.animation == StoredAnimation(durations: [0], loopCount: 1))
        #expect(player.lookups == 2, "the record and the image, once")
    }
}
