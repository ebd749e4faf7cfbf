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
        return SharedIndex.lookup(entity, in: UnsafeRawBufferPointer(start: side.base, count: side.length), layout: layout, allocatedSlots: slots) { slot in
            let record = tableLayout.recordOffset(slot: slot)
            guard record + IndexRecord.length <= table.length else { return false }
            return cells.committedRecord(slot, at: UnsafeRawPointer(table.base) + record)?.record.entity == entity
        }
    }

    /// This process's holder index, from the holder table.
    var ownHolder: Int? {
        (0..<HolderTable.capacity).first { HolderTable.read($0, from: UnsafeRawPointer(side.base) + layout.holderTableOffset)?.pid == getpid() }
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

    func expectSideFile(matches model: Model, among names: [String], configuration: TableConfiguration, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let view = try SideFileView(directory: dir.path, table: "t.fictable", configuration: configuration)
        var slots: Set<Int> = []
        for name in names {
            let found = view.slot(of: key(name))
            #expect((found != nil) == model.order.contains(name), "\(name): found at \(String(describing: found))", sourceLocation: sourceLocation)
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
