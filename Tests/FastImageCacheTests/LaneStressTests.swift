import FICTestSupport
import Foundation
import Testing
@testable import FastImageCache

/// A provider that answers after a random short delay.
final class JitterProvider: ImageSourceProvider {
    let bytes = [UInt8](try! Data(contentsOf: coffee))
    let calls = Locked(0)

    func sourceImage(at url: URL, for entity: any ImageEntity) async throws -> SourceImage {
        calls.withLockedValue { $0 += 1 }
        try await Task.sleep(for: .microseconds(Int.random(in: 0...3000)))
        return .encoded(bytes)
    }
}

/// Requests, prefetches, priority changes and cancellations from several tasks at once, for
/// `FIC_STRESS_SECONDS` (default 2). Run under Thread Sanitizer in CI.
@Suite struct LaneStress {
    @Test func requestsPrefetchesPrioritiesAndCancellationsTogether() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let provider = JitterProvider()
        let cache = try ImageCache(directory: dir.path, formats: [try thumbFormat(max: 8), try mediumFormat(max: 8)], provider: provider)
        cache.requestLanes = RequestLanes(fastFetches: 3, slowFetches: 1, cpuWorkers: 2)
        let deadline = ContinuousClock.now + .seconds(CacheStress.seconds)
        let failures = await withTaskGroup(of: [String].self) { group in
            for worker in 0..<4 {
                group.addTask {
                    var unexpected: [String] = []
                    var i = worker
                    while i < worker + 60 || ContinuousClock.now < deadline {
                        i += 1
                        let p = photo(i % 24)
                        let format = i % 3 == 0 ? "medium" : "thumb"
                        switch i % 9 {
                        case 0, 1:
                            cache.prefetch(p, format: format, priority: i % 2 == 0 ? .low : .veryLow)
                        case 2:
                            cache.deprioritize(p)
                        case 3:
                            cache.setPriority(RequestPriority.allCases[i % 5], for: p)
                        case 4:
                            cache.cancelRequest(for: p, format: i % 2 == 0 ? format : nil)
                        case 5:
                            let task = Task { try await cache.image(for: p, format: format) }
                            try? await Task.sleep(for: .microseconds(Int.random(in: 0...2000)))
                            task.cancel()
                            switch await task.result {
                            case .success(let image): if image.format.name != format { unexpected.append("wrong format") }
                            case .failure(let e as ImageCacheError) where e.code == .cancelled: break
                            case .failure(let e): unexpected.append("\(e)")
                            }
                        default:
                            do {
                                let image = try await cache.image(for: p, format: format, priority: RequestPriority.allCases[i % 5])
                                if image.width != cache.format(named: format)!.pixelSize.width { unexpected.append("wrong size") }
                            } catch let e as ImageCacheError where e.code == .cancelled {
                                // Cancelled by another worker's cancelRequest.
                            } catch {
                                unexpected.append("\(error)")
                            }
                        }
                    }
                    return unexpected
                }
            }
            return await group.reduce(into: [String]()) { $0 += $1 }
        }
        #expect(failures.isEmpty, "\(failures.prefix(3))")
        try await waitUntil("the lanes drain") { cache.requestStatistics.isIdle }
        let stats = cache.requestStatistics
        #expect(stats.waiters == 0 && stats.queuedFast == 0 && stats.queuedSlow == 0)
        #expect(provider.calls.withLockedValue { $0 } > 0)
        cache.close()
    }
}
