import FICCore
import FastImageCache
import Foundation
import ImageCodec
import Testing
@testable import ImageLoader

/// The library side of importing a list of URLs: bounded, in order, with progress, and through
/// the originals cache.
@Suite struct IngestTests {
    @Test func fileURLsAreIngestedInOrderWithProgress() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let loader = OriginalsLoader(configuration: testLoaderConfiguration(), originals: nil)
        let cache = try ImageCache(directory: dir.child("cache"), formats: webFormats)
        let urls =
            smallPhotos.map(testFile) + [
                testFile("bad/corrupt-entropy.jpg"), URL(fileURLWithPath: "/nonexistent/y.jpg"), testFile(smallPhotos[0])
            ]
        let seen = Locked<[IngestProgress]>([])
        let probe = AllocationProbe()
        let results = await AllocationProbe.$current.withValue(probe) {
            await loader.ingest(urls, into: cache, maximumInFlight: 2) { p in seen.withLockedValue { $0.append(p) } }
        }
        // Each original was gathered in one buffer of its announced size from the decoders' pool
        // (mapped pages once large), not in a growing heap array.
        for photo in smallPhotos {
            #expect(probe.sizes.contains(fileSize(photo)), "\(photo): \(fileSize(photo)) bytes, buffers \(probe.sizes)")
        }
        #expect(results.count == urls.count)
        for (i, url) in smallPhotos.map(testFile).enumerated() {
            let image = try results[i].get()
            #expect(image.url == url && image.origin == .file && !image.wasStored)
            #expect(cache.containsImage(for: image.entity, format: "thumb") && cache.containsImage(for: image.entity, format: "medium"))
        }
        if case .failure(let e) = results[4] { #expect(e.code == .decodingFailed) } else { Issue.record("a corrupt file is refused") }
        if case .failure(let e) = results[5] { #expect(e.code == .sourceUnavailable) } else { Issue.record("a missing file is refused") }
        #expect(try results[6].get().entity == (try results[0].get().entity), "a URL listed twice is loaded once")
        let last = try #require(seen.withLockedValue { $0.last })
        #expect(last.finished == urls.count && last.failed == 2 && last.stored == 5 && last.total == urls.count)
        #expect(last.bytesRead >= smallPhotos.map(fileSize).reduce(0, +))
        #expect(last.bytesDownloaded == 0)
        // Again: every image is there already.
        let again = await loader.ingest(Array(urls.prefix(4)), into: cache)
        #expect(again.allSatisfy { (try? $0.get().wasStored) == true })
        cache.close()
        try await loader.shutdown()
    }
}

extension NginxTests {
    @Test func ingestingURLsTwiceDownloadsOnce() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let folder = try server.publish(smallPhotos); defer { server.unpublish(folder) }
        let urls =
            smallPhotos.map { server.url(folder + "/" + ($0 as NSString).lastPathComponent) } + [
                server.base.appendingPathComponent("status/404")
            ]
        let originals = dir.child("originals")
        let first = OriginalsLoader(
            configuration: testLoaderConfiguration { $0.failureBackoff = .zero },
            originals: try OriginalsCache(directory: originals, maximumBytes: 16 << 20))
        let cache = try ImageCache(directory: dir.child("cache"), formats: webFormats)
        let progress = Locked<IngestProgress?>(nil)
        let results = await first.ingest(urls, into: cache, maximumInFlight: 3) { p in progress.withLockedValue { $0 = p } }
        #expect(
            results.prefix(4).allSatisfy { (try? $0.get().origin) == .network },
            "\(results.prefix(4).map { r in (try? r.get().origin.rawValue) ?? "\(r)" })")
        if case .failure(let e) = results[4] { #expect(e.code == .httpStatus) } else { Issue.record("404 is a failure") }
        let sizes = smallPhotos.map(fileSize).reduce(0, +)
        #expect(progress.withLockedValue { $0?.bytesDownloaded } == sizes)
        cache.close()
        try await first.shutdown()
        // A second run over the same list, into a new cache, downloads nothing.
        let second = OriginalsLoader(
            configuration: testLoaderConfiguration(), originals: try OriginalsCache(directory: originals, maximumBytes: 16 << 20))
        let other = try ImageCache(directory: dir.child("cache2"), formats: webFormats)
        let again = await second.ingest(Array(urls.prefix(4)), into: other)
        #expect(
            again.allSatisfy { (try? $0.get().origin) == .originalsCache }, "\(again.map { r in (try? r.get().origin.rawValue) ?? "\(r)" })"
        )
        #expect(second.statistics.bytesDownloaded == 0)
        other.close()
        try await second.shutdown()
    }
}
