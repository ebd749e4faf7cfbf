import Foundation
import Testing
@testable import ImageTable

@Suite struct PersistenceTests {
    @Test func reopenAfterCloseKeepsImagesAndRecency() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let path = dir.file("t.fictable")
        do {
            let table = try ImageTable(path: path, configuration: config(max: 3))
            try put(table, "a", seed: 1); try put(table, "b", seed: 2); try put(table, "c", seed: 3)
            _ = table.image(for: key("a"))
            table.close()
        }
        let table = try ImageTable(path: path, configuration: config(max: 3))
        #expect(table.statistics.count == 3)
        #expect(table.entries().map(\.label) == ["a", "c", "b"], "recency survives the reopen")
        #expect(hasPattern(try #require(table.image(for: key("b"), source: key("v1"))), seed: 2))
        try put(table, "d")
        #expect(table.image(for: key("c")) == nil, "c is least recent after b was read")
    }

    @Test func aChangedFormatInvalidatesTheTable() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let path = dir.file("t.fictable")
        do {
            let table = try ImageTable(path: path, configuration: config(identity: "v1"))
            try put(table, "a")
            table.close()
        }
        do {
            let table = try ImageTable(path: path, configuration: config(identity: "v2"))
            #expect(table.statistics.count == 0, "another identity discards stored images")
            try put(table, "b")
            table.close()
        }
        let table = try ImageTable(path: path, configuration: config(30, 10, identity: "v2"))
        #expect(table.statistics.count == 0, "another pixel size discards stored images")
    }

    @Test func garbageAndTruncatedFilesAreDetectedAndRebuilt() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let path = dir.file("t.fictable")
        // Garbage.
        try Data((0..<10000).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: URL(fileURLWithPath: path))
        do {
            let table = try ImageTable(path: path, configuration: config())
            #expect(table.statistics.count == 0)
            try put(table, "a", seed: 9)
            table.close()
        }
        // Truncated into its index.
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        try handle.truncate(atOffset: 5000)
        try handle.close()
        do {
            let table = try ImageTable(path: path, configuration: config())
            #expect(table.statistics.count == 0)
            try put(table, "a", seed: 9)
            #expect(hasPattern(try #require(table.image(for: key("a"))), seed: 9))
            table.close()
        }
        // Truncated inside the slots: entries past the end are dropped, the rest is kept.
        let c = config(max: 8, chunkBytes: 4 * 4096)  // 4 slots of 4 KiB per chunk
        #expect(c.slotsPerChunk == 4)
        do {
            let table = try ImageTable(path: path, configuration: c)
            for i in 0..<8 { try put(table, "e\(i)", seed: UInt64(i)) }
            table.close()
        }
        let layout = TableLayout(configuration: c)
        let h2 = try #require(FileHandle(forUpdatingAtPath: path))
        try h2.truncate(atOffset: UInt64(layout.slotOffset(slot: 6) + 100))
        try h2.close()
        let table = try ImageTable(path: path, configuration: c)
        #expect(table.openReport.droppedEntries == 2, "\(table.openReport)")
        #expect(table.statistics.count == 6, "every slot the file still holds whole survives; the cut and missing ones are dropped")
        for i in 0..<6 { #expect(hasPattern(try #require(table.image(for: key("e\(i)"))), seed: UInt64(i))) }
        try put(table, "new", seed: 77)
        #expect(hasPattern(try #require(table.image(for: key("new"))), seed: 77))
    }

    @Test func aDeletedFileIsRecreated() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let path = dir.file("t.fictable")
        do {
            let table = try ImageTable(path: path, configuration: config())
            try put(table, "a")
            table.close()
        }
        try FileManager.default.removeItem(atPath: path)
        let table = try ImageTable(path: path, configuration: config())
        #expect(table.statistics.count == 0)
        try put(table, "a")
        #expect(FileManager.default.fileExists(atPath: path))
    }

    @Test func resetKeepsHeldImagesMappedAndUnchanged() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let path = dir.file("t.fictable")
        let table = try ImageTable(path: path, configuration: config(max: 2))
        let held = try put(table, "a", seed: 11)
        try table.removeAll()
        #expect(table.statistics.count == 0)
        #expect(table.image(for: key("a")) == nil)
        for i in 0..<10 { try put(table, "n\(i)", seed: UInt64(i)) }
        #expect(hasPattern(held, seed: 11), "a held image survives reset: memory is neither unmapped nor truncated")
        table.close()
        #expect(hasPattern(held, seed: 11), "and close")
    }

    /// Writes a (slot 0, seed 1) and b (slot 1, seed 2) into a closed table at `path`, then
    /// overwrites the file at each offset with the given bytes.
    func closedTableWithTwoEntries(_ path: String, _ c: TableConfiguration, damage: [(offset: Int, bytes: [UInt8])]) throws {
        do {
            let table = try ImageTable(path: path, configuration: c)
            try put(table, "a", seed: 1); try put(table, "b", seed: 2)
            table.close()
        }
        let h = try #require(FileHandle(forUpdatingAtPath: path))
        for (offset, bytes) in damage {
            try h.seek(toOffset: UInt64(offset))
            try h.write(contentsOf: Data(bytes))
        }
        try h.close()
    }

    @Test func uncleanShutdownVerifiesEntriesAndDropsDamagedOnes() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let path = dir.file("t.fictable")
        let c = config(max: 4)
        // Damage one pixel of a's slot (slot 0) and mark the file as left open when the system
        // stopped (a power loss: another boot now), which is when pages can be torn.
        let layout = TableLayout(configuration: c)
        try closedTableWithTwoEntries(
            path, c, damage: [(layout.slotOffset(slot: 0) + 10, [0xAB, 0xCD]), (TableHeader.openStateOffset, [1, 0, 0, 0])])
        try simulateRestart(path)
        let table = try ImageTable(path: path, configuration: c)
        #expect(table.openReport.entriesToCheck == 2, "\(table.openReport)")
        #expect(table.image(for: key("a")) == nil, "damaged pixels are never returned")
        #expect(hasPattern(try #require(table.image(for: key("b"))), seed: 2))
        #expect(table.statistics.count == 1)
    }

    @Test func verifyNamesDamagedEntriesAndRepairs() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let path = dir.file("t.fictable")
        let c = config(max: 4)
        let layout = TableLayout(configuration: c)
        try closedTableWithTwoEntries(path, c, damage: [(layout.slotOffset(slot: 1) + 3, [0x55])])  // slot 1: b
        let table = try ImageTable(path: path, configuration: c)
        #expect(table.verify(repair: false).map(\.label) == ["b"])
        #expect(table.verify(repair: true).map(\.label) == ["b"])
        #expect(table.verify(repair: false).isEmpty)
        #expect(table.image(for: key("b")) == nil)
        #expect(table.image(for: key("a")) != nil)
    }

    @Test func bytesWrittenPerInsertAreConstantAsTheTableFills() throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let c = config(16, 16, max: 2000)
        let table = try ImageTable(path: dir.file("t.fictable"), configuration: c)
        var perInsert: [Int] = []
        var last = 0
        for i in 0..<2000 {
            try put(table, "e\(i)", seed: UInt64(i))
            if i % 500 == 499 {
                let now = table.statistics.bytesWritten
                perInsert.append((now - last) / 500)
                last = now
            }
        }
        #expect(perInsert.count == 4)
        #expect(Set(perInsert).count == 1, "bytes per insert must not grow with the table: \(perInsert)")
        // The pixels, then two records: "in flight" before them, the entry after them.
        #expect(perInsert[0] == c.pixelByteCount + 2 * 128)
    }
}
