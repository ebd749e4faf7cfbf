import Foundation
import ImageCodec
import Testing
@testable import FastImageCache

@Suite struct NamespaceAndPersistenceTests {
    @Test func namespacesInOneDirectoryNeverTouchEachOther() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let source = try ImageDecoder.decode(contentsOf: coffee.path)
        let a = try ImageCache(directory: dir.path, namespace: "alpha", formats: [try thumbFormat(), try mediumFormat()])
        let b = try ImageCache(directory: dir.path, namespace: "beta", formats: [try thumbFormat()])
        try a.setImage(source, for: Photo(entityID: "x"), format: "thumb")
        #expect(b.cachedImage(for: Photo(entityID: "x"), format: "thumb") == nil)
        try b.setImage(source, for: Photo(entityID: "y"), format: "thumb")
        #expect(a.cachedImage(for: Photo(entityID: "y"), format: "thumb") == nil)
        // Reopening beta with other formats removes beta's stray files only.
        b.close()
        let b2 = try ImageCache(directory: dir.path, namespace: "beta", formats: [try mediumFormat()])
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/beta/thumb.fictable"))
        #expect(FileManager.default.fileExists(atPath: dir.path + "/alpha/thumb.fictable"))
        #expect(a.cachedImage(for: Photo(entityID: "x"), format: "thumb") != nil)
        b2.close()
    }

    @Test func filesThatAreNotTablesStayInTheNamespace() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        try FileManager.default.createDirectory(atPath: dir.path + "/ns", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: dir.path + "/ns/old.fictable", contents: Data([1, 2, 3]))
        _ = FileManager.default.createFile(atPath: dir.path + "/ns/thumb.fictable.new-123", contents: Data([1]))
        _ = FileManager.default.createFile(atPath: dir.path + "/outside.txt", contents: Data([1]))
        let cache = try ImageCache(directory: dir.path, namespace: "ns", formats: [try thumbFormat()])
        cache.close()
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/ns").sorted()
        // The table and its side file (the state processes sharing it coordinate through) are the cache's.
        #expect(left == ["old.fictable", "thumb.fictable", "thumb.fictable-shared", "thumb.fictable.new-123"])
        #expect(FileManager.default.fileExists(atPath: dir.path + "/outside.txt"))
    }

    @Test func imagesSurviveReopenAndAChangedFormatInvalidatesThem() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let source = try ImageDecoder.decode(contentsOf: coffee.path)
        var pixels: [UInt8] = []
        do {
            let cache = try ImageCache(directory: dir.path, formats: [try thumbFormat()])
            pixels = try cache.setImage(source, for: Photo(entityID: "x"), format: "thumb").withUnsafeBytes { Array($0) }
            cache.close()
        }
        do {
            let cache = try ImageCache(directory: dir.path, formats: [try thumbFormat()])
            let image = try #require(cache.cachedImage(for: Photo(entityID: "x"), format: "thumb"))
            #expect(image.withUnsafeBytes { Array($0) } == pixels)
            cache.close()
        }
        let changed = try ImageCache(directory: dir.path, formats: [try thumbFormat(max: 101)])
        #expect(changed.cachedImage(for: Photo(entityID: "x"), format: "thumb") == nil, "a changed format invalidates its table")
    }

    /// Two caches on one namespace, as two processes have them: what one stores is a hit in the
    /// other at once, and the same pixels.
    @Test func twoCachesOnTheSameNamespaceShareItsImages() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let first = try ImageCache(directory: dir.path, formats: [try thumbFormat()])
        let second = try ImageCache(directory: dir.path, formats: [try thumbFormat()])
        let source = try ImageDecoder.decode(contentsOf: coffee.path)
        let stored = try first.setImage(source, for: Photo(entityID: "x"), format: "thumb").withUnsafeBytes { Array($0) }
        let seen = try #require(second.cachedImage(for: Photo(entityID: "x"), format: "thumb"))
        #expect(seen.withUnsafeBytes { Array($0) } == stored)
        _ = try second.setImage(source, for: Photo(entityID: "y"), format: "thumb")
        #expect(first.containsImage(for: Photo(entityID: "y"), format: "thumb"))
        // A format of the same name defined otherwise is refused, and changes nothing.
        let e = #expect(throws: ImageCacheError.self) { try ImageCache(directory: dir.path, formats: [try thumbFormat(max: 101)]) }
        #expect(e?.code == .formatConflict, "\(String(describing: e))")
        #expect(first.cachedImage(for: Photo(entityID: "x"), format: "thumb") != nil)
        // Each sees both as having the table open, itself marked.
        let seen1 = try first.openProcesses(format: "thumb")
        #expect(seen1.count == 2 && seen1.filter(\.isThisTable).count == 1, "\(seen1)")
        #expect(seen1.allSatisfy { $0.processID == getpid() && $0.startTime != nil })
        second.close()
        #expect(try first.openProcesses(format: "thumb").count == 1, "the closed one is gone")
        first.close()
        #expect(try first.openProcesses(format: "thumb").isEmpty)
    }
}
