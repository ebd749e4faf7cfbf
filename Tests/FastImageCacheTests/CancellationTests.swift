import FICTestSupport
import Foundation
import Testing
@testable import FastImageCache

@Suite struct CancellationTests {
    /// The provider's gate never opens, and its fetch goes on after it is cancelled until the
    /// test lets it end: only the cancellation can end the request, and only by not waiting for
    /// the fetch; a request that waited would never end, and the time limit would fail the test.
    @Test(.timeLimit(.minutes(10)))
    func cancellingTheOnlyWaiterCancelsTheFetchAndTellsTheProvider() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let provider = GatedProvider(holdsThroughCancellation: true)
        let cache = try ImageCache(directory: dir.path, formats: [try mediumFormat()], provider: provider)
        let photo = Photo(entityID: "p", url: photoURL(0))
        let task = Task { try await cache.image(for: photo, format: "medium") }
        try await waitUntil("the fetch starts") { provider.started.count == 1 }
        task.cancel()
        let result = await task.result
        #expect(throws: ImageCacheError.self) { try result.get() }
        #expect((try? result.get()) == nil)
        if case .failure(let e as ImageCacheError) = result { #expect(e.code == .cancelled) }
        #expect(provider.cancellations == [photoURL(0)])
        try await waitUntil("the fetch sees its cancellation") { provider.sawCancellation == [photoURL(0)] }
        #expect(provider.running == 1, "the request ended while its fetch still ran")
        provider.releaseAll()
        try await waitUntil("the cancelled fetch has ended") { provider.running == 0 && cache.requestStatistics.isIdle }
        #expect(cache.cachedImage(for: photo, format: "medium") == nil)
    }

