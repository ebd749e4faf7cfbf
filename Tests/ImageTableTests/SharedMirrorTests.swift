import FICCore
import Foundation
import Glibc
@testable import ImageTable
import SystemPackage
import Testing

/// What another process would see of a table through its side file, read the way it will read
/// it: its own read-only mappings of the side file and of the table, the shared index, the slot
/// words and a seqlock copy of each record, with no lock and nothing from the table object.
private struct SideFileView {
    let side: MappedRegion
    let table: MappedRegion
    let layout: SharedStateLayout
    let tableLayout: TableLayout

    init(directory path: String, table name: String, configuration: TableConfiguration) throws {
        let directory = try Directory.open(path, create: false)
        let sideFile = try directory.openFile(SharedStateFile.name(ofTable: name), writable: false)
        defer { sideFile.closeQuietly() }
        let tableFile = try directory.openFile(name, writable: false)
        defer { tableFile.closeQuietly() }
        tableLayout = TableLayout(configuration: configuration)
        layout = try SharedStateLayout(table: tableLayout)
        side = try MappedRegion(descriptor: sideFile, offset: 0, length: layout.maximumLength, writable: false, path: nil)
        let size = Int(try tableFile.status(path: nil).st_size)
        table = try MappedRegion(descriptor: tableFile, offset: 0, length: max(size, tableLayout.pageSize), writable: false, path: nil)
    }

    var cells: SlotCells { SlotCells(base: side.base, layout: layout) }

    /// Slots with cells, as the control page says.
    var allocatedSlots: Int {
        let chunks = UnsafeRawPointer(side.base).loadAcquire(fromByteOffset: layout.controlOffset(.allocatedChunks))
        return layout.slotCount(chunks: Int(min(chunks, UInt64(layout.maximumChunks))))
    }

    /// The slot whose committed record names `entity`, found through the shared index.
    func slot(of entity: TableKey) -> Int? {
        let slots = allocatedSlots
        return SharedIndex.lookup(
            entity, in: UnsafeRawBufferPointer(start: side.base, count: side.length), layout: layout, allocatedSlots: slots
        ) { slot in
            let record = tableLayout.recordOffset(slot: slot)
            guard record + IndexRecord.length <= table.length else { return false }
            return cells.committedRecord(slot, at: UnsafeRawPointer(table.base) + record)?.record.entity == entity
        }
    }

    /// This process's holder index, from the holder table.
    var ownHolder: Int? {
        (0..<HolderTable.capacity).first {
            HolderTable.read($0, from: UnsafeRawPointer(side.base) + layout.holderTableOffset)?.pid == getpid()
        }
    }
}

/// A table that has the file to itself keeps its side file in step with every change, so that
/// another process reading only the side file and the table's records finds exactly the entries
/// the table holds — checked against a model of what the operations must leave, not against
/// the table's own answers.
@Suite final class SharedMirrorTests {
    let dir = TemporaryDirectory("shared-mirror")
    deinit { dir.cleanup() }

    /// The entities present, least recently stored first (no lookups in between: LRU is FIFO).
    struct Model {
        var order: [String] = []
        let maximum: Int
        mutating func store(_ e: String) {
            order.removeAll { $0 == e }
            order.append(e)
            if order.count > maximum { order.removeFirst() }
        }
        mutating func remove(_ e: String) { order.removeAll { $0 == e } }
    }

    func expectSideFile(
        matches model: Model, among names: [String], configuration: TableConfiguration, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let view = try SideFileView(directory: dir.path, table: "t.fictable", configuration: configuration)
        var slots: Set<Int> = []
        for name in names {
            let found = view.slot(of: key(name))
            #expect(
                (found != nil) == model.order.contains(name), "\(name): found at \(String(describing: found))",
                sourceLocation: sourceLocation)
            if let found { #expect(slots.insert(found).inserted, "\(name) shares slot \(found)", sourceLocation: sourceLocation) }
        }
    }

