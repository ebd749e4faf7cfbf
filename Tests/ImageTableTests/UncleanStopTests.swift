import FICCore
import FICTestSupport
import Foundation
import Logging
import Testing
@testable import ImageTable

/// A table its process left open: trusted as it is on the same boot, as the same file, on a
/// local file system; checked entry by entry in every other case. The on-disk state a stopped
/// process leaves is made here by closing a table and marking its header open again (a stopped
/// writer's page cache holds exactly what it wrote); the crash-recovery tests make it by killing
/// real processes.
@Suite struct UncleanStopTests {
    /// A closed table of three entries whose header then says "left open" again.
    func leftOpenTable(_ path: String, _ c: TableConfiguration = config(max: 8)) throws {
        let table = try ImageTable(path: path, configuration: c)
        for i in 0..<3 { try put(table, "e\(i)", seed: UInt64(i)) }
        table.close()
        try patch(path, at: TableHeader.openStateOffset, UInt32(1))
    }

    @Test func aStopOnTheSameBootCostsNoCheck() throws {
        let dir = TemporaryDirectory("stop"); defer { dir.cleanup() }
        let path = dir.file("t.fictable")
        try leftOpenTable(path)
        let logs = CapturedLogs()
        let table = try ImageTable(path: path, configuration: config(max: 8), logger: logs.logger)
        #expect(table.openReport.uncleanStop == .processStopped)
        #expect(table.openReport.entriesToCheck == 0 && table.openReport.interruptedWrites == 0)
        #expect(table.openReport.description.isEmpty, "an ordinary stop is nothing to report: \(table.openReport)")
        #expect(logs.messages(atLeast: .notice).isEmpty, "an ordinary stop is logged at debug only: \(logs.messages(atLeast: .notice))")
        #expect(logs.messages(atLeast: .debug).contains { $0.contains("not closed") })
        #expect(table.entries().count == 3)
        for i in 0..<3 { #expect(hasPattern(try #require(table.image(for: key("e\(i)"))), seed: UInt64(i))) }
    }

    @Test func aStopOnTheSameBootWritesNothingWhenReopened() throws {
        let dir = TemporaryDirectory("stop"); defer { dir.cleanup() }
        let path = dir.file("t.fictable")
        try leftOpenTable(path)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let table = try ImageTable(path: path, configuration: config(max: 8))
        let after = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(before == after, "no record is re-marked and the header already names this session")
        table.close()
    }

    @Test func anInterruptedWriteIsDroppedAndCountedAtNotice() throws {
        let dir = TemporaryDirectory("stop"); defer { dir.cleanup() }
        let path = dir.file("t.fictable")
        let c = config(max: 8)
        try leftOpenTable(path, c)
        // Slot 3 was being written for e9 when the process stopped: its record says so.
        var record = [UInt8](repeating: 0, count: IndexRecord.length)
        record.withUnsafeMutableBytes {
            IndexRecord.inFlight(entity: key("e9"), source: key("v1"), label: "e9").write(to: $0.baseAddress!, slot: 3)
        }
        try patch(path, at: recordOffset(slot: 3, c), record)
        let logs = CapturedLogs()
        let table = try ImageTable(path: path, configuration: c, logger: logs.logger)
        #expect(table.openReport.interruptedWrites == 1, "\(table.openReport)")
        #expect(table.openReport.entriesToCheck == 0 && table.openReport.droppedEntries == 0)
        #expect(!table.openReport.lostImages, "nothing stored was lost")
        #expect(table.image(for: key("e9")) == nil)
        #expect(
            logs.messages(atLeast: .notice).contains { $0.contains("1 images being written were dropped") },
            "\(logs.messages(atLeast: .debug))")
        try put(table, "e9", seed: 9)
        #expect(hasPattern(try #require(table.image(for: key("e9"))), seed: 9), "the slot is free again")
    }

    @Test func anInFlightRecordInACleanlyClosedTableIsDamage() throws {
        let dir = TemporaryDirectory("stop"); defer { dir.cleanup() }
        let path = dir.file("t.fictable")
        let c = config(max: 8)
        try leftOpenTable(path, c)
        try patch(path, at: TableHeader.openStateOffset, UInt32(0))
        var record = [UInt8](repeating: 0, count: IndexRecord.length)
        record.withUnsafeMutableBytes {
            IndexRecord.inFlight(entity: key("e9"), source: key("v1"), label: "e9").write(to: $0.baseAddress!, slot: 3)
        }
        try patch(path, at: recordOffset(slot: 3, c), record)
        let table = try ImageTable(path: path, configuration: c)
        #expect(table.openReport.uncleanStop == nil)
        #expect(table.openReport.droppedEntries == 1 && table.openReport.interruptedWrites == 0, "\(table.openReport)")
        #expect(table.entries().count == 3)
    }

    @Test func aRestartMakesEveryEntryBeCheckedAndSaysSoAtNotice() throws {
        let dir = TemporaryDirectory("stop"); defer { dir.cleanup() }
        let path = dir.file("t.fictable")
        try leftOpenTable(path)
        try simulateRestart(path)
        let logs = CapturedLogs()
        let table = try ImageTable(path: path, configuration: config(max: 8), logger: logs.logger)
        #expect(table.openReport.uncleanStop == .pageCacheMayBeLost(reason: "the system has restarted since it was written"))
        #expect(table.openReport.entriesToCheck == 3)
        #expect(table.openReport.description.contains("each of its 3 images is checked"), "\(table.openReport)")
        #expect(
            logs.messages(atLeast: .notice).contains { $0.contains("each of its 3 entries is checked") },
            "\(logs.messages(atLeast: .debug))")
        for i in 0..<3 { #expect(hasPattern(try #require(table.image(for: key("e\(i)"))), seed: UInt64(i))) }
    }

