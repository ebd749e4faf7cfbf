import FICHarness
import FICCore
import FICTestSupport
import FastImageCache
import Foundation
import Testing
@testable import ImageLoader

/// A photo on a web server.
struct WebPhoto: ImageEntity {
    let entityID: String
    let url: URL
    var sourceImageID: String { "v1" }
    func sourceImageURL(for format: ImageFormat) -> URL? { url }
}

let webFormats: [ImageFormat] = [
    try! ImageFormat(name: "thumb", family: "photos", size: CGSize(width: 40, height: 30), scale: 2, style: .rgb565, maximumCount: 200),
    try! ImageFormat(
        name: "medium", family: "photos", size: CGSize(width: 100, height: 100), style: .bgra32Premultiplied, maximumCount: 200)
]

let smallPhotos = ["photos/chelsea.jpg", "photos/coffee.jpg", "photos/astronaut.jpg", "photos/rocket.jpg"]

func fileSize(_ relative: String) -> Int {
    (try? FileManager.default.attributesOfItem(atPath: testFile(relative).path)[.size] as? Int) ?? 0
}

/// The loader and the cache against the real nginx of `scripts/test-server`.
@Suite(.enabled(if: NginxServer.isRunning, nginxMissing), .serialized) struct NginxTests {
    let server = NginxServer.shared!

    @Test func theCacheLoadsThroughTheLoaderAndAFreshCacheNeedsNoNetwork() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let folder = try server.publish(smallPhotos); defer { server.unpublish(folder) }
        let photos = smallPhotos.map { WebPhoto(entityID: $0, url: server.url(folder + "/" + ($0 as NSString).lastPathComponent)) }
        let originals = dir.child("originals")
        let loader = OriginalsLoader(
            configuration: testLoaderConfiguration(), originals: try OriginalsCache(directory: originals, maximumBytes: 16 << 20))
        let cache = try ImageCache(directory: dir.child("cache"), formats: webFormats, provider: loader)
        for p in photos { #expect(try await cache.image(for: p, format: "thumb").width == 80) }
        for p in photos { #expect(cache.containsImage(for: p, format: "medium"), "the family is drawn from the one download") }
        #expect(loader.statistics.downloads == 4)
        #expect(loader.statistics.bytesDownloaded == smallPhotos.map(fileSize).reduce(0, +))
        cache.close()
        try await loader.shutdown()
        // Another cache, another loader, the same originals: no network.
        let second = OriginalsLoader(
            configuration: testLoaderConfiguration(), originals: try OriginalsCache(directory: originals, maximumBytes: 16 << 20))
        let other = try ImageCache(directory: dir.child("cache2"), formats: webFormats, provider: second)
        for p in photos { #expect(try await other.image(for: p, format: "medium").width == 100) }
        #expect(second.statistics.bytesDownloaded == 0 && second.statistics.downloads == 0)
        #expect(second.originals?.statistics.hits == 4)
        other.close()
        try await second.shutdown()
    }

    @Test func onASlowLinkVisibleImagesOvertakeQueuedPrefetchesWithoutDownloadingTwice() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        // Twelve distinct files (copies under new names).
        let folder = try server.publish([])
        defer { server.unpublish(folder) }
        var sizes = 0
        for i in 0..<12 {
            let source = smallPhotos[i % smallPhotos.count]
            try FileManager.default.copyItem(atPath: testFile(source).path, toPath: server.root + "/\(folder)/\(i).jpg")
            sizes += fileSize(source)
        }
        // A 600 KB/s link for all connections together (nginx's limit_rate is per response and lets
        // the first second through at once, so it does not slow photos this small).
        let link = try ThrottledLink(targetPort: server.base.port!, bytesPerSecond: 600_000)
        defer { link.stop() }
        let linked = URL(string: "http://127.0.0.1:\(link.port)/")!
        let photos = (0..<12).map { WebPhoto(entityID: "p\($0)", url: linked.appendingPathComponent("\(folder)/\($0).jpg")) }
        let loader = OriginalsLoader(
            configuration: testLoaderConfiguration(),
            originals: try OriginalsCache(directory: dir.child("originals"), maximumBytes: 16 << 20))
        let fetches = FetchOrder(loader)
        let cache = try ImageCache(directory: dir.child("cache"), formats: webFormats, provider: fetches)
        // Queued prefetches, then at once the images on screen: one of them a queued prefetch
        // (promoted), two nobody asked for yet, and a duplicate. The link stalls until the three
        // visible jobs are on the fast lane, so that however slowly this process runs, no
        // prefetch can finish and let the next one start before they are there.
        link.hold()
        cache.prefetch(photos[0..<10], format: "thumb")
        let visible = [photos[9], photos[10], photos[11], photos[9]]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for p in visible { group.addTask { _ = try await cache.image(for: p, format: "thumb") } }
            try await waitUntil("the visible images are on the fast lane") {
                let s = cache.requestStatistics
                return s.promotions >= 1 && s.queuedFast + s.fetchingFast >= 3
            }
            link.resume()
            try await group.waitForAll()
        }
        try await waitUntil("the prefetches finish") { cache.requestStatistics.isIdle }
        // The first prefetch may have been running already; every other one started fetching only
        // once the visible images were fetched (decoding them may overlap the prefetches, which
        // is the lanes' policy: the network goes to what is on screen first).
        let events = fetches.events.withLockedValue { $0 }
        let lastVisible = try #require(events.lastIndex { !$0.started && ["9.jpg", "10.jpg", "11.jpg"].contains($0.file) })
        for p in 1..<9 {
            let start = try #require(events.firstIndex { $0.started && $0.file == "\(p).jpg" })
            #expect(start > lastVisible, "prefetch \(p) started fetching before the visible images were fetched: \(events)")
        }
        for p in photos { #expect(cache.containsImage(for: p, format: "thumb")) }
        #expect(loader.statistics.downloads == 12, "one download per image, promotions and duplicates included")
        #expect(loader.statistics.bytesDownloaded == sizes)
        #expect(cache.requestStatistics.promotions >= 1)
        cache.close()
        try await loader.shutdown()
    }

    /// nginx sends a second's worth of bytes, then waits for its clock's next second (longer on
    /// a busy machine): the body arrives whole and intact across its pauses. How long it took is
    /// nginx's pacing, printed, not a bound the loader is held to.
    @Test func nginxsLimitRateSlowsALargeBodyWithoutTrippingTheIdleTimeout() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let folder = try server.publish(["photos/hubble.jpg"]); defer { server.unpublish(folder) }
        let loader = OriginalsLoader(configuration: testLoaderConfiguration(), originals: nil)
        let start = ContinuousClock.now
        let bytes = try await loader.data(for: server.url(folder + "/hubble.jpg", location: "slow"))
        // 528 KB at 256 KB/s, the first second's worth at once: one to two seconds on an idle machine.
        print("nginx limit_rate: \(bytes.count) bytes in \(ContinuousClock.now - start)")
        #expect(bytes == [UInt8](try Data(contentsOf: testFile("photos/hubble.jpg"))))
        #expect(
            loader.statistics.downloads == 1 && loader.statistics.bytesDownloaded == bytes.count,
            "one download, not a retry after a timeout")
        try await loader.shutdown()
    }

    @Test func aStaleOriginalIsRevalidatedWithNginxsETag() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let folder = try server.publish(["photos/coffee.jpg"]); defer { server.unpublish(folder) }
        // The loader's wall clock, moved by the test: the second of max-age passes when it says so.
        let clock = LockedBox(Date())
        let loader = OriginalsLoader(
            configuration: testLoaderConfiguration(),
            originals: try OriginalsCache(directory: dir.child("originals"), maximumBytes: 16 << 20),
            now: { clock.withLockedValue { $0 } })
        let url = server.url(folder + "/coffee.jpg", location: "maxage1")
        let bytes = try await loader.data(for: url)
        #expect(try await loader.data(for: url) == bytes)
        #expect(loader.statistics.notModified == 0 && loader.statistics.downloads == 1, "fresh: served without asking")
        clock.withLockedValue { $0 += 2 }
        #expect(try await loader.data(for: url) == bytes)
        #expect(loader.statistics.notModified == 1, "nginx answered 304 to If-None-Match")
        #expect(loader.statistics.bytesDownloaded == bytes.count)
        try await loader.shutdown()
    }

    @Test func nginxStatusesRedirectsAndNoStore() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let folder = try server.publish(["photos/chelsea.jpg"]); defer { server.unpublish(folder) }
        let originals = dir.child("originals")
        let loader = OriginalsLoader(
            configuration: testLoaderConfiguration { $0.failureBackoff = .zero },
            originals: try OriginalsCache(directory: originals, maximumBytes: 16 << 20))
        let missing = server.base.appendingPathComponent("status/404")
        let e = await loaderError { _ = try await loader.data(for: missing) }
        #expect(e?.code == .httpStatus && e?.message.contains("404") == true && e?.path == missing.absoluteString)
        #expect(await loaderError { _ = try await loader.data(for: server.base.appendingPathComponent("status/500")) }?.code == .httpStatus)
        #expect(await loaderError { _ = try await loader.data(for: server.base.appendingPathComponent("loop")) }?.code == .tooManyRedirects)
        let file = [UInt8](try Data(contentsOf: testFile("photos/chelsea.jpg")))
        #expect(try await loader.data(for: server.url(folder + "/chelsea.jpg", location: "moved")) == file)
        #expect(entryFiles(originals).count == 1)
        #expect(try await loader.data(for: server.url(folder + "/chelsea.jpg", location: "nostore")) == file)
        #expect(entryFiles(originals).count == 1, "no-store responses are not stored")
        try await loader.shutdown()
    }
}

/// When `scripts/test` runs the tests it requires nginx: a missing server fails instead of skipping.
@Test func theTestServerRunsWhenRequired() {
    if ProcessInfo.processInfo.environment["FIC_REQUIRE_TEST_SERVER"] == "1" {
        #expect(NginxServer.isRunning, "scripts/test started nginx, but the tests cannot reach it")
    }
}

/// The loader as the cache's provider, with the order in which fetches start and end.
final class FetchOrder: ImageSourceProvider {
    let loader: OriginalsLoader
    /// Each fetch's start and end, in the order they happened: the URL's file name, and whether it started.
    let events = Locked<[(file: String, started: Bool)]>([])

    init(_ loader: OriginalsLoader) { self.loader = loader }

    func sourceImage(at url: URL, for entity: any ImageEntity) async throws -> SourceImage {
        events.withLockedValue { $0.append((url.lastPathComponent, true)) }
        defer { events.withLockedValue { $0.append((url.lastPathComponent, false)) } }
        return try await loader.sourceImage(at: url, for: entity)
    }

    func didCancelRequest(at url: URL, for entity: any ImageEntity) {
        loader.didCancelRequest(at: url, for: entity)
    }
}
