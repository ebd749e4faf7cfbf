import FICCore
import FICTestSupport
import Foundation
import ImageCodec
import Testing
@testable import FastImageCache

/// Several caches storing into one namespace at once, as several processes do (each cache object
/// opens its own file descriptions, so to the kernel they are as separate as processes): a source
/// is decoded once among them, and a store that finds another making the same images waits for
/// them rather than decoding again.
@Suite struct SharedStoringTests {
    static func formats() throws -> [ImageFormat] { [try thumbFormat(), try mediumFormat()] }

    @Test func aStoreWaitsForAnotherCacheMakingTheSameImagesAndDecodesNothing() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let maker = try ImageCache(directory: dir.path, formats: try Self.formats())
        // The waiter would give up on the maker after its claim timeout and decode; the test holds
        // the maker until it has seen the waiter wait, which on a loaded machine (every test at
        // once, under a sanitizer) came after the default minute.
        let waiter = try ImageCache(
            directory: dir.path, formats: try Self.formats(), options: TableOpenOptions(claimTimeout: .seconds(600)))
        let photo = Photo(entityID: "x")
        // The maker draws solid blue, which decoding the waiter's bytes (coffee) never gives: a
        // blue image in the waiter is the maker's.
        let blue = makeCanvasTestImage(width: 100, height: 100) { _, _ in CanvasBGRA.blue }
        let decoding = LockedBox(false), gate = DispatchSemaphore(value: 0)
        let made = LockedBox<Result<StoredImages, any Error>?>(nil)
        Thread {
            let result = Result {
                try maker.storeImages(for: photo) { _ in
                    decoding.withLockedValue { $0 = true }
                    _ = gate.wait(timeout: .now() + 600)
                    return blue
                }
            }
            made.withLockedValue { $0 = result }
        }.start()
        try await waitUntil("the maker is decoding") { decoding.withLockedValue { $0 } }

        let stored = LockedBox<Result<StoredImages, any Error>?>(nil)
        let bytes = [UInt8](try Data(contentsOf: coffee))
        Thread {
            let result = Result { try waiter.storeImages(from: .encoded(bytes), for: photo) }
            stored.withLockedValue { $0 = result }
        }.start()
        try await waitUntil("the second store waits for the maker") { waiter.statistics.storesThatWaited == 1 }
        #expect(stored.withLockedValue { $0 } == nil, "it cannot return before the maker has stored")
        gate.signal()
        try await waitUntil("both stores have returned") { made.withLockedValue { $0 } != nil && stored.withLockedValue { $0 } != nil }