    @Test func otherWaitersKeepTheFetchAlive() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let provider = GatedProvider()
        let cache = try ImageCache(directory: dir.path, formats: [try mediumFormat()], provider: provider)
        let photo = Photo(entityID: "p", url: photoURL(0))
        let leaving = Task { try await cache.image(for: photo, format: "medium") }
        let staying = Task { try await cache.image(for: photo, format: "medium") }
        try await waitUntil("both wait for the one fetch") {
            provider.started.count == 1 && cache.lanes.coordinator.waiters(entityID: "p", format: "medium").count == 2
        }
        leaving.cancel()
        if case .failure(let e as ImageCacheError) = await leaving.result {
            #expect(e.code == .cancelled)
        } else {
            Issue.record("expected a cancellation error")
        }
        #expect(provider.cancellations.isEmpty, "the provider is told only when the last waiter goes")
        provider.releaseAll()
        let image = try await staying.value
        #expect(image.width == 100)
        #expect(provider.sawCancellation.isEmpty, "the fetch went on for the other waiter")
        #expect(provider.started.count == 1)
    }

    /// The gate never opens: only the cancellation can end the request.
    @Test(.timeLimit(.minutes(10)))
    func explicitCancelOfAnEntity() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let provider = GatedProvider()
        let cache = try ImageCache(directory: dir.path, formats: [try mediumFormat()], provider: provider)
        let photo = Photo(entityID: "p", url: photoURL(0))
        let task = Task { try await cache.image(for: photo, format: "medium") }
        try await waitUntil("the request waits for its fetch") {
            provider.started.count == 1 && !cache.lanes.coordinator.waiters(entityID: "p", format: "medium").isEmpty
        }
        cache.cancelRequest(for: photo, format: "medium")
        if case .failure(let e as ImageCacheError) = await task.result {
            #expect(e.code == .cancelled)
        } else {
            Issue.record("expected a cancellation error")
        }
        #expect(provider.cancellations == [photoURL(0)])
    }

    /// The gate never opens: only closing can end the request.
    @Test(.timeLimit(.minutes(10)))
    func closingFailsPendingRequests() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let provider = GatedProvider()
        let cache = try ImageCache(directory: dir.path, formats: [try mediumFormat()], provider: provider)
        let task = Task { try await cache.image(for: Photo(entityID: "p", url: photoURL(0)), format: "medium") }
        try await waitUntil("the request waits for its fetch") {
            provider.started.count == 1 && !cache.lanes.coordinator.waiters(entityID: "p", format: "medium").isEmpty
        }
        cache.close()
        if case .failure(let e as ImageCacheError) = await task.result {
            #expect(e.code == .closed)
        } else {
            Issue.record("expected a closed error")
        }
    }

    @Test func cancellingACallerKeepsAPrefetchOfTheSameImageAlive() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let provider = GatedProvider()
        let cache = try laneCache(dir, provider: provider)
        cache.prefetch([photo(0), photo(1)], format: "thumb")
        try await waitUntil("the first prefetch runs") { provider.started.count == 1 }
        let impatient = Task { try await cache.image(for: photo(1), format: "thumb") }
        try await waitUntil("the request promotes the queued prefetch") { provider.started.count == 2 }
        #expect(cache.lanes.coordinator.priority(of: photoURL(1)) == .high)
        impatient.cancel()
        if case .failure(let e as ImageCacheError) = await impatient.result {
            #expect(e.code == .cancelled)
        } else {
            Issue.record("expected .cancelled")
        }
        #expect(cache.lanes.coordinator.priority(of: photoURL(1)) == .low, "the job falls back to the prefetch's priority")
        #expect(provider.cancellations.isEmpty, "the fetch goes on for the prefetch")
        provider.releaseAll()
        try await waitUntil("the prefetch is stored") { cache.containsImage(for: photo(1), format: "thumb") }
        #expect(provider.started.count == 2)
    }

    @Test func cancellingTheOnlyWaiterOfAQueuedJobMeansItNeverStarts() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let provider = GatedProvider()
        let cache = try laneCache(dir, provider: provider, lanes: RequestLanes(fastFetches: 1))
        let running = Task { try await cache.image(for: photo(0), format: "thumb") }
        try await waitUntil("the first fetch runs") { provider.started.count == 1 }
        let queued = Task { try await cache.image(for: photo(1), format: "thumb") }
        try await waitUntil("the second is queued") { cache.requestStatistics.queuedFast == 1 }
        queued.cancel()
        if case .failure(let e as ImageCacheError) = await queued.result {
            #expect(e.code == .cancelled)
        } else {
            Issue.record("expected .cancelled")
        }
        #expect(cache.requestStatistics.queuedFast == 0)
        provider.releaseAll()
        _ = try await running.value
        // Idle: nothing queued or running, so a job still queued would have started and ended.
        try await waitUntil("the lanes are idle") { cache.requestStatistics.isIdle }
        #expect(provider.started == [photoURL(0)], "the cancelled job was never fetched")
        #expect(provider.cancellations.isEmpty, "the provider is told only about fetches it started")
    }

    @Test func cancelPrefetchDropsPrefetchesOnly() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let provider = GatedProvider()
        let cache = try laneCache(dir, provider: provider)
        cache.prefetch([photo(0), photo(1), photo(2)], format: "thumb")
        try await waitUntil("the first prefetch runs") { provider.started.count == 1 }
        let wanted = Task { try await cache.image(for: photo(2), format: "thumb", priority: .low) }
        try await waitUntil("the caller waits") { cache.lanes.coordinator.waiters(entityID: "photo-2", format: nil).count == 2 }
        cache.cancelPrefetch(for: photo(1))
        cache.cancelPrefetch(for: photo(2))
        #expect(cache.lanes.coordinator.waiters(entityID: "photo-1", format: nil).isEmpty)
        #expect(cache.lanes.coordinator.waiters(entityID: "photo-2", format: nil).count == 1, "the caller is not a prefetch")
        provider.releaseAll()
        #expect(try await wanted.value.width == 80)
        try await waitUntil("the lanes are idle") { cache.requestStatistics.isIdle }
        #expect(!cache.containsImage(for: photo(1), format: "thumb"))
        #expect(!provider.started.contains(photoURL(1)))
    }
}
