import FICTestSupport
import Foundation
import Testing
@testable import FastImageCache

/// An animation's frames after the first are a job of their own on the slow lane: one frame per
/// CPU step, behind every fast-lane decode, with the decoder going on where it stopped; reset
/// and close stop it cleanly. Threads are held at gates, never slept on.
@Suite struct AnimationSlowLaneTests {
    /// A photo entity whose drawings first call `onDraw` with their number (1 for the first),
    /// then draw as any entity does.
    struct HookedPhoto: ImageEntity {
        final class Hooks: Sendable {
            let draws = Locked(0)
            let onDraw: @Sendable (Int) -> Void
            init(_ onDraw: @escaping @Sendable (Int) -> Void) { self.onDraw = onDraw }
        }
        var entityID: String
        var url: URL
        var hooks: Hooks
        var sourceImageID: String { "v1" }
        func sourceImageURL(for format: ImageFormat) -> URL? { url }

        func draw(_ source: DecodedImage, format: ImageFormat, canvas: ImageCanvas) throws {
            hooks.onDraw(
                hooks.draws.withLockedValue { n in
                    n += 1
                    return n
                })
            canvas.draw(source, in: CGRect(origin: .zero, size: format.size), contentMode: .aspectFill)
        }
    }

    /// One format: each frame is one drawing, so drawing *n* is frame *n − 1*.
    static func format() throws -> [ImageFormat] {
        [
            try ImageFormat(
                name: "anim", family: "anim", size: CGSize(width: 16, height: 16), scale: 1, style: .bgra32Premultiplied, maximumCount: 40)
        ]
    }

