import Foundation
import Testing
@testable import ImageTable

/// Values read from a table file are hostile: none may trap, and none may make a damaged image
/// look intact.
@Suite struct HostileRecordTests {
    /// A closed table of four entries, and the file offsets of each entry's record.
    func makeTable(_ dir: TemporaryDirectory, _ c: TableConfiguration = config(max: 8)) throws -> (path: String, records: [Int]) {
        let path = dir.file("t.fictable")
        let table = try ImageTable(path: path, configuration: c)
        for i in 0..<4 { try put(table, "e\(i)", seed: UInt64(i)) }
        let slots = table.entries().sorted { $0.label < $1.label }.map(\.slot)
        table.close()
        return (path, slots.map { recordOffset(slot: $0, c) })
    }

    @Test func anAbsurdLastAccessDoesNotTrap() throws {
        let dir = TemporaryDirectory("hostile"); defer { dir.cleanup() }
        let (path, records) = try makeTable(dir)
        for r in records { try patch(path, at: r + IndexRecord.lastAccessOffset, UInt64.max) }
        let table = try ImageTable(path: path, configuration: config(max: 8))
        #expect(table.statistics.count == 4)
        for i in 0..<4 { #expect(hasPattern(try #require(table.image(for: key("e\(i)"))), seed: UInt64(i))) }
        try put(table, "later", seed: 9)
        #expect(table.verify(repair: true).isEmpty)
        table.close()
        #expect(try ImageTable(path: path, configuration: config(max: 8)).statistics.count == 5)
    }

    @Test func aCraftedMaximalSequenceDoesNotTrap() throws {
        let dir = TemporaryDirectory("hostile"); defer { dir.cleanup() }
        let c = config(max: 8)
        let (path, _) = try makeTable(dir, c)
        // A record with a valid checksum and the largest sequence, as an attacker would write it.
        let table = try ImageTable(path: path, configuration: c)
        let slot = try #require(table.entries().first { $0.label == "e0" }).slot
        table.close()
        let record = IndexRecord(entity: key("e0"), source: key("v1"), pixelChecksum: 0, sequence: UInt64.max, label: "e0")
        var bytes = [UInt8](repeating: 0, count: IndexRecord.length)
        bytes.withUnsafeMutableBytes { record.write(to: $0.baseAddress!, slot: slot) }
        try patch(path, at: recordOffset(slot: slot, c), bytes)
        let reopened = try ImageTable(path: path, configuration: c)
        try put(reopened, "after", seed: 3)
        try put(reopened, "e0", source: "v2", seed: 4)
        #expect(hasPattern(try #require(reopened.image(for: key("e0"))), seed: 4))
        reopened.close()
    }

    @Test func aCrashThenAnotherCommandsCleanCloseStillRefusesTornPixels() throws {
        let dir = TemporaryDirectory("hostile"); defer { dir.cleanup() }
        let c = config(max: 8)
        let (path, _) = try makeTable(dir, c)
        // A system crash: the file is left marked open under another boot, and one entry's pixels were torn.
        let probe = try ImageTable(path: path, configuration: c)
        let slot = try #require(probe.entries().first { $0.label == "e2" }).slot
        probe.close()
        try patch(path, at: TableHeader.openStateOffset, UInt32(1))
        try simulateRestart(path)
        try patch(path, at: slotOffset(slot: slot, c) + 10, [UInt8](repeating: 0xAB, count: 64))
        // Another command opens and closes the table cleanly without reading that entry.
        let other = try ImageTable(path: path, configuration: c)
        #expect(other.image(for: key("e1")) != nil)
        other.close()
        let table = try ImageTable(path: path, configuration: c)
        #expect(table.image(for: key("e2")) == nil, "the torn entry is still refused")
        #expect(hasPattern(try #require(table.image(for: key("e3"))), seed: 3))
        table.close()
    }

    @Test func lookupsDoNotWriteTheFile() throws {
        let dir = TemporaryDirectory("hostile"); defer { dir.cleanup() }
        let (path, _) = try makeTable(dir)
        let table = try ImageTable(path: path, configuration: config(max: 8))
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        for _ in 0..<50 { for i in 0..<4 { _ = table.image(for: key("e\(i)")) } }
        let after = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(before == after, "hits leave the file (and its pages) untouched until the table is synchronized or closed")
        table.close()
        let reopened = try ImageTable(path: path, configuration: config(max: 8))
        #expect(reopened.entries().first?.label == "e3", "recency was saved on close")
    }

    /// A table allowed 16 million images holds state (in memory and in its file) for the chunk it
    /// uses, not for its maximum: counted by the table itself, not by how fast it opened.
    @Test func theIndexGrowsWithUse() throws {
        let dir = TemporaryDirectory("hostile"); defer { dir.cleanup() }
        let c = config(32, 32, max: 1 << 24)
        let path = dir.file("big.fictable")
        #expect(c.slotsPerChunk < 2048, "a chunk is a small part of the maximum")
        let table = try ImageTable(path: path, configuration: c)
        #expect(table.statistics.allocatedSlots == 0, "an empty table has no slots yet")
        for i in 0..<7 { try put(table, "e\(i)", seed: UInt64(i)) }
        let used = table.statistics
        #expect(used.maximumCount == 1 << 24)
        #expect(used.allocatedSlots == c.slotsPerChunk, "one chunk of slots, not 16 million")
        #expect(used.bytesWritten < 1 << 20, "7 images and their records written, not an index for 16 million: \(used.bytesWritten) bytes")
        table.close()
        #expect(fileSize(path) < 8 << 20, "7 images of 4 KiB need a small file, not an index for 16 million")
        let reopened = try ImageTable(path: path, configuration: c)
        #expect(reopened.statistics.allocatedSlots == c.slotsPerChunk, "reopening loads the one chunk there is")
        #expect(reopened.statistics.count == 7)
        reopened.close()
    }

    @Test func hugeSlotsAreRefusedWithAClearError() {
        let dir = TemporaryDirectory("hostile"); defer { dir.cleanup() }
        let error = #expect(throws: ImageCacheError.self) {
            try ImageTable(path: dir.file("t.fictable"), configuration: config(32768, 32768, max: 10))
        }
        #expect(error?.code == .invalidConfiguration)
    }
}

/// The file offset of `slot`'s index record (layout of the current version).
func recordOffset(slot: Int, _ c: TableConfiguration) -> Int {
    TableLayout(configuration: c).recordOffset(slot: slot)
}

/// The file offset of `slot`'s pixels.
func slotOffset(slot: Int, _ c: TableConfiguration) -> Int {
    TableLayout(configuration: c).slotOffset(slot: slot)
}

/// Overwrites bytes of a file.
func patch(_ path: String, at offset: Int, _ bytes: [UInt8]) throws {
    let handle = try #require(FileHandle(forUpdatingAtPath: path))
    try handle.seek(toOffset: UInt64(offset))
    try handle.write(contentsOf: Data(bytes))
    try handle.close()
}

/// Overwrites an integer of a file, little-endian.
func patch<T: FixedWidthInteger>(_ path: String, at offset: Int, _ value: T) throws {
    try patch(path, at: offset, withUnsafeBytes(of: value.littleEndian) { Array($0) })
}
