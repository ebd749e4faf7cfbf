import Foundation
import Testing
@testable import ImageTable

/// What the engine does with paths it did not make: links, predictable names, permissions.
@Suite struct FileSafetyTests {
    @Test func aDanglingLinkAtTheTablePathIsRefusedAndNothingIsCreated() throws {
        let dir = TemporaryDirectory("links"); defer { dir.cleanup() }
        let target = dir.file("elsewhere.bin")
        try FileManager.default.createSymbolicLink(atPath: dir.file("t.fictable"), withDestinationPath: target)
        let error = #expect(throws: ImageCacheError.self) { try ImageTable(path: dir.file("t.fictable"), configuration: config()) }
        #expect(error?.code == .unsafePath, "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: target), "no file was created where the link points")
    }

    @Test func aLinkToAnotherFileIsNeitherWrittenNorReplacedByARebuild() throws {
        let dir = TemporaryDirectory("links"); defer { dir.cleanup() }
        let precious = dir.file("precious.txt")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: precious))
        // Links planted at the table's path and at every temporary name an old version used.
        try Data((0..<9000).map { UInt8(truncatingIfNeeded: $0) }).write(to: URL(fileURLWithPath: dir.file("t.fictable")))
        for pid in [getpid(), getpid() + 1] {
            try FileManager.default.createSymbolicLink(atPath: dir.file("t.fictable.new-\(pid)"), withDestinationPath: precious)
        }
        let table = try ImageTable(path: dir.file("t.fictable"), configuration: config())
        try put(table, "a", seed: 1)
        table.close()
        #expect(try String(contentsOfFile: precious, encoding: .utf8) == "keep me")
        // A link at the table's own path is refused, whatever it points to.
        try FileManager.default.removeItem(atPath: dir.file("t.fictable"))
        try FileManager.default.createSymbolicLink(atPath: dir.file("t.fictable"), withDestinationPath: precious)
        #expect(throws: ImageCacheError.self) { try ImageTable(path: dir.file("t.fictable"), configuration: config()) }
        #expect(try String(contentsOfFile: precious, encoding: .utf8) == "keep me")
    }

    @Test func aHardLinkedGarbageFileIsReplacedNotOverwritten() throws {
        let dir = TemporaryDirectory("links"); defer { dir.cleanup() }
        let precious = dir.file("precious.bin")
        let bytes = Data((0..<9000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try bytes.write(to: URL(fileURLWithPath: precious))
        try FileManager.default.linkItem(atPath: precious, toPath: dir.file("t.fictable"))
        let table = try ImageTable(path: dir.file("t.fictable"), configuration: config())
        try put(table, "a", seed: 1)
        table.close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: precious)) == bytes, "the other name of the file still has its bytes")
    }

    @Test func anEmptyFileItDidNotCreateIsReplacedNotWrittenInto() throws {
        let dir = TemporaryDirectory("links"); defer { dir.cleanup() }
        _ = FileManager.default.createFile(atPath: dir.file("empty"), contents: Data())
        try FileManager.default.linkItem(atPath: dir.file("empty"), toPath: dir.file("t.fictable"))
        let table = try ImageTable(path: dir.file("t.fictable"), configuration: config())
        try put(table, "a", seed: 1)
        table.close()
        #expect(fileSize(dir.file("empty")) == 0, "the other name of the empty file is still empty")
        #expect(
            hasPattern(try #require(try ImageTable(path: dir.file("t.fictable"), configuration: config()).image(for: key("a"))), seed: 1))
    }

    @Test func filesArePrivateToTheUser() throws {
        let dir = TemporaryDirectory("modes"); defer { dir.cleanup() }
        let table = try ImageTable(path: dir.file("new/folder/t.fictable"), configuration: config())
        try put(table, "a")
        try table.removeAll()
        table.close()
        // Under any umask (tests share one process): nothing is readable by others.
        for path in [dir.file("new/folder/t.fictable"), dir.file("new/folder"), dir.file("new")] {
            #expect(mode(path) & 0o077 == 0, "\(path): \(String(mode(path), radix: 8))")
        }
    }

    func mode(_ path: String) -> mode_t {
        var st = stat()
        return lstat(path, &st) == 0 ? st.st_mode & 0o777 : 0
    }
}

@Suite struct HeldImageTests {
    @Test func aHeldImageSurvivesCloseAndTheFileIsUnlocked() throws {
        let dir = TemporaryDirectory("held"); defer { dir.cleanup() }
        let c = config(max: 1)
        let table = try ImageTable(path: dir.file("t.fictable"), configuration: c)
        let held = try put(table, "a", seed: 1)
        table.close()
        let again = try ImageTable(path: dir.file("t.fictable"), configuration: c)
        try put(again, "b", seed: 2)
        #expect(hasPattern(held, seed: 1), "the held image did not change when its slot was reused")
        #expect(hasPattern(try #require(again.image(for: key("b"))), seed: 2))
        again.close()
    }
}