    /// All CPU threads but one are held; the animation's first frame is drawn on the last one,
    /// then its second frame (held at a gate until another entity's request waits for the CPU).
    /// That request must be served before the animation's third frame is drawn: with the frames
    /// stored by the same job as the first, it waits behind the whole animation (here, a third
    /// frame held until the request is served: it never is).
    @Test func theRemainingFramesNeverHoldUpTheFastLane() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanup() }
        let gif = try AnimationStoreTests.makeGIF(in: dir.path)
        let held = ThreadGate(), secondFrame = ThreadGate(), thirdFrame = ThreadGate()
        defer {
            held.open()
            secondFrame.open()
            thirdFrame.open()
        }
        let hooks = HookedPhoto.Hooks { n in
            if n == 2 { secondFrame.wait() }
            if n == 3 { thirdFrame.wait() }
        }
        let animated = HookedPhoto(entityID: "colours", url: gif, hooks: hooks)
        let still = Photo(entityID: "coffee", url: coffee)
        let provider = CountingProvider()
        let cache = try ImageCache(directory: dir.path, namespace: "a", formats: try Self.format(), provider: provider)
        defer { cache.close() }
        let threads = cache.requestLanes.cpuWorkers
        try await cache.holdCPUThreads(threads - 1, at: held)

        let first = try await cache.image(for: animated, format: "anim")
        #expect(AnimationStoreTests.centre(first) == AnimationStoreTests.colours[0])
        try await waitUntil("the second frame is being drawn") { secondFrame.arrived == 1 }
        #expect(cache.requestStatistics.storingFrames == 1)
        let request = Task { try await cache.image(for: still, format: "anim") }
        try await waitUntil("the other request's source waits for the CPU") { cache.requestStatistics.awaitingDecode == 1 }
        secondFrame.open()

        // Served after the second frame's step, before the third frame is drawn.
        try await waitUntil("the other entity is stored while the animation's frames are pending") {
            cache.containsImage(for: still, format: "anim")
        }
        _ = try await request.value
        #expect(cache.cachedImage(for: animated, format: "anim", frame: 1) != nil)
        #expect(cache.cachedImage(for: animated, format: "anim", frame: 2) == nil)
        #expect(cache.requestStatistics.storingFrames == 1)
        #expect(!cache.requestStatistics.isIdle)
        // Another request for the animation meanwhile is its first frame: no second fetch or decode.
        let again = try await cache.image(for: animated, format: "anim")
        #expect(again.baseAddress == first.baseAddress)

        thirdFrame.open()
        held.open()
        try await waitUntil("every frame is stored") { cache.requestStatistics.isIdle }
        AnimationStoreTests.expectStored(cache, animated, formats: ["anim"])
        #expect(provider.calls == 2)
        #expect(cache.statistics.sourceDecodes == 2)
        #expect(hooks.draws.withLockedValue { $0 } == 4)
        #expect(thirdFrame.timedOut == 0)
    }

    /// Every CPU thread is held once the first frame is stored, so the other frames wait in
    /// the CPU queue; then the cache is reset: they are not stored, and the lanes end idle.
    @Test func resetStopsTheRemainingFrames() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanup() }
        let (cache, animated, held) = try await Self.animationWaitingForItsFrames(in: dir)
        defer {
            held.open()
            cache.close()
        }
        try cache.reset()
        held.open()
        try await waitUntil("the frames' job has ended") { cache.requestStatistics.isIdle }
        #expect(cache.statistics.formats.map(\.count) == [0])
        #expect(cache.animation(for: animated, format: "anim") == nil)
        #expect(cache.cachedImage(for: animated, format: "anim", frame: 1) == nil)
    }

    /// The same, closed instead: the animation, first frame and record included, is dropped, so
    /// that the next process stores it whole instead of finding fewer frames than its record says.
    @Test func closingAbandonsTheRemainingFrames() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanup() }
        let animated: HookedPhoto
        do {
            let (cache, entity, held) = try await Self.animationWaitingForItsFrames(in: dir)
            animated = entity
            #expect(cache.statistics.formats.map(\.count) == [2])  // first frame and record
            cache.close()
            #expect(cache.requestStatistics.storingFrames == 0)
            held.open()
        }
        let provider = CountingProvider()
        let reopened = try ImageCache(directory: dir.path, namespace: "a", formats: try Self.format(), provider: provider)
        defer { reopened.close() }
        #expect(reopened.statistics.formats.map(\.count) == [0])
        #expect(reopened.animation(for: animated, format: "anim") == nil)
        _ = try await reopened.image(for: animated, format: "anim")
        try await waitUntil("every frame is stored") { reopened.requestStatistics.isIdle }
        AnimationStoreTests.expectStored(reopened, animated, formats: ["anim"])
        #expect(provider.calls == 1)
    }

    /// A cache whose animation has its first frame stored and its other frames queued behind
    /// every CPU thread, held at the returned gate: the first frame's drawing holds the last free
    /// thread too, so that it goes to the gate before the frames' first step.
    static func animationWaitingForItsFrames(in dir: TemporaryDirectory) async throws -> (ImageCache, HookedPhoto, ThreadGate) {
        let gif = try AnimationStoreTests.makeGIF(in: dir.path)
        let held = ThreadGate()
        let box = Locked<ImageCache?>(nil)
        let hooks = HookedPhoto.Hooks { n in
            // Queued while the first frame's job runs: taken before the frames' step (lower priority).
            if n == 1, let cache = box.withLockedValue({ $0 }) {
                cache.lanes.queueCPUStep(at: .veryHigh) {
                    held.wait()
                } cancelled: {
                }
            }
        }
        let animated = HookedPhoto(entityID: "colours", url: gif, hooks: hooks)
        let cache = try ImageCache(directory: dir.path, namespace: "a", formats: try format(), provider: CountingProvider())
        box.withLockedValue { $0 = cache }
        try await cache.holdCPUThreads(cache.requestLanes.cpuWorkers - 1, at: held)
        _ = try await cache.image(for: animated, format: "anim")
        try await waitUntil("every CPU thread is held") { held.arrived == cache.requestLanes.cpuWorkers }
        #expect(cache.requestStatistics.storingFrames == 1)
        #expect(cache.cachedImage(for: animated, format: "anim", frame: 1) == nil)
        #expect(hooks.draws.withLockedValue { $0 } == 1)
        #expect(held.timedOut == 0, "a held CPU thread gave up waiting, so the frames went on before the test's step")
        return (cache, animated, held)
    }
}
