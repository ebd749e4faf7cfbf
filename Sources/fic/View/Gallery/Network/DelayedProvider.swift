#if Tool
import FastImageCache
import Foundation

/// A provider that waits before each fetch, then asks another: for tests, so that cells are
/// still placeholders for a known time while the frames go on (`--fetch-delay-ms`, hidden).
struct DelayedProvider: ImageSourceProvider {
    /// The provider that fetches.
    let base: any ImageSourceProvider
    /// The wait before each fetch.
    let milliseconds: Int

    func sourceImage(at url: URL, for entity: any ImageEntity) async throws -> SourceImage {
        try await Task.sleep(for: .milliseconds(milliseconds))
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
