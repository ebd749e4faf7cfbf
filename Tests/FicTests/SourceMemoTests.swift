@testable import FICCommandLine
@testable import FICDemo
import Foundation
import Testing
@testable import fic

/// The memo of the photos' versions (`NAMESPACE.sources.json`), the default cache folder, the
/// namespace of a photo folder and the viewer's formats.
@Suite("remembering between launches")
struct SourceMemoTests {
    static let hash = String(repeating: "ab", count: 32)

    func identity(mtime: Int64, ctime: Int64) -> SourceMemo.Identity {
        var identity = SourceMemo.Identity(stat())
        identity.size = 30_973
        identity.inode = 1234
        identity.device = 56
        identity.mtimeNs = mtime
        identity.ctimeNs = ctime
        return identity
    }

    @Test("a file whose times are within 2 s of the moment it was hashed is not remembered (the racy case)")
    func racyFilesAreNotRemembered() {
        let now: Int64 = 1_700_000_000 * 1_000_000_000
        let second: Int64 = 1_000_000_000
        #expect(SourceMemo.row(identity: identity(mtime: now - 3 * second, ctime: now - 3 * second), hash: Self.hash, hashedAt: now) != nil)
        #expect(SourceMemo.row(identity: identity(mtime: now - 1 * second, ctime: now - 3 * second), hash: Self.hash, hashedAt: now) == nil)
        #expect(SourceMemo.row(identity: identity(mtime: now - 3 * second, ctime: now - second / 2), hash: Self.hash, hashedAt: now) == nil)
        #expect(
            SourceMemo.row(identity: identity(mtime: now + 60 * second, ctime: now - 3 * second), hash: Self.hash, hashedAt: now) == nil,
            "a time in the future")
    }

    @Test("a remembered version is used only while the file's identity is unchanged")
    func identityMustMatch() throws {
        let old: Int64 = 1_600_000_000 * 1_000_000_000
        let row = try #require(SourceMemo.row(identity: identity(mtime: old, ctime: old), hash: Self.hash, hashedAt: old + 10_000_000_000))
        let memo = SourceMemo(rows: ["a.jpg": row])
        #expect(memo.hash(of: "a.jpg", identity: row.identity) == Self.hash)
        #expect(memo.hash(of: "b.jpg", identity: row.identity) == nil)
        for change in [\SourceMemo.Identity.size, \.mtimeNs, \.ctimeNs] {
            var changed = row.identity
            changed[keyPath: change] += 1
            #expect(memo.hash(of: "a.jpg", identity: changed) == nil)
        }
        var moved = row.identity
        moved.inode += 1
        #expect(memo.hash(of: "a.jpg", identity: moved) == nil)
        moved = row.identity
        moved.device += 1
        #expect(memo.hash(of: "a.jpg", identity: moved) == nil)
    }

    @Test("reading and hashing an old file gives the SHA-256 of its bytes and a row of its identity")
    func readAndHash() throws {
        let path = Fic.testdata + "/photos/coffee.jpg"
        let before = SourceMemo.now
        let hashed = try SourceMemo.readAndHash(path)
        let after = SourceMemo.now
        #expect(hashed.hash == FileEntity.contentHash(try Data(contentsOf: URL(fileURLWithPath: path))))
        let identity = try #require(SourceMemo.Identity(path: path))
        // Old (a row kept) when its times are more than racyNanoseconds before the moment it was
        // hashed, which lies between `before` and `after`; a test file placed just before the run
        // (a fresh checkout of the test data) is not, and either answer is right at the edge.
        let newest = max(identity.mtimeNs, identity.ctimeNs)
        if newest < before - SourceMemo.racyNanoseconds {
            #expect(hashed.row == SourceMemo.Row(identity: identity, sha256: hashed.hash))
        } else if newest >= after - SourceMemo.racyNanoseconds {
            #expect(hashed.row == nil)
        }
        // A file just written is never old.
        let folder = try TemporaryFolder()
        let fresh = folder.path("fresh.jpg")
        try Data(contentsOf: URL(fileURLWithPath: path)).write(to: URL(fileURLWithPath: fresh))
        let justWritten = try SourceMemo.readAndHash(fresh)
        #expect(justWritten.hash == hashed.hash)
        #expect(justWritten.row == nil)
    }

    @Test("the memo is written privately and atomically, read back, and replaces a link without writing through it")
    func saveAndLoad() throws {
        let folder = try TemporaryFolder()
        let old: Int64 = 1_600_000_000 * 1_000_000_000
        let row = try #require(SourceMemo.row(identity: identity(mtime: old, ctime: old), hash: Self.hash, hashedAt: old + 10_000_000_000))
        let target = folder.path("elsewhere.json")
        try Data("precious".utf8).write(to: URL(fileURLWithPath: target))
        try FileManager.default.createDirectory(atPath: folder.path("cache"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder.path("cache/ns.sources.json"), withDestinationPath: target)
        #expect(SourceMemo.load(directory: folder.path("cache"), namespace: "ns", followLinks: false) == SourceMemo(), "a link is no memo")

        try SourceMemo(rows: ["a b/ü.jpg": row]).save(directory: folder.path("cache"), namespace: "ns", followLinks: false)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "precious")
        let attributes = try FileManager.default.attributesOfItem(atPath: folder.path("cache/ns.sources.json"))
        #expect(attributes[.type] as? FileAttributeType == .typeRegular)
        #expect((attributes[.posixPermissions] as? Int ?? 0) & 0o077 == 0)
        #expect(
            SourceMemo.load(directory: folder.path("cache"), namespace: "ns", followLinks: false) == SourceMemo(rows: ["a b/ü.jpg": row]))
    }

    @Test(
        "a damaged or hostile memo counts as none",
        arguments: [
            "not json", "{\"version\":1,\"sources\":{\"a.jpg\":{}}}", "{\"version\":2,\"sources\":{}}",
            "{\"version\":1,\"sources\":{\"a.jpg\":{\"identity\":{\"size\":-1,\"mtime_ns\":0,\"ctime_ns\":0,\"inode\":1,\"device\":1},\"sha256\":\"\(hash)\"}}}",
            "{\"version\":1,\"sources\":{\"a.jpg\":{\"identity\":{\"size\":1,\"mtime_ns\":0,\"ctime_ns\":0,\"inode\":1,\"device\":1},\"sha256\":\"../../etc\"}}}",
            "{\"version\":1,\"sources\":{\"\":{\"identity\":{\"size\":1,\"mtime_ns\":0,\"ctime_ns\":0,\"inode\":1,\"device\":1},\"sha256\":\"\(hash)\"}}}",
            "{\"version\":1,\"sources\":{\"a.jpg\":{\"identity\":{\"size\":1,\"mtime_ns\":0,\"ctime_ns\":0,\"inode\":1,\"device\":1},\"sha256\":\"\(hash.uppercased())\"}}}",
            String(repeating: "[", count: 100_000)
        ])
    func damagedMemo(text: String) throws {
        let folder = try TemporaryFolder()
        try text.write(toFile: folder.path("ns.sources.json"), atomically: true, encoding: .utf8)
        #expect(SourceMemo.load(directory: folder.url.path, namespace: "ns", followLinks: false) == SourceMemo())
    }

    @Test("a memo over the size limit, or a folder in its place, counts as none")
    func oversizedMemo() throws {
        let folder = try TemporaryFolder()
        #expect(FileManager.default.createFile(atPath: folder.path("big.sources.json"), contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: folder.path("big.sources.json")))
        try handle.truncate(atOffset: UInt64(SourceMemo.maximumFileBytes + 1))
        try handle.close()
        #expect(SourceMemo.load(directory: folder.url.path, namespace: "big", followLinks: false) == SourceMemo())
        try FileManager.default.createDirectory(atPath: folder.path("dir.sources.json"), withIntermediateDirectories: true)
        #expect(SourceMemo.load(directory: folder.url.path, namespace: "dir", followLinks: false) == SourceMemo())
    }

    @Test("the default cache folder is $XDG_CACHE_HOME/fic when that is absolute, else ~/.cache/fic")
    func defaultFolder() throws {
        #expect(try DefaultCache.directory(environment: ["XDG_CACHE_HOME": "/x/cache", "HOME": "/home/u"]) == "/x/cache/fic")
        #expect(try DefaultCache.directory(environment: ["XDG_CACHE_HOME": "relative", "HOME": "/home/u"]) == "/home/u/.cache/fic")
        #expect(try DefaultCache.directory(environment: ["HOME": "/home/u"]) == "/home/u/.cache/fic")
        #expect(
            try DefaultCache.directory(environment: ["XDG_CACHE_HOME": ""]).hasSuffix("/.cache/fic"),
            "the home folder from the password database")
    }

    @Test("a photo folder's namespace: a readable prefix and a hash of its real path, the same through a link")
    func namespaceOfAFolder() throws {
        let folder = try TemporaryFolder()
        let photos = folder.path(".Ferien 2024 ü")
        try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder.path("link"), withDestinationPath: photos)
        let name = try DefaultCache.namespace(forPhotos: photos)
        #expect(name.hasPrefix("Ferien_2024__-"), "\(name)")
        #expect(name.count == "Ferien_2024__-".count + 16)
        #expect(try DefaultCache.namespace(forPhotos: folder.path("link")) == name)
        #expect(try DefaultCache.namespace(forPhotos: photos + "/") == name)
        #expect(try DefaultCache.namespace(forPhotos: folder.url.path) != name)
        #expect(DefaultCache.namespace(forResolvedPath: "/").hasPrefix("photos-"))
        #expect(DefaultCache.namespace(forResolvedPath: "/p/日本").hasPrefix("photos-"))
        let long = DefaultCache.namespace(forResolvedPath: "/" + String(repeating: "x", count: 300))
        #expect(long.count <= 128)
        for candidate in [name, long] { #expect(throws: Never.self) { try CacheOptions.validateName(candidate, what: "namespace") } }
        #expect(throws: CLIError.self) { try DefaultCache.namespace(forPhotos: folder.path("missing")) }
    }

    @Test("the viewer's formats change only in steps of 10,000 photos")
    func viewerFormatsAreStable() throws {
        #expect(DemoFormats.maximumCount(for: 1) == 10_000)
        #expect(DemoFormats.maximumCount(for: 10_000) == 10_000)
        #expect(DemoFormats.maximumCount(for: 10_001) == 20_000)
        #expect(try DemoFormats.make(count: 80).map(\.maximumCount) == DemoFormats.make(count: 81).map(\.maximumCount))
        let described = try DemoFormats.description(count: 80, photos: "/p")
        #expect(DemoFormats.isViewerDescription(described))
        #expect(DemoFormats.isViewerDescription(try DemoFormats.description(count: 30_000, photos: nil)))
        var other = described
        other.formats[0].width += 1
        #expect(!DemoFormats.isViewerDescription(other))
    }

    @Test("wait-file waits for a file, at most a number of frames")
    func waitFileScript() throws {
        let folder = try TemporaryFolder()
        let script = try ViewerScript(text: "wait-file \(folder.path("go")) 3\nquit\n", width: 100, height: 100)
        var player = ScriptPlayer(script)
        #expect(player.actions(idle: true, shown: 0).isEmpty)
        #expect(player.actions(idle: true, shown: 0).isEmpty, "the file is not there")
        #expect(FileManager.default.createFile(atPath: folder.path("go"), contents: nil))
        #expect(player.actions(idle: true, shown: 0) == [.quit])
        #expect(player.timedOutWaits == 0)

        var impatient = ScriptPlayer(try ViewerScript(text: "wait-file \(folder.path("never")) 2\nquit\n", width: 100, height: 100))
        var frames = 0
        while impatient.actions(idle: true, shown: 0) != [.quit] { frames += 1; try #require(frames < 10) }
        #expect(impatient.timedOutWaits == 1)
        #expect(throws: CLIError.self) { try ViewerScript(text: "wait-file\n", width: 100, height: 100) }
    }

    @Test("wait-shown waits for a frame that showed enough images, at most a number of frames")
    func waitShownScript() throws {
        var player = ScriptPlayer(try ViewerScript(text: "wait-shown 6 5\nquit\n", width: 100, height: 100))
        #expect(player.actions(idle: true, shown: 0).isEmpty)
        #expect(player.actions(idle: true, shown: 5).isEmpty, "five images are not six")
        #expect(player.actions(idle: false, shown: 6) == [.quit])
        #expect(player.timedOutWaits == 0)

        var impatient = ScriptPlayer(try ViewerScript(text: "wait-shown 6 2\nquit\n", width: 100, height: 100))
        var frames = 0
        while impatient.actions(idle: true, shown: 1) != [.quit] { frames += 1; try #require(frames < 10) }
        #expect(impatient.timedOutWaits == 1)
        for bad in ["wait-shown\n", "wait-shown -1\n", "wait-shown 1 2 3\n"] {
            #expect(throws: CLIError.self) { try ViewerScript(text: bad, width: 100, height: 100) }
        }
    }
}
