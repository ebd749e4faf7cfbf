import Foundation

/// A job's first stage: asking the provider for the source, on a fetch slot of the lanes.
struct FetchStage: Sendable {
    /// Where sources come from; without one, every fetch fails.
    let provider: (any ImageSourceProvider)?
    /// Counts the fetches.
    let counters: CacheCounters

    /// The source at `url` for `entity`, or why there is none. A fetch whose task was cancelled
    /// (its last waiter went) fails with the cancellation even when the provider returned.
    func fetch(_ url: URL, for entity: any ImageEntity) async -> Result<SourceImage, any Error> {
        guard let provider else {
            return .failure(ImageCacheError(.sourceUnavailable, "the cache has no provider"))
        }
        counters.countFetch()
        do {
            let source = try await provider.sourceImage(at: url, for: entity)
            try Task.checkCancellation()
            return .success(source)
        } catch {
            return .failure(error)
        }
    }

    /// Tells the provider that nobody waits for `url` any more.
    func abandoned(_ url: URL, for entity: any ImageEntity) {
        provider?.didCancelRequest(at: url, for: entity)
    }
}
