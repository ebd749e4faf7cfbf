import FICTestSupport
import Foundation
import Testing
@testable import FastImageCache

/// Animations over a quarter of their format's table play from rings: the record has the real
/// frames, the frames come from a few decoded ahead in order, equal to Pillow's, the ring starts
/// its decode again when playing loops around, and the rings' memory and number stay bounded.
@Suite struct AnimationRingTests {
    /// Ten frames: five photos, then the same five mirrored, so that no two frames are alike.
    static let photos = ["astronaut.jpg", "chelsea.jpg", "coffee.jpg", "hubble.jpg", "rocket.jpg"]
    /// Delays in hundredths of a second, as a GIF stores them.
    static let delays = [10, 20, 5, 0, 30, 10, 10, 40, 15, 25]
    static let (width, height) = (24, 16)

    /// A 24×16 GIF of ten frames made by ImageMagick, looping forever.
    static func makeGIF(in folder: String) throws -> (URL, [UInt8]) {
        var arguments: [String] = []
        for (n, delay) in delays.enumerated() {
            let still = try PillowFrames.still(testFile("photos/" + photos[n % 5]).path, width, height, in: folder)
            arguments += ["-delay", "\(delay)"] + (n < 5 ? [still] : ["(", still, "-flop", ")"])
        }
        let path = folder + "/ten.gif"
        try ExternalTools.run("/usr/bin/convert", arguments + ["-loop", "0", path])
        return (URL(fileURLWithPath: path), try ExternalTools.bytes(atPath: path))
    }

    /// "ring": a quarter of 16 slots holds no ten frames; "whole": a quarter of 100 does. Both
    /// are the GIF's own size, so that drawing is a copy and Pillow's frames are the reference
    /// as they are.
    static func formats(ringOnly: Bool = false) throws -> [ImageFormat] {
        let size = CGSize(width: width, height: height)
        let ring = try ImageFormat(name: "ring", family: "anim", size: size, scale: 1, style: .bgra32Premultiplied, maximumCount: 16)
        let whole = try ImageFormat(name: "whole", family: "anim", size: size, scale: 1, style: .bgra32Premultiplied, maximumCount: 100)
        return ringOnly ? [ring] : [ring, whole]
    }

    /// Frame `n` of `entity` as a player asks for it: every look is a lookup (a miss moves the
    /// ring on), until the ring has it. `everyLook` is called after each look.
    static func frame(_ n: Int, of entity: some ImageEntity, in cache: ImageCache, format: String = "ring", everyLook: () -> Void = {})
        async throws -> CachedImage
    {
        var found: CachedImage?
        try await waitUntil("frame \(n) is in the ring") {
            found = cache.cachedImage(for: entity, format: format, frame: n)
            everyLook()
            return found != nil
        }
        return try #require(found)
    }

