import Foundation
import Testing
@testable import FastImageCache

/// Concurrent async requests, synchronous reads, deletes and resets on one cache, for
/// `FIC_STRESS_SECONDS` (default 2). Run under Thread Sanitizer in CI.
@Suite struct CacheStress {
    static var seconds: Double { Double(ProcessInfo.processInfo.environment["FIC_STRESS_SECONDS"] ?? "") ?? 2 }

    @Test func requestsReadsDeletesAndResetsTogether() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let provider = CountingProvider()
        let cache = try ImageCache(directory: dir.path, formats: [try thumbFormat(max: 6), try mediumFormat(max: 6)], provider: provider)
        let photos = ["photos/coffee.jpg", "photos/chelsea.jpg", "photos/astronaut.jpg", "jpeg/odd-17x13.jpg"].map(testFile)
        let deadline = ContinuousClock.now + .seconds(Self.seconds)
        let (images, failures) = await withTaskGroup(of: (Int, [String]).self) { group in
            for worker in 0..<4 {
                group.addTask {
                    var made = 0
                    var unexpected: [String] = []
                    var i = worker
                    // At least 40 operations each, even when other suites keep the threads busy.
                    while i < worker + 40 || ContinuousClock.now < deadline {
                        i += 1
                        let photo = Photo(entityID: "e\(i % 10)", url: photos[i % photos.count])
                        let format = i % 2 == 0 ? "thumb" : "medium"
                        switch (worker, i % 13) {
                        case (3, 0):
                            do { try cache.reset() } catch { unexpected.append("\(error)") }
                        case (_, 1), (_, 2):
                            cache.deleteImage(for: photo, format: format)
                        case (_, 3...5):
                            if let image = cache.cachedImage(for: photo, format: format) {
                                made += image.width > 0 ? 1 : 0
                            }
                        default:
                            do {
                                let image = try await cache.image(for: photo, format: format)
                                if image.width != cache.format(named: format)!.pixelSize.width { unexpected.append("wrong size") }
                                made += 1
                            } catch {
                                unexpected.append("\(error)")
                            }
                        }
                    }
                    return (made, unexpected)
                }
            }
            var total = 0
            var failures: [String] = []
            for await (n, f) in group {
                total += n
                failures += f
            }
            return (total, failures)
        }
        #expect(failures.isEmpty, "\(failures.prefix(3))")
        #expect(images > 0)
        for s in cache.statistics.formats { #expect(s.count <= 6) }
        cache.close()
    }
}
