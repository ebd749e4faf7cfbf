import FICTestSupport
import Foundation
import ImageCodec
import Testing
@testable import FastImageCache

@Suite struct CacheTests {
    @Test func asyncRequestFetchesDecodesDrawsAndThenHitsSynchronously() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let provider = CountingProvider()
        let cache = try ImageCache(directory: dir.path, formats: [try thumbFormat(), try mediumFormat()], provider: provider)
        let photo = Photo(entityID: "coffee", url: coffee)
        #expect(cache.cachedImage(for: photo, format: "thumb") == nil)
        let image = try await cache.image(for: photo, format: "thumb")
        #expect(image.width == 80 && image.height == 60)
        #expect(image.bytesPerRow % 64 == 0)
        #expect(image.style == .rgb565)
        let again = try #require(cache.cachedImage(for: photo, format: "thumb"))
        #expect(again.baseAddress == image.baseAddress, "the synchronous path returns the same mapped slot")
        _ = try await cache.image(for: photo, format: "thumb")
        #expect(provider.calls == 1)
        let stats = cache.statistics
        #expect(stats.sourceDecodes == 1)
        #expect(stats.formats.first { $0.format == "thumb" }?.hits ?? 0 >= 2)
        #expect(cache.diskUsage > 0)
    }

    @Test func hundredConcurrentRequestsMakeOneFetchAndOneDecode() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        // The fetch is held until all hundred wait for it.
        let provider = GatedProvider()
        let cache = try ImageCache(directory: dir.path, formats: [try thumbFormat(), try mediumFormat()], provider: provider)
        let photo = Photo(entityID: "coffee", url: coffee)
        let addresses = try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<100 {
                group.addTask { Int(bitPattern: try await cache.image(for: photo, format: i % 2 == 0 ? "thumb" : "medium").baseAddress) }
            }
            try await waitUntil("all hundred wait") { cache.requestStatistics.waiters == 100 }
            provider.releaseAll()
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(addresses.count == 100)
        #expect(Set(addresses).count == 2, "every waiter of one format gets the same slot")
        #expect(provider.started.count == 1)
        #expect(cache.statistics.sourceDecodes == 1)
    }

    /// `containsImages(for:family:)` answers what `storeImages` would skip: every format of the
    /// family (or of the cache) up to date, and never true for a family with no format.
    @Test func containsImagesTellsWhetherAFamilyIsStored() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let other = try ImageFormat(
            name: "poster", family: "posters", size: CGSize(width: 20, height: 20), scale: 1, style: .bgra32Premultiplied, maximumCount: 4)
        let cache = try ImageCache(
            directory: dir.path, formats: [try thumbFormat(), try mediumFormat(), other], provider: CountingProvider())
        let photo = Photo(entityID: "a", url: astronaut)
        #expect(!cache.containsImages(for: photo, family: "photos") && !cache.containsImages(for: photo))
        try cache.storeImages(from: .bytes(try ImageBytes(contentsOf: astronaut.path)), for: photo, family: "photos")
        #expect(cache.containsImages(for: photo, family: "photos"))
        #expect(!cache.containsImages(for: photo), "the posters family is not stored")
        #expect(!cache.containsImages(for: photo, family: "no such family"))
        #expect(cache.deleteImage(for: photo, format: "medium"))
        #expect(!cache.containsImages(for: photo, family: "photos"), "one format of the family lacks it")
        try cache.storeImages(from: .bytes(try ImageBytes(contentsOf: astronaut.path)), for: photo)
        #expect(cache.containsImages(for: photo))
    }

    @Test func theFamilyIsDrawnFromOneSource() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let provider = CountingProvider()
        let cache = try ImageCache(directory: dir.path, formats: [try thumbFormat(), try mediumFormat()], provider: provider)
        let photo = Photo(entityID: "a", url: astronaut)
        _ = try await cache.image(for: photo, format: "thumb")
        #expect(cache.containsImage(for: photo, format: "medium"), "the other format of the family was drawn too")
        _ = try await cache.image(for: photo, format: "medium")
        #expect(provider.calls == 1)
        #expect(cache.statistics.sourceDecodes == 1)
    }

    @Test func formatsOfOtherFamiliesShareTheFetchAndDecodeAtTheLargestSize() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        // The fetch is held until both formats wait for it.
        let provider = GatedProvider()
        let big = try ImageFormat(name: "big", family: "posters", size: CGSize(width: 300, height: 200), style: .bgrx32, maximumCount: 4)
        let cache = try ImageCache(directory: dir.path, formats: [try thumbFormat(), big], provider: provider)
        let photo = Photo(entityID: "c", url: coffee)
        async let small = cache.image(for: photo, format: "thumb")
        async let large = cache.image(for: photo, format: "big")
        try await waitUntil("both formats wait") { cache.requestStatistics.waiters == 2 }
        provider.releaseAll()
        let (s, l) = try await (small, large)
        #expect(s.width == 80 && l.width == 300 && l.height == 200)
        #expect(provider.started.count == 1)
        #expect(cache.statistics.sourceDecodes == 1)
    }

    @Test func theProviderCanDeclineTheFamily() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let provider = CountingProvider(declineFamilies: true)
        let cache = try ImageCache(directory: dir.path, formats: [try thumbFormat(), try mediumFormat()], provider: provider)
        let photo = Photo(entityID: "a", url: astronaut)
        _ = try await cache.image(for: photo, format: "thumb")
        #expect(!cache.containsImage(for: photo, format: "medium"))
    }

    @Test func aNewSourceIDMakesTheImageStaleAndItIsRedrawn() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let provider = CountingProvider()
        let cache = try ImageCache(directory: dir.path, formats: [try mediumFormat()], provider: provider)
        var photo = Photo(entityID: "p", url: coffee)
        let first = try await cache.image(for: photo, format: "medium")
        let firstPixels = first.withUnsafeBytes { Array($0) }
        photo.sourceImageID = "v2"
        photo.url = astronaut
        #expect(cache.cachedImage(for: photo, format: "medium") == nil, "stale images are not returned")
        let second = try await cache.image(for: photo, format: "medium")
        #expect(provider.calls == 2)
        #expect(second.withUnsafeBytes { Array($0) } != firstPixels)
        #expect(first.withUnsafeBytes { Array($0) } == firstPixels, "the held stale image is unchanged")
    }

    @Test func errorsSayWhatWentWrong() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let none = try ImageCache(directory: dir.path, namespace: "a", formats: [try mediumFormat()])
        let photo = Photo(entityID: "p", url: coffee)
        var e = await #expect(throws: ImageCacheError.self) { try await none.image(for: photo, format: "medium") }
        #expect(e?.code == .sourceUnavailable)
        e = await #expect(throws: ImageCacheError.self) { try await none.image(for: photo, format: "nope") }
        #expect(e?.code == .unknownFormat)

        let failing = try ImageCache(
            directory: dir.path, namespace: "b", formats: [try mediumFormat()], provider: CountingProvider(failure: true))
        e = await #expect(throws: ImageCacheError.self) { try await failing.image(for: photo, format: "medium") }
        #expect(e?.code == .sourceUnavailable)
        #expect(e?.underlying != nil)

        let reading = try ImageCache(directory: dir.path, namespace: "c", formats: [try mediumFormat()], provider: FileSourceProvider())
        let broken = Photo(entityID: "bad", url: testFile("bad/corrupt-entropy.jpg"))
        e = await #expect(throws: ImageCacheError.self) { try await reading.image(for: broken, format: "medium") }
        #expect(e?.code == .decodingFailed)
        #expect(reading.cachedImage(for: broken, format: "medium") == nil, "nothing is stored for a bad source")
        let missing = Photo(entityID: "gone", url: URL(fileURLWithPath: "/nonexistent/x.jpg"))
        e = await #expect(throws: ImageCacheError.self) { try await reading.image(for: missing, format: "medium") }
        #expect(e?.code == .sourceUnavailable)
        #expect(e?.description.contains("x.jpg") == true)
    }

    @Test func setDeleteAndResetHeldImagesStayValid() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let cache = try ImageCache(directory: dir.path, formats: [try thumbFormat(), try mediumFormat()])
        let photo = Photo(entityID: "p")
        let held = try cache.setImage(encoded: [UInt8](try Data(contentsOf: coffee)), for: photo, format: "medium")
        let pixels = held.withUnsafeBytes { Array($0) }
        #expect(pixels.contains { $0 != 0 })
        #expect(cache.containsImage(for: photo, format: "medium"))
        #expect(!cache.containsImage(for: photo, format: "thumb"))
        try cache.reset()
        #expect(cache.cachedImage(for: photo, format: "medium") == nil)
        for i in 0..<20 {
            try cache.setImage(encoded: [UInt8](try Data(contentsOf: astronaut)), for: Photo(entityID: "n\(i)"), format: "medium")
        }
        #expect(held.withUnsafeBytes { Array($0) } == pixels, "reset never touches a held image")
        try cache.setImage(encoded: [UInt8](try Data(contentsOf: coffee)), for: photo, format: "thumb")
        #expect(cache.deleteImage(for: photo, format: "thumb"))
        #expect(!cache.deleteImage(for: photo, format: "thumb"))
        try cache.setImage(encoded: [UInt8](try Data(contentsOf: coffee)), for: photo, format: "thumb")
        cache.deleteImages(for: photo)
        #expect(!cache.containsImage(for: photo, format: "thumb"))
    }

    @Test func evictionsAreCountedAndTheMaximumHolds() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let cache = try ImageCache(directory: dir.path, formats: [try thumbFormat(max: 3)])
        let source = try ImageDecoder.decode(contentsOf: coffee.path)
        for i in 0..<10 { try cache.setImage(source, for: Photo(entityID: "e\(i)"), format: "thumb") }
        let s = try #require(cache.statistics.formats.first)
        #expect(s.count == 3)
        #expect(s.evictions == 7)
        #expect(cache.cachedImage(for: Photo(entityID: "e9"), format: "thumb") != nil)
        #expect(cache.cachedImage(for: Photo(entityID: "e0"), format: "thumb") == nil)
    }

    /// A cached image holds its slot (no store draws over it) from its lookup or store until its
    /// release, and then no longer: a table whose images were all let go of takes new ones.
    @Test func anImageHoldsItsSlotUntilItIsReleasedAndNoLonger() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let cache = try ImageCache(directory: dir.path, formats: [try thumbFormat(max: 2)])
        let source = try ImageDecoder.decode(contentsOf: coffee.path)
        let table = try cache.table("thumb").table
        func held() -> Int { table.statistics.heldImages }
        var stored: CachedImage? = try cache.setImage(source, for: Photo(entityID: "a"), format: "thumb")
        #expect(held() == 1)
        var looked: CachedImage? = cache.cachedImage(for: Photo(entityID: "a"), format: "thumb")
        #expect(looked != nil && held() == 1, "one slot, held twice")
        stored = nil
        #expect(held() == 1, "the lookup still holds it")
        looked = nil
        #expect(held() == 0)
        // Every image let go of: stores and lookups cycle through the two slots without filling them.
        for i in 0..<10 {
            _ = try cache.setImage(source, for: Photo(entityID: "n\(i)"), format: "thumb")
            #expect(cache.cachedImage(for: Photo(entityID: "n\(i)"), format: "thumb") != nil)
        }
        #expect(held() == 0)
        withExtendedLifetime((stored, looked)) {}
    }
}
