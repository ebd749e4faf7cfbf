import Foundation
import Testing
import FastImageCache

/// What the statistics count as hits and misses: each lookup a caller makes, once, and none of
/// the looks the cache takes for itself while it serves a request.
@Suite struct LookupStatisticsTests {
    @Test func requestsForNewImagesAreOneMissEachAndLookupsOfThemOneHitEach() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let cache = try ImageCache(directory: dir.path, formats: [try thumbFormat(), try mediumFormat()], provider: CountingProvider())
        let photos = (0..<5).map { Photo(entityID: "photo-\($0)", url: $0 % 2 == 0 ? coffee : astronaut) }
        for photo in photos { _ = try await cache.image(for: photo, format: "thumb") }
        func figures(_ format: String) throws -> FormatStatistics {
            try #require(cache.statistics.formats.first { $0.format == format })
        }
        var thumb = try figures("thumb"), medium = try figures("medium")
        #expect((thumb.misses, thumb.hits, thumb.inserts) == (5, 0, 5), "one miss per request, one insert per image: \(thumb)")
        #expect((medium.misses, medium.hits, medium.inserts) == (0, 0, 5), "drawn beside thumb, never asked for: \(medium)")

        for photo in photos { #expect(cache.cachedImage(for: photo, format: "thumb") != nil) }
        thumb = try figures("thumb")
        #expect((thumb.misses, thumb.hits) == (5, 5), "\(thumb)")

        // A request that finds its image stored is a hit; asking whether it is stored, and a
        // prefetch of a stored image, are not lookups.
        _ = try await cache.image(for: photos[0], format: "medium")
        _ = cache.containsImage(for: photos[1], format: "medium")
        cache.prefetch(photos[2], format: "medium")
        #expect(cache.cachedImage(entityID: "no such photo", format: "medium") == nil)
        medium = try figures("medium")
        #expect((medium.misses, medium.hits, medium.inserts) == (1, 1, 5), "\(medium)")
    }
}