    @Test func everyStoredEntityIsFoundThroughTheSideFileAndNothingElse() throws {
        // 4 slots per chunk up to 24: the table grows six times, then evicts.
        let c = config(64, 64, max: 24, chunkBytes: 4 * 16384)
        var table: ImageTable? = try ImageTable(path: dir.file("t.fictable"), configuration: c)
        var model = Model(maximum: 24)
        let names = (0..<60).map { "e\($0)" }
        var random = Xorshift(seed: 24)
        for step in 0..<200 {
            let name = names[Int(random.next() % UInt64(names.count))]
            if random.next() % 5 == 0 {
                table!.remove(key(name))
                model.remove(name)
            } else {
                _ = try put(table!, name, seed: UInt64(step))
                model.store(name)
            }
            if step % 40 == 39 { try expectSideFile(matches: model, among: names, configuration: c) }
        }
        // Reopened, the side file is built afresh from the records.
        table!.close()
        table = try ImageTable(path: dir.file("t.fictable"), configuration: c)
        try expectSideFile(matches: model, among: names, configuration: c)
        // Emptied, nothing is found.
        try table!.removeAll()
        try expectSideFile(matches: Model(maximum: 24), among: names, configuration: c)
        _ = try put(table!, "after")
        var after = Model(maximum: 24)
        after.store("after")
        try expectSideFile(matches: after, among: names + ["after"], configuration: c)
    }

    @Test func aHeldImageCarriesThisProcesssHoldBitUntilItIsLetGo() throws {
        let c = config(max: 8)
        let table = try ImageTable(path: dir.file("t.fictable"), configuration: c)
        _ = try put(table, "a")
        let view = try SideFileView(directory: dir.path, table: "t.fictable", configuration: c)
        let holder = try #require(view.ownHolder)
        let slot = try #require(view.slot(of: key("a")))
        var image = table.image(for: key("a"))
        #expect(image != nil)
        #expect(view.cells.isHeld(slot, by: holder))
        image = nil
        #expect(!view.cells.isHeld(slot, by: holder))
        // Closing ends the registration, and with it every hold bit.
        let kept = table.image(for: key("a"))
        table.close()
        #expect(kept != nil)
        #expect(!view.cells.isHeld(slot, by: holder))
        #expect(view.ownHolder == nil)
    }

    @Test func aFileThatIsNotASideFileIsLeftAsItIs() throws {
        let planted = dir.file("t.fictable-shared")
        try Data("someone's notes".utf8).write(to: URL(fileURLWithPath: planted))
        let table = try ImageTable(path: dir.file("t.fictable"), configuration: config())
        _ = try put(table, "a")
        #expect(table.image(for: key("a")) != nil)
        table.close()
        #expect(try String(contentsOfFile: planted, encoding: .utf8) == "someone's notes")
        // Removing the table leaves it too.
        let directory = try Directory.open(dir.path, create: false)
        #expect(ImageTable.removeTableFile("t.fictable", in: directory))
        #expect(try String(contentsOfFile: planted, encoding: .utf8) == "someone's notes")
    }

    @Test func removingATableRemovesItsSideFile() throws {
        let table = try ImageTable(path: dir.file("t.fictable"), configuration: config())
        _ = try put(table, "a")
        table.close()
        #expect(FileManager.default.fileExists(atPath: dir.file("t.fictable-shared")))
        let directory = try Directory.open(dir.path, create: false)
        #expect(ImageTable.removeTableFile("t.fictable", in: directory))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }
}

/// Another process, as it will act on a table it shares: its own descriptors and mappings of the
/// side file and the table, its own holder registration, and the slot protocol (``SlotCells``).
/// The table here is the only `ImageTable`; what "the other process" does goes through nothing
/// of it.
private final class OtherProcess {
    let side: MappedRegion
    let table: MappedRegion
    let sideFile: FileDescriptor
    let layout: SharedStateLayout
    let tableLayout: TableLayout
    let holder: Int
    let pixelByteCount: Int
    var cells: SlotCells { SlotCells(base: side.base, layout: layout) }

    init(directory path: String, configuration c: TableConfiguration) throws {
        pixelByteCount = c.pixelByteCount
        let directory = try Directory.open(path, create: false)
        sideFile = try directory.openFile("t.fictable-shared", writable: true)
        let tableFile = try directory.openFile("t.fictable", writable: true)
        defer { tableFile.closeQuietly() }
        tableLayout = TableLayout(configuration: c)
        layout = try SharedStateLayout(table: tableLayout)
        side = try MappedRegion(descriptor: sideFile, offset: 0, length: layout.maximumLength, writable: true, path: nil)
        table = try MappedRegion(
            descriptor: tableFile, offset: 0, length: tableLayout.chunkOffset(0) + tableLayout.chunkByteCount(0), writable: true, path: nil)
        holder = try HolderTable.register(sideFile, entries: side.base + layout.holderTableOffset, path: nil)
    }