    @Test func aCopyOfATableLeftOpenIsChecked() throws {
        let dir = TemporaryDirectory("stop"); defer { dir.cleanup() }
        let original = dir.file("t.fictable"), copy = dir.file("copy.fictable")
        try leftOpenTable(original)
        try FileManager.default.copyItem(atPath: original, toPath: copy)
        let table = try ImageTable(path: copy, configuration: config(max: 8))
        #expect(
            table.openReport.uncleanStop == .pageCacheMayBeLost(reason: "it is a copy of a table written elsewhere"), "\(table.openReport)")
        #expect(table.openReport.entriesToCheck == 3)
    }

    @Test func aTableWithoutASessionIsChecked() throws {
        let dir = TemporaryDirectory("stop"); defer { dir.cleanup() }
        let path = dir.file("t.fictable")
        try leftOpenTable(path)
        // As written by an earlier version, or damaged: no boot recorded.
        try patch(path, at: TableHeader.sessionOffset, [UInt8](repeating: 0, count: 32))
        let table = try ImageTable(path: path, configuration: config(max: 8))
        #expect(table.openReport.uncleanStop == .pageCacheMayBeLost(reason: "the system's boot cannot be told"), "\(table.openReport)")
        #expect(table.openReport.entriesToCheck == 3)
    }

    @Test func entriesLeftUncheckedByAnEarlierRestartStayMarkedAcrossAStop() throws {
        let dir = TemporaryDirectory("stop"); defer { dir.cleanup() }
        let path = dir.file("t.fictable")
        let c = config(max: 8)
        try leftOpenTable(path, c)
        try simulateRestart(path)
        do {
            // Opened after the restart; e0 is read (and checked), then the process stops.
            let table = try ImageTable(path: path, configuration: c)
            #expect(table.openReport.entriesToCheck == 3)
            _ = table.image(for: key("e0"))
            try table.synchronize()
            table.close()
        }
        try patch(path, at: TableHeader.openStateOffset, UInt32(1))
        // e2's pixels are damaged meanwhile: it was never checked, so it still must be.
        let e2 = try slotOfEntry("e2", path, c)
        try patch(path, at: slotOffset(slot: e2, c) + 7, [UInt8](repeating: 0x33, count: 16))
        let table = try ImageTable(path: path, configuration: c)
        #expect(table.openReport.uncleanStop == .processStopped)
        #expect(table.openReport.entriesToCheck == 2, "e1 and e2 were never checked: \(table.openReport)")
        #expect(table.image(for: key("e2")) == nil, "the unchecked, damaged entry is refused")
        #expect(hasPattern(try #require(table.image(for: key("e0"))), seed: 0))
    }

    @Test func aReadOnlyOpenAfterAStopTrustsTheTableAndWritesNothing() throws {
        let dir = TemporaryDirectory("stop"); defer { dir.cleanup() }
        let path = dir.file("t.fictable")
        try leftOpenTable(path)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let table = try ImageTable(path: path, configuration: config(max: 8), options: TableOpenOptions(readOnly: true))
        #expect(table.openReport.uncleanStop == .processStopped && table.openReport.entriesToCheck == 0)
        for i in 0..<3 { #expect(hasPattern(try #require(table.image(for: key("e\(i)"))), seed: UInt64(i))) }
        table.close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func networkAndClusterFileSystemsAreNeverTrusted() {
        let boot = BootIdentifier(bytes: [UInt8](repeating: 7, count: 16))
        let session = WriterSession(boot: boot, device: 1, inode: 2)
        #expect(session.distrust(reopenedUnder: session, on: FileSystemKind(magic: 0xEF53)) == nil, "ext4, same boot, same file")
        for magic: UInt64 in [0x6969, 0xFF53_4D42, 0x6573_5546, 0x7461_636F] {
            #expect(
                session.distrust(reopenedUnder: session, on: FileSystemKind(magic: magic)) == "it lives on a network or cluster file system"
            )
        }
    }

    @Test func bootIdentifiersParseAsLinuxWritesThem() {
        let id = BootIdentifier(text: "947314e5-47dd-4766-85d3-dfb099fcf7b2\n")
        #expect(id?.bytes == [0x94, 0x73, 0x14, 0xE5, 0x47, 0xDD, 0x47, 0x66, 0x85, 0xD3, 0xDF, 0xB0, 0x99, 0xFC, 0xF7, 0xB2])
        #expect(id?.description == "947314e5-47dd-4766-85d3-dfb099fcf7b2")
        for bad in [
            "", "947314e5", "947314e5-47dd-4766-85d3-dfb099fcf7bz", "00000000-0000-0000-0000-000000000000",
            "947314e5x47dd-4766-85d3-dfb099fcf7b2x"
        ] {
            #expect(BootIdentifier(text: bad) == nil, "\(bad)")
        }
        #expect(BootIdentifier.current != nil, "Linux names its boot")
    }

    func slotOfEntry(_ name: String, _ path: String, _ c: TableConfiguration) throws -> Int {
        let table = try ImageTable(path: path, configuration: c, options: TableOpenOptions(readOnly: true))
        defer { table.close() }
        return try #require(table.entries().first { $0.label == name }).slot
    }
}