    @Test func aTooLargeAnimationPlaysItsRealFramesFromARing() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanup() }
        let (gif, bytes) = try Self.makeGIF(in: dir.path)
        let pillow = try PillowFrames(bytes, in: dir.path)
        try #require(pillow.frames.count == 10 && pillow.width == Self.width && pillow.height == Self.height)
        let entity = Photo(entityID: "ten", url: gif)
        let provider = CountingProvider()
        let cache = try ImageCache(directory: dir.path, namespace: "a", formats: try Self.formats(), provider: provider)
        defer { cache.close() }

        let first = try await cache.image(for: entity, format: "ring")
        #expect(pillow.differingPixels(first, frame: 0, tolerance: 0) == 0)
        try await waitUntil("the whole format's frames are stored") { cache.requestStatistics.isIdle }
        #expect(
            cache.animation(for: entity, format: "ring")
                == StoredAnimation(durations: Self.delays.map { $0 * 10 }, loopCount: 0, playsFromRing: true))
        #expect(cache.animation(for: entity, format: "whole") == StoredAnimation(durations: Self.delays.map { $0 * 10 }, loopCount: 0))
        // The ring format holds the first frame and the record; the other all ten frames and the record.
        #expect(cache.statistics.formats.map(\.count) == [2, 11])
        #expect(cache.statistics.formats.map(\.animationsTooLarge) == [1, 0])
        #expect(cache.statistics.formats.map(\.ringAnimations) == [1, 0])
        #expect(provider.calls == 1)

        // Three frames a ring: frame n can only be drawn by a step whose window (n − 2 … n + 2)
        // leaves out frame 1 for n from 4 to 7, so frame 1 is gone before playing loops around,
        // however late the steps run (with six, a late step could keep it, and no restart be needed).
        cache.rings.limits = AnimationRings.Limits(framesPerRing: 3, rings: 16, idleTime: .seconds(600))
        // The first look makes the ring, which has nothing yet and asks the provider again.
        #expect(cache.cachedImage(for: entity, format: "ring", frame: 1) == nil)
        let limit = cache.rings.limits.framesPerRing
        var mostAlive = 0
        let look = { mostAlive = max(mostAlive, cache.rings.framesAlive.withLockedValue { $0 }) }
        for n in 1..<10 {
            let frame = try await Self.frame(n, of: entity, in: cache, everyLook: look)
            #expect(pillow.differingPixels(frame, frame: n, tolerance: 0) == 0, "frame \(n) differs from Pillow's")
            let stored = try #require(cache.cachedImage(for: entity, format: "whole", frame: n))
            #expect(frame.withUnsafeBytes { Array($0) } == stored.withUnsafeBytes { Array($0) }, "frame \(n) differs from the one stored")
            #expect(frame.baseAddress != stored.baseAddress)
            // Tools that know only the identifier are served from the ring too.
            #expect(cache.cachedImage(entityID: "ten", format: "ring", frame: n)?.baseAddress == frame.baseAddress)
            // No decode has looped around yet.
            if n == 4 { #expect(cache.statistics.formats[0].ringRestarts == 0) }
        }
        #expect(cache.cachedImage(for: entity, format: "ring", frame: 10) == nil)
        // Played around: frame 1 again, from a decode started again.
        let again = try await Self.frame(1, of: entity, in: cache, everyLook: look)
        #expect(pillow.differingPixels(again, frame: 1, tolerance: 0) == 0)
        let figures = cache.statistics.formats[0]
        #expect(figures.ringRestarts >= 1)
        #expect(figures.ringFrameDecodes >= 12)  // ten, then frames 0 and 1 again
        // The frames alive are the ring's, and the one this test held when the ring had moved on.
        #expect(mostAlive <= limit + 1, "\(mostAlive) ring frames alive at once")
        #expect(mostAlive >= 2)
        #expect(provider.calls == 2)
        #expect(cache.statistics.sourceDecodes == 1)
        #expect(cache.statistics.animationRings == 1)
    }

    /// Rings together stay within their memory budget: with room for one ring's source, two
    /// canvases and frames (computed here from the GIF's size), playing a second animation drops
    /// the first ring, and the one being played stays.
    @Test func ringsStayWithinTheirMemoryBudget() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanup() }
        let (gif, bytes) = try Self.makeGIF(in: dir.path)
        let cache = try ImageCache(
            directory: dir.path, namespace: "a", formats: try Self.formats(ringOnly: true), provider: CountingProvider())
        defer { cache.close() }
        let frameBytes = 64 * Self.height * ((Self.width * 4 + 63) / 64)  // rows padded to 64 bytes
        let oneRing = bytes.count + 2 * 4 * Self.width * Self.height + 3 * frameBytes
        cache.rings.limits = AnimationRings.Limits(framesPerRing: 3, rings: 16, idleTime: .seconds(600), memoryBytes: oneRing * 3 / 2)
        let entities = (1...2).map { Photo(entityID: "ten-\($0)", url: gif) }
        for entity in entities { _ = try await cache.image(for: entity, format: "ring") }
        _ = try await Self.frame(1, of: entities[0], in: cache)
        #expect(cache.rings.count == 1)
        _ = try await Self.frame(1, of: entities[1], in: cache)
        try await waitUntil("the first ring is dropped") { cache.rings.count == 1 }
        #expect(cache.cachedImage(for: entities[1], format: "ring", frame: 1) != nil, "the ring played last stays")
    }

    /// At most `rings` rings, the least recently asked going for a new one; a ring not asked for
    /// the idle time goes at the next ring lookup (an injected clock); frames alive are those
    /// of the rings left.
    @Test func ringsAreFewAndDroppedWhenIdle() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanup() }
        let (gif, _) = try Self.makeGIF(in: dir.path)
        let cache = try ImageCache(
            directory: dir.path, namespace: "a", formats: try Self.formats(ringOnly: true), provider: CountingProvider())
        defer { cache.close() }
        cache.rings.limits = AnimationRings.Limits(framesPerRing: 3, rings: 2, idleTime: .seconds(10))
        let now = Locked(ContinuousClock.now)
        cache.rings.useClock { now.withLockedValue { $0 } }
        let entities = (1...3).map { Photo(entityID: "ten-\($0)", url: gif) }
        for entity in entities { _ = try await cache.image(for: entity, format: "ring") }
        for entity in entities {
            now.withLockedValue { $0 += .seconds(1) }
            _ = try await Self.frame(1, of: entity, in: cache)
        }
        #expect(cache.rings.count == 2)
        // The two rings left fill up to three frames each; the first ring's are gone.
        try await waitUntil("the rings hold six frames") { cache.rings.framesAlive.withLockedValue { $0 } == 6 }
        #expect(cache.statistics.animationRings == 2)

        // Not asked for more than 10 s: the other rings go when the last one is asked.
        now.withLockedValue { $0 += .seconds(11) }
        #expect(cache.cachedImage(for: entities[2], format: "ring", frame: 1) != nil)
        #expect(cache.rings.count == 1)
        try await waitUntil("only the last ring's frames are alive") { cache.rings.framesAlive.withLockedValue { $0 } == 3 }
        // Deleting the entity drops its ring.
        cache.deleteImages(for: entities[2])
        #expect(cache.rings.count == 0)
        #expect(cache.rings.framesAlive.withLockedValue { $0 } == 0)
        #expect(cache.cachedImage(for: entities[2], format: "ring", frame: 1) == nil)
    }

    /// A format whose image is too small for even the record of a long animation (13 frames:
    /// 72 bytes, in a 1×1 image's 64) keeps the first frame as a still image.
    @Test func aFormatTooSmallForTheRecordKeepsTheFirstFrame() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanup() }
        let path = dir.path + "/thirteen.gif"
        let colours = ["red", "lime", "blue", "yellow", "white", "black", "cyan", "magenta", "gray", "orange", "purple", "navy", "teal"]
        try ExternalTools.run("/usr/bin/convert", ["-size", "4x4"] + colours.flatMap { ["-delay", "5", "xc:\($0)"] } + [path])
        let formats = [
            try ImageFormat(
                name: "dot", family: "anim", size: CGSize(width: 1, height: 1), scale: 1, style: .bgra32Premultiplied, maximumCount: 16)
        ]
        let cache = try ImageCache(directory: dir.path, namespace: "a", formats: formats, provider: CountingProvider())
        defer { cache.close() }
        let entity = Photo(entityID: "thirteen", url: URL(fileURLWithPath: path))
        let first = try await cache.image(for: entity, format: "dot")
        #expect(first.withUnsafeBytes { Array($0.prefix(4)) } == [0, 0, 255, 255])  // red, as BGRA
        #expect(cache.animation(for: entity, format: "dot") == StoredAnimation(durations: [0], loopCount: 1))
        #expect(cache.statistics.formats.map(\.count) == [1])
        #expect(cache.statistics.formats.map(\.animationsTooLarge) == [1])
        #expect(cache.statistics.formats.map(\.ringAnimations) == [0])
        #expect(cache.cachedImage(for: entity, format: "dot", frame: 1) == nil)
        #expect(cache.rings.count == 0)
    }

    /// Version 1 records (no flags) are read as they were; version 2 keeps the ring flag and the
    /// "being stored" flag; a record with a flag this version does not know is refused.
    @Test func animationRecordsOfBothVersionsAreRead() {
        func bytes(_ values: [UInt32]) -> [UInt8] {
            values.flatMap { v in withUnsafeBytes(of: v.littleEndian) { Array($0) } } + [0, 0, 0, 0]
        }
        let v1 = bytes([0x4143_4946, 1, 3, 2, 50, 20, 100])
        #expect(v1.withUnsafeBytes { AnimationRecord.read($0) } == StoredAnimation(durations: [50, 20, 100], loopCount: 2))
        let ring = StoredAnimation(durations: [50, 20, 100], loopCount: 0, playsFromRing: true)
        var written = [UInt8](repeating: 0, count: 64)
        written.withUnsafeMutableBytes { AnimationRecord.write(ring, to: $0) }
        #expect(written.withUnsafeBytes { AnimationRecord.read($0) } == ring)
        #expect(Array(written[4..<8]) == [2, 0, 0, 0])
        let unknownFlag = bytes([0x4143_4946, 2, 1, 0, 4, 50])
        #expect(unknownFlag.withUnsafeBytes { AnimationRecord.read($0) } == nil)
        // Bit 1: the frames are being stored.
        var storing = [UInt8](repeating: 0, count: 64)
        storing.withUnsafeMutableBytes { AnimationRecord.write(ring, storing: true, to: $0) }
        #expect(Array(storing[16..<20]) == [3, 0, 0, 0])
        #expect(storing.withUnsafeBytes { AnimationRecord.readWithState($0) }.map { $0.animation == ring && $0.storing } == true)
        #expect(written.withUnsafeBytes { AnimationRecord.readWithState($0) }?.storing == false)
        let tooManyFrames = bytes([0x4143_4946, 2, 40, 0, 1, 50])
        #expect(tooManyFrames.withUnsafeBytes { AnimationRecord.read($0) } == nil)
        let version3 = bytes([0x4143_4946, 3, 1, 0, 0, 50])
        #expect(version3.withUnsafeBytes { AnimationRecord.read($0) } == nil)
    }
}