    deinit { sideFile.closeQuietly() }

    /// Stores `entity` with the pattern of `seed` in a free slot nobody holds, as a writer does:
    /// claim, pixels, record, committed word, index. Returns the slot.
    func store(_ entity: String, seed: UInt64) throws -> Int {
        let slot = try #require((0..<layout.slotCount(chunks: 1)).first { cells.word($0).state == .free && cells.holders(of: $0).isEmpty })
        let claimed = try #require(cells.claim(slot, owner: holder) { _ in true })
        let pixels = table.base + tableLayout.slotOffset(slot: slot)
        fillPattern(pixels, count: pixelByteCount, seed: seed)
        let checksum = XXH64.hash(pixels, count: pixelByteCount)
        IndexRecord(entity: key(entity), source: key("v1"), pixelChecksum: checksum, sequence: 1000, label: entity)
            .write(to: table.base + tableLayout.recordOffset(slot: slot), slot: slot)
        cells.publish(slot, .committed(version: SlotCells.version(after: claimed.version)))
        #expect(SharedIndexWriter.insert(key(entity), slot: slot, base: side.base, layout: layout))
        return slot
    }

    /// Removes `entity` from `slot`, as a writer does: out of the index, then the word free.
    func remove(_ entity: String, slot: Int) {
        #expect(SharedIndexWriter.remove(key(entity), slot: slot, base: side.base, layout: layout))
        cells.publish(slot, .free(version: SlotCells.version(after: cells.word(slot).version)))
    }

    /// The slot `entity` is in, through the index and the slot's record.
    func slot(of entity: String) -> Int? {
        SharedIndex.lookup(
            key(entity), in: UnsafeRawBufferPointer(start: side.base, count: side.length), layout: layout,
            allocatedSlots: layout.slotCount(chunks: 1)
        ) { slot in
            cells.committedRecord(slot, at: UnsafeRawPointer(table.base) + tableLayout.recordOffset(slot: slot))?.record.entity
                == key(entity)
        }
    }

    /// Dies, as far as the table can tell: its holder entry and lock byte go, its hold bits stay.
    func die() throws {
        try HolderTable.unregister(holder, sideFile, entries: side.base + layout.holderTableOffset, path: nil)
    }
}

/// What a table does with what another process changes in its shared state: no reopen, no polling.
@Suite final class SharedStateTableTests {
    let dir = TemporaryDirectory("shared-table")
    deinit { dir.cleanup() }

    @Test func anEntryAnotherProcessStoresIsAHitOnTheNextLookupAndItsRemovalAMiss() throws {
        let c = config(max: 8, chunkBytes: 1 << 20)
        let table = try ImageTable(path: dir.file("t.fictable"), configuration: c)
        _ = try put(table, "a", seed: 1)
        #expect(table.image(for: key("b")) == nil)
        let other = try OtherProcess(directory: dir.path, configuration: c)
        let slot = try other.store("b", seed: 2)
        let image = try #require(table.image(for: key("b")), "stored by the other process, found here at once")
        #expect(hasPattern(image, seed: 2))
        #expect(table.contains(key("b")))
        // Removed there while held here: a miss here from then on, and the held image unchanged.
        other.remove("b", slot: slot)
        #expect(table.image(for: key("b")) == nil)
        #expect(!table.contains(key("b")))
        #expect(hasPattern(image, seed: 2))
        #expect(try #require(table.image(for: key("a"))).withUnsafeBytes { _ in true })
    }

    /// Another process stopped in the middle of drawing an image: its slot stays in flight, and
    /// the last process to close the table drops it, so the next opener finds nothing half-done.
    @Test func aWriteAnotherProcessLeftHalfDoneIsDroppedByTheLastToClose() throws {
        let c = config(max: 8, chunkBytes: 1 << 20)
        let table = try ImageTable(path: dir.file("t.fictable"), configuration: c)
        _ = try put(table, "a", seed: 1)
        let other = try OtherProcess(directory: dir.path, configuration: c)
        let slot = try #require((0..<8).first { other.cells.word($0).state == .free && other.cells.holders(of: $0).isEmpty })
        _ = try #require(other.cells.claim(slot, owner: other.holder) { _ in true })
        IndexRecord.inFlight(entity: key("half"), source: key("v1"), label: "half").write(
            to: other.table.base + other.tableLayout.recordOffset(slot: slot), slot: slot)
        try other.die()
        table.close()
        let reopened = try ImageTable(path: dir.file("t.fictable"), configuration: c)
        #expect(reopened.openReport.droppedEntries == 0 && reopened.openReport.uncleanStop == nil, "\(reopened.openReport)")
        #expect(reopened.image(for: key("a")).map { hasPattern($0, seed: 1) } == true)
        #expect(reopened.image(for: key("half")) == nil)
    }

