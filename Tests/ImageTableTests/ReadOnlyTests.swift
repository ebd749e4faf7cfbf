import Foundation
import Testing
@testable import ImageTable

/// Tables on read-only media, and tables opened for reading only: readable, and never written.
@Suite struct ReadOnlyTests {
    @Test func readingOnlyWritesNothing() throws {
        let dir = TemporaryDirectory("ro"); defer { dir.cleanup() }
        let path = dir.file("t.fictable")
        let table = try ImageTable(path: path, configuration: config())
        for i in 0..<5 { try put(table, "e\(i)", seed: UInt64(i)) }
        table.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let reader = try ImageTable(path: path, configuration: config(), options: TableOpenOptions(readOnly: true))
        #expect(reader.openReport.isReadOnly)
        for i in 0..<5 { #expect(hasPattern(try #require(reader.image(for: key("e\(i)"))), seed: UInt64(i))) }
        #expect(reader.verify(repair: true).isEmpty)
        #expect(!reader.remove(key("e0")))
        let error = #expect(throws: ImageCacheError.self) { try put(reader, "x") }
        #expect(error?.code == .readOnly)
        // Readers share the file; a writer waits for them.
        let second = try ImageTable(path: path, configuration: config(), options: TableOpenOptions(readOnly: true))
        #expect((#expect(throws: ImageCacheError.self) { try ImageTable(path: path, configuration: config()) })?.code == .inUse)
        second.close()
        reader.close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "not a byte changed")
    }

    @Test(.enabled(if: DiskFullTests.canMountTmpfs, "mounting a tmpfs needs root with CAP_SYS_ADMIN"))
    func aTableOnAReadOnlyFileSystemIsReadable() throws {
        let dir = TemporaryDirectory("rofs"); defer { dir.cleanup() }
        guard mount("tmpfs", dir.path, "tmpfs", 0, "size=4m") == 0 else {
            Issue.record("mount failed: errno \(errno)")
            return
        }
        defer { umount(dir.path) }
        let path = dir.file("cache/t.fictable")
        do {
            let table = try ImageTable(path: path, configuration: config())
            for i in 0..<3 { try put(table, "e\(i)", seed: UInt64(i)) }
            table.close()
        }
        #expect(mount("tmpfs", dir.path, "tmpfs", UInt(MS_REMOUNT | MS_RDONLY), "size=4m") == 0, "remounted read-only: errno \(errno)")
        let table = try ImageTable(path: path, configuration: config())
        #expect(table.openReport.isReadOnly, "opened read-only without being asked")
        for i in 0..<3 { #expect(hasPattern(try #require(table.image(for: key("e\(i)"))), seed: UInt64(i))) }
        #expect(table.verify(repair: false).isEmpty)
        #expect((#expect(throws: ImageCacheError.self) { try put(table, "x") })?.code == .readOnly)
        table.close()
        // A table that does not exist cannot be made there: a clear error.
        let missing = #expect(throws: ImageCacheError.self) {
            try ImageTable(path: dir.file("cache/none.fictable"), configuration: config())
        }
        #expect(missing?.code == .readOnly || missing?.errno == .noSuchFileOrDirectory, "\(String(describing: missing))")
    }
}

/// Tables written on a system with another page size (16 KiB and 64 KiB pages on some arm64
/// distributions), simulated through the configuration's page size.
@Suite struct PageSizeTests {
    func config16k(max: Int = 8) -> TableConfiguration {
        TableConfiguration(
            pixelWidth: 20, pixelHeight: 10, bytesPerPixel: 4, maximumCount: max, identity: "test", chunkBytes: 4 << 20, pageSize: 16384)
    }

    @Test func everyOffsetIsAMultipleOfThePageSize() {
        for pageSize in [4096, 16384, 65536] {
            let c = TableConfiguration(
                pixelWidth: 33, pixelHeight: 7, bytesPerPixel: 2, maximumCount: 50, identity: "x", chunkBytes: 1 << 20, pageSize: pageSize)
            let layout = TableLayout(configuration: c)
            for slot in [0, 1, 17, 49] {
                #expect(layout.slotOffset(slot: slot) % pageSize == 0)
                #expect(layout.chunkOffset(slot / layout.slotsPerChunk) % pageSize == 0)
            }
        }
    }

    @Test func aTableOfAnotherPageSizeIsRebuiltAndWorks() throws {
        let dir = TemporaryDirectory("pages"); defer { dir.cleanup() }
        let path = dir.file("t.fictable")
        do {
            let table = try ImageTable(path: path, configuration: config())
            try put(table, "a", seed: 1)
            table.close()
        }
        // "Another system", with 16 KiB pages, opens the 4 KiB table: rebuilt, then fully usable.
        do {
            let table = try ImageTable(path: path, configuration: config16k())
            #expect(table.openReport.rebuildReason?.contains("16384") == true, "\(table.openReport)")
            #expect(table.openReport.lostImages == false, "a page-size change is not damage")
            for i in 0..<8 { try put(table, "b\(i)", seed: UInt64(i)) }
            table.close()
        }
        do {
            let table = try ImageTable(path: path, configuration: config16k())
            #expect(table.openReport.rebuildReason == nil)
            for i in 0..<8 { #expect(hasPattern(try #require(table.image(for: key("b\(i)"))), seed: UInt64(i))) }
            table.close()
        }
        // And back.
        let table = try ImageTable(path: path, configuration: config())
        #expect(table.openReport.rebuildReason?.contains("16384") == true)
        try put(table, "c", seed: 3)
        #expect(hasPattern(try #require(table.image(for: key("c"))), seed: 3))
        table.close()
    }
}
