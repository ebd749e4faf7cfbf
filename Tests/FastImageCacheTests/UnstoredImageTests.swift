import FICCore
import FICTestSupport
import Foundation
@testable import FastImageCache
@testable import ImageTable
import Testing

/// A request while another process is stopped in the middle of a store into the same table
/// (it holds the table's writer lock): the request still gets its image, drawn into memory of
/// its own, and the table is left as it was; once the lock is free, the next request stores.
@Suite struct UnstoredImageTests {
    @Test func aRequestGetsItsImageUnstoredWhileAnotherProcessHoldsTheWriterLock() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let cache = try ImageCache(
            directory: dir.path, formats: [try thumbFormat()], provider: CountingProvider(),
            options: TableOpenOptions(writerTimeout: .milliseconds(20)))
        defer { cache.close() }
        // "The other process": its own open file of the table's side file, holding the writer lock.
        let folder = try Directory.open(dir.path + "/default", create: false)
        let sideFile = try folder.openFile("thumb.fictable-shared", writable: true)
        defer { sideFile.closeQuietly() }
        #expect(try SharedWriterLock.acquire(sideFile, timeout: .zero, path: nil))
        let photo = Photo(entityID: "coffee", url: coffee)
        let unstored = try await cache.image(for: photo, format: "thumb")
        #expect(!cache.containsImage(for: photo, format: "thumb"), "nothing was stored")
        #expect(cache.cachedImage(for: photo, format: "thumb") == nil)
        // Once the lock is free, the same request stores, and the two images are the same picture.
        try SharedWriterLock.release(sideFile, path: nil)
        let stored = try await cache.image(for: photo, format: "thumb")
        #expect(cache.containsImage(for: photo, format: "thumb"))
        #expect(stored.baseAddress != unstored.baseAddress)
        let same = unstored.withUnsafeBytes { a in
            stored.withUnsafeBytes { b in a.count == b.count && memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0 }
        }
        #expect(same, "the unstored image is the picture the table stores")
    }
}
