#if Tool
import FastImageCache
import Foundation

/// A provider that holds fetches back, then asks another: for tests, so that cells are still
/// placeholders while the frames go on. Each fetch waits `milliseconds` first
/// (`--fetch-delay-ms`); a fetch of a URL in `held` waits until it is cancelled
/// (`--hold-fetches-after`), so that which cells fill in does not depend on the machine's speed.
struct DelayedProvider: ImageSourceProvider {
    /// The provider that fetches.
    let base: any ImageSourceProvider
    /// The wait before each fetch.
    let milliseconds: Int
    /// The URLs whose fetches never finish (they end when the request is cancelled).
    let held: Set<URL>

    func sourceImage(at url: URL, for entity: any ImageEntity) async throws -> SourceImage {
        if held.contains(url) {
            // Cancelling the request (the viewer closing, the cell scrolled away) ends the wait.
            while true { try await Task.sleep(for: .seconds(3600)) }
        }
        if milliseconds > 0 { try await Task.sleep(for: .milliseconds(milliseconds)) }
        return try await base.sourceImage(at: url, for: entity)
    }

    func shouldDrawFamily(_ family: String, for entity: any ImageEntity) -> Bool {
        base.shouldDrawFamily(family, for: entity)
    }

    func didCancelRequest(at url: URL, for entity: any ImageEntity) {
        base.didCancelRequest(at: url, for: entity)
    }
}
#endif
