import Foundation
import Testing
@testable import ImageTable

@Suite struct TableBasicsTests {
    @Test func insertThenLookupReturnsTheSamePixelsZeroCopy() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let table = try ImageTable(path: dir.file("t.fictable"), configuration: config())
        let inserted = try put(table, "a", seed: 7)
        let found = try #require(table.image(for: key("a"), source: key("v1")))
        #expect(hasPattern(found, seed: 7))
        #expect(found.baseAddress == inserted.baseAddress, "lookup must return the mapped slot, not a copy")
        #expect(found.width == 20 && found.height == 10)
        #expect(found.bytesPerRow == 128, "20 px × 4 bytes rounded up to 64")
        #expect(Int(bitPattern: found.baseAddress) % 4096 == 0, "slots start on a page")
    }

    @Test func missingAndStaleSourcesReturnNil() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let table = try ImageTable(path: dir.file("t.fictable"), configuration: config())
        #expect(table.image(for: key("nobody")) == nil)
        try put(table, "a", source: "v1")
        #expect(table.image(for: key("a"), source: key("v2")) == nil, "a changed source id makes the entry stale")
        #expect(table.contains(key("a"), source: key("v1")))
        #expect(!table.contains(key("a"), source: key("v2")))
        let stats = table.statistics
        #expect(stats.misses == 2)
        #expect(stats.hits == 0)
    }

    @Test func replacingAnEntryKeepsTheHeldOldImageIntact() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let table = try ImageTable(path: dir.file("t.fictable"), configuration: config(max: 3))
        let old = try put(table, "a", source: "v1", seed: 1)
        try put(table, "a", source: "v2", seed: 2)
        try put(table, "b", seed: 3)
        #expect(table.statistics.count == 2)
        #expect(table.statistics.heldImages == 1, "the replaced slot stays held, outside the index")
        #expect(hasPattern(old, seed: 1), "the held v1 image must not be overwritten")
        let now = try #require(table.image(for: key("a"), source: key("v2")))
        #expect(hasPattern(now, seed: 2))
    }

    @Test func removeDeletesOnlyThatEntity() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let table = try ImageTable(path: dir.file("t.fictable"), configuration: config())
        try put(table, "a"); try put(table, "b")
        #expect(table.remove(key("a")))
        #expect(!table.remove(key("a")))
        #expect(table.image(for: key("a")) == nil)
        #expect(table.image(for: key("b")) != nil)
    }

    @Test func failedDrawLeavesNothingBehind() throws {
        struct DrawFailed: Error {}
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let table = try ImageTable(path: dir.file("t.fictable"), configuration: config(max: 1))
        #expect(throws: DrawFailed.self) {
            try table.insert(entity: key("a"), source: key("v1")) { _ in throw DrawFailed() }
        }
        #expect(table.statistics.count == 0)
        try put(table, "b", seed: 5)
        #expect(hasPattern(try #require(table.image(for: key("b"))), seed: 5), "the slot given back is reusable")
    }

    @Test func invalidConfigurationsAreRefused() {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        #expect(throws: ImageCacheError.self) { try ImageTable(path: dir.file("a"), configuration: config(0, 10)) }
        #expect(throws: ImageCacheError.self) { try ImageTable(path: dir.file("b"), configuration: config(bpp: 3)) }
        #expect(throws: ImageCacheError.self) { try ImageTable(path: dir.file("c"), configuration: config(max: 0)) }
    }

    /// A second open of the same file joins the first (see `SharedOpenTests`); only an opener
    /// that does not share, a reader alone, keeps writers out.
    @Test func aSecondOpenOfTheSameFileSharesIt() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let table = try ImageTable(path: dir.file("t.fictable"), configuration: config())
        _ = try put(table, "a", seed: 1)
        let second = try ImageTable(path: dir.file("t.fictable"), configuration: config())
        #expect(hasPattern(try #require(second.image(for: key("a"))), seed: 1))
        second.close()
        table.close()
    }

    @Test func unwritablePlacesGiveAnErrorWithErrno() {
        let error = #expect(throws: ImageCacheError.self) {
            try ImageTable(path: "/proc/no-such-dir/t.fictable", configuration: config())
        }
        #expect(error?.errno != nil)
        #expect(error?.path == "/proc/no-such-dir", "the folder that could not be made is named: \(String(describing: error))")
    }
}

@Suite struct ResidencyTests {
    @Test func releasedPagesComeBackFromTheFileUnchanged() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let c = config(256, 64, max: 8)
        let table = try ImageTable(path: dir.file("t.fictable"), configuration: c)
        let image = try put(table, "a", seed: 42)
        image.releaseResidentPages()
        #expect(hasPattern(image, seed: 42), "dirty pages survive MADV_DONTNEED on a shared file mapping")
        table.releaseResidentMemory()
        table.close()
        let reopened = try ImageTable(path: dir.file("t.fictable"), configuration: c)
        #expect(hasPattern(try #require(reopened.image(for: key("a"))), seed: 42))
    }
}
