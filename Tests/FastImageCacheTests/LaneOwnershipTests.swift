import FICTestSupport
import Foundation
import Testing
@testable import FastImageCache

/// What the lanes hold: their fetches and decodes hold the lanes and the family policy, never the
/// cache, so that an application that lets its cache go without closing it is not kept waiting
/// on work in flight to have it released.
@Suite struct LaneOwnershipTests {
    /// The provider's gate is closed while the cache is let go: the fetch is still running.
    @Test(.timeLimit(.minutes(10)))
    func aRunningFetchDoesNotKeepTheCacheAlive() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let provider = GatedProvider()
        weak var released: ImageCache?
        do {
            let cache = try laneCache(dir, provider: provider)
            released = cache
            cache.prefetch(photo(1), format: "thumb", priority: .high)
            try await waitUntil("the fetch starts") { provider.started.count == 1 && provider.running == 1 }
        }
        #expect(released == nil, "the running fetch kept the cache alive")
        provider.releaseAll()
        try await waitUntil("the fetch ends") { provider.running == 0 }
    }
}