    /// A process that joins under the holder index of one that died (the first free one) takes
    /// over nothing of it: the dead one's hold bits no longer keep slots from eviction.
    @Test func aProcessUnderADeadOnesHolderIndexInheritsNoneOfItsHolds() throws {
        let c = config(max: 2, chunkBytes: 1 << 20)
        let a = try ImageTable(path: dir.file("t.fictable"), configuration: c)
        _ = try put(a, "x", seed: 1)
        _ = try put(a, "y", seed: 2)
        let other = try OtherProcess(directory: dir.path, configuration: c)
        let slotX = try #require(other.slot(of: "x"))
        #expect(other.cells.hold(slotX, holder: other.holder, expecting: other.cells.word(slotX)))
        try other.die()
        let b = try ImageTable(path: dir.file("t.fictable"), configuration: c)
        #expect(other.cells.holders(of: slotX).isEmpty, "the dead holder's bit was cleared by the one that took its index")
        _ = try put(a, "z", seed: 3)
        _ = try put(a, "w", seed: 4)
        #expect(a.image(for: key("x")) == nil, "x, held by nobody alive, was evicted")
        b.close()
    }

    /// Another process in the middle of a store holds the writer lock: a store here waits for
    /// it, up to its timeout, then fails with `.inUse` and changes nothing; lookups go on; once
    /// the lock is let go, stores go on.
    @Test func storesWaitForAnotherProcesssStoreAndLookupsDoNot() throws {
        let c = config(max: 8, chunkBytes: 1 << 20)
        let table = try ImageTable(
            path: dir.file("t.fictable"), configuration: c, options: TableOpenOptions(writerTimeout: .milliseconds(20)))
        _ = try put(table, "a", seed: 1)
        let other = try OtherProcess(directory: dir.path, configuration: c)
        #expect(try SharedWriterLock.acquire(other.sideFile, timeout: .zero, path: nil))
        let refused = #expect(throws: ImageCacheError.self) { try put(table, "b", seed: 2) }
        #expect(refused?.code == .inUse, "\(String(describing: refused))")
        #expect(!table.remove(key("a")), "a removal is a store too")
        let a = try #require(table.image(for: key("a")), "lookups take no lock another process can hold")
        #expect(hasPattern(a, seed: 1))
        #expect(table.image(for: key("b")) == nil)
        #expect(table.statistics.count == 1)
        try SharedWriterLock.release(other.sideFile, path: nil)
        _ = try put(table, "b", seed: 2)
        #expect(table.image(for: key("b")).map { hasPattern($0, seed: 2) } == true)
    }

    @Test func aSlotAnotherLiveProcessHoldsIsNeverEvictedAndADeadOnesHoldIsReleased() throws {
        let c = config(max: 2, chunkBytes: 1 << 20)
        let table = try ImageTable(path: dir.file("t.fictable"), configuration: c)
        _ = try put(table, "a", seed: 1)
        _ = try put(table, "b", seed: 2)
        let other = try OtherProcess(directory: dir.path, configuration: c)
        let slotA = try #require(other.slot(of: "a"))
        #expect(other.cells.hold(slotA, holder: other.holder, expecting: other.cells.word(slotA)))
        // a is the least recently used, but held over there: b goes instead.
        _ = try put(table, "c", seed: 3)
        #expect(table.image(for: key("a")) != nil)
        #expect(table.image(for: key("b")) == nil)
        #expect(table.statistics.evictions == 1)
        // Only held images left (a there, c here): the table is full.
        let c3 = try #require(table.image(for: key("c")))
        #expect(throws: ImageCacheError.self) { try put(table, "d", seed: 4) }
        // The other process dies holding a: its hold no longer counts.
        try other.die()
        _ = try put(table, "d", seed: 4)
        #expect(table.image(for: key("a")) == nil, "a, held only by a dead process, was evicted")
        #expect(hasPattern(c3, seed: 3))
        #expect(other.cells.holders(of: slotA).isEmpty, "the dead holder's bit was cleared")
    }
}
