import FICCore
import FICTestSupport
import Foundation
@testable import ImageTable
import Testing

/// A record read with no lock while a writer rewrites it (``SlotCells/committedRecord(_:at:)``):
/// a writer thread claims, rewrites and publishes one slot again and again, each version naming
/// its own entity; a reader thread copying it must only ever get the record its word's version
/// names, or nothing.
@Suite struct SlotRecordReadTests {
    @Test func aReaderGetsTheRecordItsWordNamesOrNothing() async throws {
        let layout = try SharedStateLayout(pageSize: 4096, slotsPerChunk: 16, maximumCount: 16)
        let length = layout.fileLength(chunks: 1, region: 0, buckets: 2)
        let memory = UnsafeMutableRawPointer.allocate(byteCount: length + IndexRecord.length, alignment: 4096)
        defer { memory.deallocate() }
        memory.initializeMemory(as: UInt8.self, repeating: 0, count: length + IndexRecord.length)
        let rounds = 20_000
        // Committed versions are 2, 4, 6, …: the claim takes one, the publication the next.
        let keys = (0...(2 * rounds + 2)).map { TableKey("entity of version \($0)") }
        let address = UInt(bitPattern: memory)
        let reads = LockedBox(0), done = LockedBox(false)

        let cells = SlotCells(base: memory, layout: layout)
        IndexRecord(entity: keys[0], source: keys[0], pixelChecksum: 1, sequence: 1, label: "").write(to: memory + length, slot: 3)
        cells.publish(3, .committed(version: 0))

        async let reader: (wrong: Int, right: Int) = OwnThread.running {
            let base = UnsafeMutableRawPointer(bitPattern: address)!
            let cells = SlotCells(base: base, layout: layout)
            var wrong = 0, right = 0
            while !done.withLockedValue({ $0 }) {
                guard let (word, record) = cells.committedRecord(3, at: UnsafeRawPointer(base + length)) else { continue }
                if Int(word.version) < keys.count && record.entity == keys[Int(word.version)] { right += 1 } else { wrong += 1 }
                reads.withLockedValue { $0 += 1 }
            }
            return (wrong, right)
        }
        try await waitUntil("the reader runs") { reads.withLockedValue { $0 } > 0 }
        for _ in 0..<rounds {
            let claimed = try #require(cells.claim(3, owner: 0) { _ in true })
            let version = SlotCells.version(after: claimed.version)
            IndexRecord(entity: keys[Int(version)], source: keys[0], pixelChecksum: version, sequence: version, label: "v").write(
                to: memory + length, slot: 3)
            cells.publish(3, .committed(version: version))
        }
        done.withLockedValue { $0 = true }
        let (wrong, right) = try await reader
        #expect(wrong == 0, "\(wrong) reads returned a record another version named (\(right) right)")
        #expect(right > 0)
        #expect(cells.committedRecord(3, at: UnsafeRawPointer(memory + length))?.record.entity == keys[2 * rounds])
    }

    @Test func aSlotInFlightOrFreeOrWithAForeignRecordReadsAsNothing() throws {
        let layout = try SharedStateLayout(pageSize: 4096, slotsPerChunk: 16, maximumCount: 16)
        let length = layout.fileLength(chunks: 1, region: 0, buckets: 2)
        let memory = UnsafeMutableRawPointer.allocate(byteCount: length + IndexRecord.length, alignment: 4096)
        defer { memory.deallocate() }
        memory.initializeMemory(as: UInt8.self, repeating: 0, count: length + IndexRecord.length)
        let cells = SlotCells(base: memory, layout: layout), record = memory + length
        IndexRecord(entity: TableKey("a"), source: TableKey("s"), pixelChecksum: 1, sequence: 1, label: "a").write(to: record, slot: 5)
        #expect(cells.committedRecord(5, at: record) == nil, "a free word")
        cells.publish(5, .inFlight(owner: 2, version: 1))
        #expect(cells.committedRecord(5, at: record) == nil, "in flight")
        cells.publish(5, .committed(version: 2))
        #expect(cells.committedRecord(5, at: record)?.record.entity == TableKey("a"))
        // The same bytes are not slot 6's record (the checksum is seeded with the slot).
        cells.publish(6, .committed(version: 2))
        #expect(cells.committedRecord(6, at: record) == nil)
        // An in-flight record under a committed word is not an entry.
        IndexRecord.inFlight(entity: TableKey("b"), source: TableKey("s"), label: "b").write(to: record, slot: 5)
        #expect(cells.committedRecord(5, at: record) == nil)
    }
}
