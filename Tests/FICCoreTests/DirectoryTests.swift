import FICCore
import Foundation
import Glibc
import Testing

@Suite struct DirectoryTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("fic-core-\(UUID().uuidString)").path

    /// umask is global to the process and tests run in parallel, so these tests assert only what
    /// holds under any umask: nothing is readable by others. (A stricter umask is checked in a
    /// child process by the tool's tests.)
    @Test func createsMissingFoldersPrivately() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let dir = try Directory.open(root + "/a/b", create: true)
        let sub = try dir.subdirectory("ns", create: true)
        let fd = try sub.openFile("f", writable: true, create: true)
        fd.closeQuietly()
        let t = try sub.makeTemporaryFile(for: "g")
        try t.commit()
        for path in [root + "/a", root + "/a/b", root + "/a/b/ns", root + "/a/b/ns/f", root + "/a/b/ns/g"] {
            #expect(try mode(path) & 0o077 == 0, "\(path) is private to the user")
        }
        #expect(try mode(root + "/a/b/ns/f") & 0o600 == 0o600)
    }

    @Test func linksAreNotFollowed() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let target = root + "/target"
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: root + "/link", withDestinationPath: target)
        try FileManager.default.createSymbolicLink(atPath: target + "/dangling", withDestinationPath: root + "/created-through-link")

        let linked = #expect(throws: ImageCacheError.self) { try Directory.open(root + "/link", create: true) }
        #expect(linked?.code == .unsafePath)
        #expect(try Directory.open(root + "/link", create: false, followLinks: true).path == root + "/link")

        let dir = try Directory.open(root, create: false)
        let sub = #expect(throws: ImageCacheError.self) { try dir.subdirectory("link", create: true) }
        #expect(sub?.code == .unsafePath)

        let t = try Directory.open(target, create: false)
        let file = #expect(throws: ImageCacheError.self) { try t.openFile("dangling", writable: true, create: true) }
        #expect(file?.code == .unsafePath)
        #expect(!FileManager.default.fileExists(atPath: root + "/created-through-link"), "nothing was created where the link points")
    }

    @Test func temporaryFilesAppearOnlyWhenCommitted() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let dir = try Directory.open(root, create: true)
        try Data("old".utf8).write(to: URL(fileURLWithPath: root + "/f"))
        do {
            let t = try dir.makeTemporaryFile(for: "f")
            try Array("new".utf8).withUnsafeBytes { try t.descriptor.writeAll($0, at: 0, path: t.path) }
            #expect(try dir.names() == ["f"], "an uncommitted file has no name")
            try t.commit()
        }
        #expect(try String(contentsOfFile: root + "/f", encoding: .utf8) == "new")
        #expect(try dir.names() == ["f"])
        do {
            let t = try dir.makeTemporaryFile(for: "g")
            _ = t
        }
        #expect(try dir.names() == ["f"], "a dropped temporary file leaves nothing")
    }

    @Test func aFolderLockExcludesOtherOpenFiles() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let a = try Directory.open(root, create: true)
        let b = try Directory.open(root, create: false)
        #expect(try a.lock(.exclusive, wait: false))
        #expect(try !b.lock(.exclusive, wait: false))
    }

    /// A child process forked by another thread holds a copy of every descriptor until it execs
    /// (here: a duplicate, which shares the open file and its lock). The folder is free for the
    /// next opener as soon as the object that locked it is gone, copy or not.
    @Test func aLockEndsWithItsFolderObjectThoughACopyOfTheDescriptorLives() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        var first: Directory? = try Directory.open(root, create: true)
        #expect(try first!.lock(.exclusive, wait: false))
        let copy = dup(first!.descriptor.rawValue)
        try #require(copy >= 0)
        defer { close(copy) }
        first = nil
        let next = try Directory.open(root, create: false)
        #expect(try next.lock(.exclusive, wait: false))
    }

    func mode(_ path: String) throws -> mode_t {
        try fileStatus(atPath: path, followLinks: false).st_mode & 0o777
    }
}
