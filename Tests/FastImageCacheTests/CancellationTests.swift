import Foundation
import Testing
@testable import FastImageCache

@Suite struct CancellationTests {
    @Test func cancellingTheOnlyWaiterCancelsTheFetchAndTellsTheProvider() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let provider = CountingProvider(delay: .seconds(10))
        let cache = try ImageCache(directory: dir.path, formats: [try mediumFormat()], provider: provider)
        let photo = Photo(entityID: "p", url: coffee)
        let task = Task { try await cache.image(for: photo, format: "medium") }
        while provider.calls == 0 { try await Task.sleep(for: .milliseconds(5)) }
        let start = ContinuousClock.now
        task.cancel()
        let result = await task.result
        #expect(ContinuousClock.now - start < .seconds(5), "cancellation does not wait for the fetch")
        #expect(throws: ImageCacheError.self) { try result.get() }
        #expect((try? result.get()) == nil)
        if case .failure(let e as ImageCacheError) = result { #expect(e.code == .cancelled) }
        #expect(provider.cancellations == [coffee])
        try await Task.sleep(for: .milliseconds(50))
        #expect(provider.state.withLockedValue { $0.fetchesThatSawCancellation } == 1)
        #expect(cache.cachedImage(for: photo, format: "medium") == nil)
    }

    @Test func otherWaitersKeepTheFetchAlive() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let provider = CountingProvider(delay: .milliseconds(300))
        let cache = try ImageCache(directory: dir.path, formats: [try mediumFormat()], provider: provider)
        let photo = Photo(entityID: "p", url: coffee)
        let leaving = Task { try await cache.image(for: photo, format: "medium") }
        let staying = Task { try await cache.image(for: photo, format: "medium") }
        while cache.requests.waiters(entityID: "p", format: "medium").count < 2 { try await Task.sleep(for: .milliseconds(5)) }
        leaving.cancel()
        let image = try await staying.value
        #expect(image.width == 100)
        #expect(provider.cancellations.isEmpty, "the provider is told only when the last waiter goes")
        #expect(provider.calls == 1)
        if case .failure(let e as ImageCacheError) = await leaving.result { #expect(e.code == .cancelled) } else { Issue.record("expected a cancellation error") }
    }

    @Test func explicitCancelOfAnEntity() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let provider = CountingProvider(delay: .seconds(10))
        let cache = try ImageCache(directory: dir.path, formats: [try mediumFormat()], provider: provider)
        let photo = Photo(entityID: "p", url: coffee)
        let task = Task { try await cache.image(for: photo, format: "medium") }
        while provider.calls == 0 || cache.requests.waiters(entityID: "p", format: "medium").isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        cache.cancelRequest(for: photo, format: "medium")
        if case .failure(let e as ImageCacheError) = await task.result { #expect(e.code == .cancelled) } else { Issue.record("expected a cancellation error") }
        #expect(provider.cancellations == [coffee])
    }

    @Test func closingFailsPendingRequests() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let provider = CountingProvider(delay: .seconds(10))
        let cache = try ImageCache(directory: dir.path, formats: [try mediumFormat()], provider: provider)
        let task = Task { try await cache.image(for: Photo(entityID: "p", url: coffee), format: "medium") }
        while provider.calls == 0 { try await Task.sleep(for: .milliseconds(5)) }
        try await Task.sleep(for: .milliseconds(20))
        cache.close()
        if case .failure(let e as ImageCacheError) = await task.result { #expect(e.code == .closed) } else { Issue.record("expected a closed error") }
    }
}
