import FICTestSupport
import Foundation
import Testing
@testable import FastImageCache

/// The lanes: a parallel fast lane, a serial slow lane that waits for the fast one, priorities,
/// promotion and demotion of queued and running jobs.
@Suite struct LaneTests {
    /// The provider's gate stays closed until the prefetch has returned: a prefetch that waited
    /// for its fetch would never return, and the time limit would fail the test.
    @Test(.timeLimit(.minutes(10)))
    func prefetchReturnsAtOnceAndStoresTheFamilyInTheBackground() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let provider = GatedProvider()
        let cache = try laneCache(dir, provider: provider)
        cache.prefetch(photo(1), format: "thumb")
        try await waitUntil("the prefetch starts") { provider.started.count == 1 }
        #expect(cache.requestStatistics.fetchingSlow == 1, "a prefetch runs in the slow lane")
        #expect(!cache.containsImage(for: photo(1), format: "thumb"))
        provider.releaseAll()
        try await waitUntil("the prefetch is stored") { cache.containsImage(for: photo(1), format: "thumb") }
        try await waitUntil("the lanes are idle") { cache.requestStatistics.isIdle }
        #expect(cache.containsImage(for: photo(1), format: "medium"), "the rest of the family is drawn too")
        cache.prefetch(photo(1), format: "thumb")
        #expect(cache.requestStatistics.isIdle, "prefetching a stored image does nothing")
        #expect(provider.started.count == 1)
    }

    @Test func theSlowLaneFetchesOneAtATime() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let provider = GatedProvider()
        let cache = try laneCache(dir, provider: provider)
        cache.prefetch((0..<5).map(photo), format: "thumb")
        try await waitUntil("the first prefetch starts") { provider.started.count == 1 }
        let stats = cache.requestStatistics
        #expect(stats.fetchingSlow == 1 && stats.queuedSlow == 4, "the lane started one and queued the rest")
        provider.release(photoURL(0))
        try await waitUntil("the second prefetch starts") { provider.started.count == 2 }
        #expect(provider.started == [photoURL(0), photoURL(1)], "in the order asked")
        #expect(provider.maximumRunning == 1, "the second started once the first had ended")
        provider.releaseAll()
        try await waitUntil("every prefetch is stored") { (0..<5).allSatisfy { cache.containsImage(for: photo($0), format: "thumb") } }
        #expect(provider.maximumRunning == 1)
    }

    @Test func theSlowLaneWaitsWhileTheFastLaneHasWork() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let provider = GatedProvider()
        let cache = try laneCache(dir, provider: provider)
        cache.prefetch([photo(0), photo(1), photo(2)], format: "thumb")
        try await waitUntil("a prefetch runs") { provider.started.count == 1 }
        let visible = (10..<13).map { i in Task { try await cache.image(for: photo(i), format: "thumb") } }
        try await waitUntil("the fast lane runs in parallel beside the running prefetch") { provider.started.count == 4 }
        #expect(cache.requestStatistics.fetchingFast == 3)
        provider.release(photoURL(0))
        // The released prefetch is fetched, stored and done: every point at which the slow lane
        // could have started the next prefetch has passed.
        try await waitUntil("the released prefetch is done") {
            let stats = cache.requestStatistics
            return cache.containsImage(for: photo(0), format: "thumb") && stats.awaitingDecode == 0 && stats.decoding == 0
        }
        let stats = cache.requestStatistics
        #expect(stats.fetchingSlow == 0 && stats.queuedSlow == 2, "no prefetch starts while the fast lane has work")
        #expect(provider.started.count == 4)
        for i in 10..<13 { provider.release(photoURL(i)) }
        for task in visible { _ = try await task.value }
        try await waitUntil("the slow lane resumes") { provider.started.count == 5 }
        #expect(provider.started.last == photoURL(1))
        provider.releaseAll()
        try await waitUntil("everything is stored") { cache.requestStatistics.isIdle }
    }

    @Test func theFastLaneRunsItsWidthInParallel() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let provider = GatedProvider()
        let cache = try laneCache(dir, provider: provider, lanes: RequestLanes(fastFetches: 3))
        let tasks = (0..<6).map { i in Task { try await cache.image(for: photo(i), format: "thumb") } }
        try await waitUntil("three fetches run") { provider.running == 3 }
        try await waitUntil("all six requests are in") { cache.requestStatistics.waiters == 6 }
        let stats = cache.requestStatistics
        #expect(stats.fetchingFast == 3 && stats.queuedFast == 3, "three run, three wait")
        #expect(provider.started.count == 3)
        provider.releaseAll()
        for task in tasks { #expect(try await task.value.width == 80) }
        #expect(provider.maximumRunning == 3)
    }

    @Test func higherPrioritiesGoFirst() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let provider = GatedProvider()
        let cache = try laneCache(dir, provider: provider, lanes: RequestLanes(fastFetches: 1))
        let first = Task { try await cache.image(for: photo(0), format: "thumb", priority: .normal) }
        try await waitUntil("the first fetch runs") { provider.started.count == 1 }
        let normal = Task { try await cache.image(for: photo(1), format: "thumb", priority: .normal) }
        try await waitUntil("it is queued") { cache.requestStatistics.queuedFast == 1 }
        let urgent = Task { try await cache.image(for: photo(2), format: "thumb", priority: .veryHigh) }
        try await waitUntil("it is queued") { cache.requestStatistics.queuedFast == 2 }
        provider.release(photoURL(0))
        try await waitUntil("the next fetch starts") { provider.started.count == 2 }
        #expect(provider.started[1] == photoURL(2), "the very urgent request overtakes the normal one")
        provider.releaseAll()
        _ = try await (first.value, normal.value, urgent.value)
        #expect(provider.started == [photoURL(0), photoURL(2), photoURL(1)])
    }

    @Test func aRequestJoinsAQueuedPrefetchAndPromotesItWithoutASecondFetch() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let provider = GatedProvider()
        let cache = try laneCache(dir, provider: provider)
        cache.prefetch((0..<4).map(photo), format: "thumb")
        try await waitUntil("the first prefetch runs") { provider.started.count == 1 }
        let wanted = Task { try await cache.image(for: photo(3), format: "medium") }
        try await waitUntil("the queued prefetch starts in the fast lane") { provider.started.count == 2 }
        #expect(provider.started[1] == photoURL(3))
        let stats = cache.requestStatistics
        #expect(stats.promotions == 1 && stats.fetchingFast == 1 && stats.queuedSlow == 2)
        let twice = Task { try await cache.image(for: photo(3), format: "thumb") }
        try await waitUntil("the second request waits too") { cache.lanes.coordinator.waiters(entityID: "photo-3", format: nil).count == 3 }
        provider.release(photoURL(3))
        #expect(try await wanted.value.width == 100)
        #expect(try await twice.value.width == 80)
        provider.releaseAll()
        try await waitUntil("every prefetch is stored") { cache.requestStatistics.isIdle }
        #expect(provider.started.count == 4, "one fetch per source, promotions and duplicates included")
        #expect(Set(provider.started).count == 4)
    }

    @Test func aRunningPrefetchIsPromotedAndHoldsTheSlowLane() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let provider = GatedProvider()
        let cache = try laneCache(dir, provider: provider)
        cache.prefetch([photo(0), photo(1)], format: "thumb")
        try await waitUntil("the prefetch runs") { provider.started.count == 1 }
        let wanted = Task { try await cache.image(for: photo(0), format: "thumb") }
        try await waitUntil("the running prefetch is promoted") { cache.requestStatistics.fetchingFast == 1 }
        // The promotion and the lanes' scheduling are one step: had the slow lane taken the next
        // prefetch, it would be fetching now.
        let stats = cache.requestStatistics
        #expect(stats.fetchingSlow == 0 && stats.queuedSlow == 1, "the next prefetch waits for the promoted fetch")
        provider.release(photoURL(0))
        _ = try await wanted.value
        provider.releaseAll()
        try await waitUntil("the rest is stored") { cache.containsImage(for: photo(1), format: "thumb") }
        #expect(provider.started == [photoURL(0), photoURL(1)])
        #expect(provider.maximumRunning == 1, "the next prefetch started once the promoted fetch had ended")
    }

    @Test func deprioritizeMovesAQueuedRequestBehindTheFastLane() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let provider = GatedProvider()
        let cache = try laneCache(dir, provider: provider, lanes: RequestLanes(fastFetches: 1))
        let tasks = (0..<3).map { i in Task { try await cache.image(for: photo(i), format: "thumb") } }
        try await waitUntil("all three are in") { provider.started.count == 1 && cache.requestStatistics.queuedFast == 2 }
        let running = provider.started[0]
        let scrolledAway = (0..<3).first { photoURL($0) != running && cache.lanes.coordinator.priority(of: photoURL($0)) != nil }!
        cache.deprioritize(photo(scrolledAway))
        var stats = cache.requestStatistics
        #expect(stats.queuedFast == 1 && stats.queuedSlow == 1 && stats.demotions == 1)
        #expect(cache.lanes.coordinator.priority(of: photoURL(scrolledAway)) == .low)
        provider.release(running)
        try await waitUntil("the next fetch starts") { provider.started.count == 2 }
        #expect(provider.started[1] != photoURL(scrolledAway), "the demoted request waits")
        provider.release(provider.started[1])
        try await waitUntil("the demoted request runs once the fast lane is empty") { provider.started.count == 3 }
        #expect(provider.started[2] == photoURL(scrolledAway))
        provider.releaseAll()
        for task in tasks { _ = try await task.value }
        try await waitUntil("the lanes are idle") { cache.requestStatistics.isIdle }
        stats = cache.requestStatistics
        #expect(stats.waiters == 0 && stats.queuedSlow == 0)
    }

    @Test func setPriorityPromotesAPrefetch() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let provider = GatedProvider()
        let cache = try laneCache(dir, provider: provider)
        cache.prefetch([photo(0), photo(1)], format: "thumb")
        try await waitUntil("the first prefetch runs") { provider.started.count == 1 }
        cache.setPriority(.high, for: photo(1))
        try await waitUntil("the second starts in the fast lane") { provider.started.count == 2 }
        #expect(cache.requestStatistics.fetchingFast == 1)
        provider.releaseAll()
        try await waitUntil("both are stored") { cache.requestStatistics.isIdle }
    }

    @Test func decodingAndDrawingRunOnTheCachesOwnThreadsABoundedNumberAtOnce() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let provider = GatedProvider()
        provider.releaseAll()
        let cache = try laneCache(dir, provider: provider, lanes: RequestLanes(cpuWorkers: 2))
        // Drawings are held at a gate: the test sees two held while a fetched source waits for
        // a thread (so a third would be drawing if the lane allowed it), then lets them all go.
        let gate = ThreadGate()
        let observations = ObservedPhoto.Observations(pool: cache.lanes.cpu, gate: gate)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<8 {
                group.addTask {
                    _ = try await cache.image(
                        for: ObservedPhoto(entityID: "o\(i)", url: photoURL(i), observations: observations), format: "thumb")
                }
            }
            try await waitUntil("two drawings held while a source waits for a CPU thread") {
                gate.arrived >= 2 && cache.requestStatistics.awaitingDecode >= 1
            }
            #expect(gate.arrived == 2, "no more drawings at once than the lane's two CPU threads")
            gate.open()
            try await group.waitForAll()
        }
        let seen = observations.state.withLockedValue { $0 }
        #expect(seen.onCPUThread.count == 16, "two formats of the family for each of 8 photos")
        #expect(seen.onCPUThread.allSatisfy { $0 }, "every drawing ran on the cache's CPU threads")
        #expect(seen.maximumDrawing == 2)
        #expect(gate.timedOut == 0)
        #expect(cache.lanes.cpu.threadCount <= 2)
    }

    @Test func storingInTheBackgroundUsesTheCPULane() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let cache = try laneCache(dir, provider: GatedProvider())
        let observations = ObservedPhoto.Observations(pool: cache.lanes.cpu)
        let entity = ObservedPhoto(entityID: "bg", url: photoURL(9), observations: observations)
        let images = try await cache.storeImages(from: .encoded([UInt8](try Data(contentsOf: coffee))), for: entity, priority: .low)
        #expect(Set(images.images.keys) == ["thumb", "medium"])
        #expect(observations.state.withLockedValue { $0.onCPUThread } == [true, true])
        cache.close()
        await #expect(throws: ImageCacheError.self) {
            try await cache.storeImages(from: .encoded([1, 2, 3]), for: entity, priority: .low)
        }
    }

    @Test func closingFailsQueuedRunningAndDecodingRequests() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let provider = GatedProvider()
        let cache = try laneCache(dir, provider: provider, lanes: RequestLanes(fastFetches: 1))
        let tasks = (0..<3).map { i in Task { try await cache.image(for: photo(i), format: "thumb") } }
        try await waitUntil("one runs, two wait") { provider.started.count == 1 && cache.requestStatistics.queuedFast == 2 }
        cache.prefetch(photo(5), format: "thumb")
        #expect(cache.requestStatistics.queuedSlow == 1)
        cache.close()
        let stats = cache.requestStatistics
        #expect(stats.queuedFast == 0 && stats.queuedSlow == 0 && stats.waiters == 0, "closing leaves nothing queued to start")
        #expect(stats.fetchingFast == 0 && stats.fetchingSlow == 0, "nor anything counted as fetching")
        for task in tasks {
            if case .failure(let e as ImageCacheError) = await task.result {
                #expect(e.code == .closed)
            } else {
                Issue.record("expected .closed")
            }
        }
        let late = await #expect(throws: ImageCacheError.self) { try await cache.image(for: photo(7), format: "thumb") }
        #expect(late?.code == .closed)
        #expect(cache.requestStatistics.queuedFast == 0, "a request after closing queues nothing")
        provider.releaseAll()
        try await waitUntil("the running fetch, cancelled by closing, has ended") { provider.running == 0 }
        #expect(provider.started.count == 1, "nothing queued starts after closing")
        #expect(cache.requestStatistics.isIdle, "the ended fetch leaves the statistics idle")
    }
}
