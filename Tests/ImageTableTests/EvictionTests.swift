import Foundation
import Testing
@testable import ImageTable

@Suite struct EvictionTests {
    @Test func leastRecentlyUsedIsEvictedAtTheMaximum() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let table = try ImageTable(path: dir.file("t.fictable"), configuration: config(max: 3))
        try put(table, "a"); try put(table, "b"); try put(table, "c")
        _ = table.image(for: key("a"))  // a is now the most recent; b is least recent
        try put(table, "d")
        #expect(table.image(for: key("b")) == nil, "b was least recently used")
        #expect(table.image(for: key("a")) != nil)
        #expect(table.image(for: key("c")) != nil)
        #expect(table.image(for: key("d")) != nil)
        #expect(table.statistics.evictions == 1)
        #expect(table.entries().map(\.label) == ["d", "c", "a"])
    }

    @Test func maximumCountIsAHardLimitOnSlotsAndFileSize() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let c = config(max: 5, chunkBytes: 1 << 30)  // a chunk would hold far more than 5
        let table = try ImageTable(path: dir.file("t.fictable"), configuration: c)
        for i in 0..<50 { try put(table, "e\(i)") }
        let s = table.statistics
        #expect(s.count == 5)
        #expect(s.allocatedSlots == 5)
        let layout = TableLayout(configuration: c)
        #expect(layout.maximumChunks == 1)
        #expect(fileSize(dir.file("t.fictable")) == layout.chunkOffset(0) + layout.chunkByteCount(0))
        #expect(layout.chunkByteCount(0) == layout.recordsLength + 5 * c.slotLength)
    }

    @Test func fileGrowsChunkByChunkNotToTheMaximumAtOnce() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let c = config(64, 64, max: 1000, chunkBytes: 4 * 16384)  // 16 KiB slots, 4 per chunk
        let table = try ImageTable(path: dir.file("t.fictable"), configuration: c)
        let layout = TableLayout(configuration: c)
        #expect(fileSize(dir.file("t.fictable")) == c.pageSize, "a new table is its header page")
        try put(table, "a")
        #expect(fileSize(dir.file("t.fictable")) == layout.chunkOffset(1))
        #expect(layout.chunkOffset(1) == c.pageSize + c.pageSize + 4 * c.slotLength, "index records and slots of one chunk")
        for i in 0..<4 { try put(table, "b\(i)") }
        #expect(fileSize(dir.file("t.fictable")) == layout.chunkOffset(2))
    }

    @Test func heldImagesAreNeverReusedAndStayUnchangedUnderPressure() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let table = try ImageTable(path: dir.file("t.fictable"), configuration: config(max: 4))
        let held = try (0..<3).map { try put(table, "held\($0)", seed: UInt64(100 + $0)) }
        for i in 0..<200 { try put(table, "churn\(i)", seed: UInt64(i)) }
        for (i, image) in held.enumerated() { #expect(hasPattern(image, seed: UInt64(100 + i))) }
        #expect(table.statistics.count == 4)
        #expect(table.statistics.heldImages == 3)
    }

    @Test func whenEverySlotIsHeldInsertFailsClearlyAndChangesNothing() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let table = try ImageTable(path: dir.file("t.fictable"), configuration: config(max: 2))
        let a = try put(table, "a", seed: 1)
        let b = try put(table, "b", seed: 2)
        let error = #expect(throws: ImageCacheError.self) { try put(table, "c") }
        #expect(error?.code == .tableFull)
        #expect(table.statistics.count == 2)
        #expect(hasPattern(a, seed: 1) && hasPattern(b, seed: 2))
        _ = consume a
        try put(table, "c", seed: 3)  // now "a"'s slot can be evicted
        #expect(table.image(for: key("a")) == nil)
        #expect(hasPattern(b, seed: 2))
    }
}
