import FICCore
import Foundation
import Glibc
@testable import ImageTable
import SystemPackage
import Testing

/// A table's side file made afresh by an opener that has the table to itself: a new file renamed
/// over whatever had the name (whose bytes are never written), sparse, and holding the state
/// built from the entries it was given.
@Suite final class SharedStateFileTests {
    let dir = TemporaryDirectory("shared-file")
    static let binding = SharedStateHeader.Binding(device: 3, inode: 4, tableHeaderChecksum: 5)

    deinit { dir.cleanup() }

    func create(maximumCount: Int = 100_000, chunks: Int = 1, entries: Int = 40) throws -> (SharedStateFile, SharedStateLayout) {
        let layout = try SharedStateLayout(pageSize: 4096, slotsPerChunk: 64, maximumCount: maximumCount)
        let made = (0..<entries).map {
            SharedStateBuilder.Entry(slot: $0, entity: TableKey("entity-\($0)"), version: 1, sequence: UInt64($0 + 1), lastAccess: 0)
        }
        let directory = try Directory.open(dir.path, create: false)
        let (file, summary) = try SharedStateFile.create(
            in: directory, tableName: "t.fictable", layout: layout, binding: Self.binding,
            allocatedChunks: chunks, entries: made)
        #expect(summary.allocatedSlots == 64 * chunks)
        #expect(summary.unindexed.isEmpty)
        return (file, layout)
    }

    @Test func theFileIsBuiltSparseAndFindsEveryEntity() throws {
        let (file, layout) = try create()
        #expect(file.path == dir.file("t.fictable-shared"))
        guard case .success = file.header(binding: Self.binding) else {
            Issue.record("the header does not validate: \(file.header(binding: Self.binding))")
            return
        }
        let bytes = UnsafeRawBufferPointer(start: file.mapping.base, count: file.mapping.length)
        for e in 0..<40 {
            #expect(SharedIndex.lookup(TableKey("entity-\(e)"), in: bytes, layout: layout, allocatedSlots: 64) == e)
            #expect(file.cells.word(e) == .committed(version: 1))
        }
        #expect(SharedIndex.lookup(TableKey("entity-40"), in: bytes, layout: layout, allocatedSlots: 64) == nil)
        var st = stat()
        #expect(stat(dir.file("t.fictable-shared"), &st) == 0)
        #expect(Int(st.st_size) == layout.maximumLength)
        // Only the header, control page, holder table, one chunk's cells and 128 buckets are on the disk.
        let allocated = Int(st.st_blocks) * 512
        #expect(allocated < layout.maximumLength / 8, "\(allocated) of \(layout.maximumLength) bytes allocated")
        #expect(st.st_mode & 0o777 == 0o600)
    }

    @Test func aLinkAtTheNameIsReplacedAndWhatItPointsToIsUntouched() throws {
        let precious = dir.file("precious.txt")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: precious))
        try FileManager.default.createSymbolicLink(atPath: dir.file("t.fictable-shared"), withDestinationPath: precious)
        _ = try create()
        #expect(try String(contentsOfFile: precious, encoding: .utf8) == "keep me")
        let attributes = try FileManager.default.attributesOfItem(atPath: dir.file("t.fictable-shared"))
        #expect(attributes[.type] as? FileAttributeType == .typeRegular)
    }

    @Test func aHardLinkAtTheNameIsReplacedNotOverwritten() throws {
        let precious = dir.file("precious.bin")
        let bytes = Data((0..<9000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try bytes.write(to: URL(fileURLWithPath: precious))
        #expect(link(precious, dir.file("t.fictable-shared")) == 0)
        _ = try create()
        #expect(try Data(contentsOf: URL(fileURLWithPath: precious)) == bytes)
        var st = stat()
        #expect(stat(precious, &st) == 0)
        #expect(st.st_nlink == 1, "the name now belongs to a new file")
    }

    @Test func aFolderAtTheNameIsAnErrorNotACrash() throws {
        try FileManager.default.createDirectory(atPath: dir.file("t.fictable-shared/inside"), withIntermediateDirectories: true)
        #expect(throws: ImageCacheError.self) { try self.create() }
        #expect(FileManager.default.fileExists(atPath: dir.file("t.fictable-shared/inside")))
        // No hidden file is left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["t.fictable-shared"])
    }
}