        _ = try #require(made.withLockedValue { $0 }).get()
        let images = try #require(stored.withLockedValue { $0 }).get()
        let medium = try #require(images["medium"])
        let allBlue = medium.withUnsafeBytes { b in
            (0..<medium.height).allSatisfy { y in
                (0..<medium.width).allSatisfy { x in
                    Array(b[y * medium.bytesPerRow + x * 4..<y * medium.bytesPerRow + x * 4 + 4]) == CanvasBGRA.blue
                }
            }
        }
        #expect(allBlue, "the waiter returns the maker's images")
        #expect(images["thumb"] != nil)
        #expect(waiter.statistics.sourceDecodes == 0, "nothing decoded by the waiter")
        #expect(waiter.statistics.storesMadeByOthers == 1)
        #expect(maker.statistics.storesThatWaited == 0)
    }

    /// A maker held in the middle keeps a store waiting only for the store's cache's
    /// ``TableOpenOptions/claimTimeout``: then it decodes the source itself, while the maker is
    /// still held. (The maker lets go by itself after 55 s: a store that ignored its 50 ms
    /// timeout and waited the default minute would get the maker's blue images instead.) A try
    /// whose store began only after the maker let go (this thread held that long, as on a loaded
    /// machine under Thread Sanitizer) shows nothing, and is made again with another photo.
    @Test func aStoreGivesUpOnAHeldMakerAfterItsClaimTimeout() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let maker = try ImageCache(directory: dir.path, formats: try Self.formats())
        let waiter = try ImageCache(
            directory: dir.path, formats: try Self.formats(), options: TableOpenOptions(claimTimeout: .milliseconds(50)))
        let blue = makeCanvasTestImage(width: 100, height: 100) { _, _ in CanvasBGRA.blue }
        for attempt in 1...3 {
            let photo = Photo(entityID: "x\(attempt)")
            let decoding = LockedBox(false), makerFinished = LockedBox(false)
            let gate = DispatchSemaphore(value: 0), makerDone = DispatchSemaphore(value: 0)
            defer {
                gate.signal()
                _ = makerDone.wait(timeout: .now() + 600)
            }
            Thread {
                _ = try? maker.storeImages(for: photo) { _ in
                    decoding.withLockedValue { $0 = true }
                    _ = gate.wait(timeout: .now() + 55)
                    return blue
                }
                makerFinished.withLockedValue { $0 = true }
                makerDone.signal()
            }.start()
            try await waitUntil("the maker is decoding") { decoding.withLockedValue { $0 } }
            if makerFinished.withLockedValue({ $0 }) && attempt < 3 { continue }
            let waited = waiter.statistics.storesThatWaited, decoded = waiter.statistics.sourceDecodes
            let others = waiter.statistics.storesMadeByOthers

            let images = try waiter.storeImages(from: .encoded([UInt8](try Data(contentsOf: coffee))), for: photo)
            #expect(!makerFinished.withLockedValue { $0 }, "the maker is still held")
            #expect(waiter.statistics.storesThatWaited == waited + 1)
            #expect(waiter.statistics.sourceDecodes == decoded + 1, "the waiter decoded the source itself")
            #expect(waiter.statistics.storesMadeByOthers == others)
            let medium = try #require(images["medium"])
            let first = medium.withUnsafeBytes { Array($0[0..<4]) }
            #expect(first != CanvasBGRA.blue, "the waiter's own picture, not the maker's")
            return
        }
    }

    @Test func cachesStoringTheSameSourcesAtOnceDecodeEachOnce() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let caches = [
            try ImageCache(directory: dir.path, formats: try Self.formats()),
            try ImageCache(directory: dir.path, formats: try Self.formats())
        ]
        let sources = [coffee, astronaut].map { [UInt8](try! Data(contentsOf: $0)) }
        let count = 24
        let failures = LockedBox(0), finished = LockedBox(0)
        for (c, cache) in caches.enumerated() {
            // One stores from the first entity on, the other from the last: they meet in the middle.
            let order = c == 0 ? Array(0..<count) : Array((0..<count).reversed())
            Thread {
                for i in order {
                    do {
                        try cache.storeImages(from: .encoded(sources[i % 2]), for: Photo(entityID: "e\(i)"))
                    } catch {
                        failures.withLockedValue { $0 += 1 }
                    }
                }
                finished.withLockedValue { $0 += 1 }
            }.start()
        }
        try await waitUntil("both caches have stored every entity") { finished.withLockedValue { $0 } == 2 }
        #expect(failures.withLockedValue { $0 } == 0)
        let decodes = caches.map(\.statistics.sourceDecodes)
        #expect(decodes.reduce(0, +) == count, "each source decoded once between the two: \(decodes)")
        for i in 0..<count {
            for cache in caches { #expect(cache.containsImages(for: Photo(entityID: "e\(i)"))) }
        }
    }
    @Test func requestsForTheSameEntityInTwoCachesDecodeItOnce() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let provider = GatedProvider()
        let caches = [
            try ImageCache(directory: dir.path, formats: try Self.formats(), provider: provider),
            try ImageCache(directory: dir.path, formats: try Self.formats(), provider: provider)
        ]
        let photo = Photo(entityID: "x", url: URL(fileURLWithPath: "/photos/x.jpg"))
        async let first = caches[0].image(for: photo, format: "thumb")
        async let second = caches[1].image(for: photo, format: "thumb")
        // Both have fetched the source before either decodes: without claims, both would decode it.
        try await waitUntil("both caches are fetching the source") { provider.started.count == 2 }
        provider.releaseAll()
        let images = try await [first, second]

        let decodes = caches.map(\.statistics.sourceDecodes)
        #expect(decodes.reduce(0, +) == 1, "one decode between the two caches: \(decodes)")
        #expect(caches.map(\.statistics.storesMadeByOthers).reduce(0, +) == 1, "the other served what the first made")
        let bytes = images.map { image in image.withUnsafeBytes { Array($0) } }
        #expect(bytes[0] == bytes[1])
        #expect(bytes[0].contains { $0 != 0 }, "a picture, not an empty slot")
    }
}
