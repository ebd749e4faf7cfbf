@testable import FICCommandLine
import FICHarness
import Foundation
import Testing
@testable import fic

/// The tool on damaged, shared and read-only caches.
@Suite("safety")
struct SafetyTests {
    static let format = ["--format", "tiny:8x8:bgra:max=16"]

    /// A cache of two photos made by `fic ingest`.
    func makeCache(_ folder: TemporaryFolder) throws -> String {
        try folder.copyTestdata("photos/chelsea.jpg", into: "source", as: "a.jpg")
        try folder.copyTestdata("photos/coffee.jpg", into: "source", as: "b.jpg")
        let cache = folder.path("cache")
        let ingest = try Fic.run(["ingest", folder.path("source"), "--cache", cache] + Self.format)
        #expect(ingest.status == 0, "\(ingest.stderr)")
        return cache
    }

    @Test("verify reports a table that was damaged beyond repair and rebuilt, and exits 1")
    func verifyReportsRebuiltTables() throws {
        let folder = try TemporaryFolder()
        let cache = try makeCache(folder)
        let table = cache + "/default/tiny.fictable"
        try Data((0..<20000).map { UInt8(truncatingIfNeeded: $0 &* 13) }).write(to: URL(fileURLWithPath: table))
        let run = try Fic.run(["verify", "--cache", cache])
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        #expect(!run.stdout.contains("all intact"), "\(run.stdout)")
        #expect((run.stdout + run.stderr).contains("rebuilt"), "\(run.stdout)\(run.stderr)")
    }

    @Test(
        "absurd format sizes are usage errors, not crashes",
        arguments: ["a:1e300x1", "a:1x1@1e300", "a:9.3e18x1", "a:1x9.3e18", "a:100000x1", "a:1x1:max=99999999999999999999"])
    func absurdFormats(spec: String) throws {
        let folder = try TemporaryFolder()
        try folder.copyTestdata("photos/chelsea.jpg", into: "source", as: "a.jpg")
        let run = try Fic.run(["ingest", folder.path("source"), "--cache", folder.path("cache"), "--format", spec])
        #expect(run.status == 2, "\(spec): status \(run.status) \(run.stderr)")
        #expect(run.stderr.contains("--format"), "\(run.stderr)")
    }

    @Test("absurd sizes in a cache's formats.json give a clear error")
    func absurdDescription() throws {
        let folder = try TemporaryFolder()
        let cache = try makeCache(folder)
        let path = cache + "/default.formats.json"
        let text = try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(of: "\"width\" : 8", with: "\"width\" : 1e300")
        #expect(text.contains("1e300"))
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        for command in [["inspect"], ["verify"], ["get", "--format", "tiny", "--entity", "a.jpg", "--out", folder.path("x.png")]] {
            let run = try Fic.run(command + ["--cache", cache])
            #expect(run.status == 1, "\(command): status \(run.status) \(run.stderr)")
            #expect(run.stderr.contains("formats.json"), "\(run.stderr)")
        }
    }

    @Test("every command survives absurd recency values in the index")
    func hostileRecency() throws {
        let folder = try TemporaryFolder()
        let cache = try makeCache(folder)
        let table = cache + "/default/tiny.fictable"
        // Records of slots 0 and 1 start at 4096 (the header page); last access is at +120.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: table))
        for slot in 0..<2 {
            try handle.seek(toOffset: UInt64(4096 + slot * 128 + 120))
            try handle.write(contentsOf: Data(repeating: 0xFF, count: 8))
        }
        try handle.close()
        for command in [
            ["inspect"], ["verify"], ["verify", "--repair"], ["get", "--format", "tiny", "--entity", "a.jpg", "--out", folder.path("x.png")]
        ] {
            let run = try Fic.run(command + ["--cache", cache])
            #expect(run.status == 0, "\(command): status \(run.status) \(run.stderr)")
        }
        let again = try Fic.run(["ingest", folder.path("source"), "--cache", cache])
        #expect(again.status == 0, "\(again.stderr)")
    }

    @Test("the source version of a file is a SHA-256 of its bytes")
    func contentHashIsCryptographic() {
        #expect(FileEntity.contentHash(Data("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test("two ingests with different formats racing on one namespace both succeed, and the cache is whole", .timeLimit(.minutes(3)))
    func concurrentFormats() throws {
        let folder = try TemporaryFolder()
        let cache = try makeCache(folder)
        let binary = try #require(Fic.binary)
        for round in 0..<30 {
            var processes: [(CapturingChild, String)] = []
            for format in ["a:8x8:bgra:max=16", "b:16x16:rgb565:max=16"] {
                let p = try ChildProcess.startCapturing(binary, ["ingest", folder.path("source"), "--cache", cache, "--format", format])
                processes.append((p, String(format.prefix(1))))
            }
            var finished: [(status: Int32, format: String, time: Date)] = []
            for (p, format) in processes {
                let run = p.result()
                #expect(run.status == 0, "round \(round): the ingest of format \(format) failed: \(run.stderr)")
                finished.append((run.status, format, Date()))
            }
            // The cache holds a whole, intact table of the formats it was last ingested with.
            let verify = try Fic.run(["verify", "--cache", cache])
            #expect(
                verify.status == 0 && verify.stdout.contains("verified 2 entries in 1 format"),
                "round \(round): \(verify.stdout)\(verify.stderr)")
        }
    }

    @Test("two ingests racing on one damaged table: it is rebuilt once, and both succeed without lost writes", .timeLimit(.minutes(3)))
    func concurrentRebuilds() throws {
        let folder = try TemporaryFolder()
        let cache = try makeCache(folder)
        let table = cache + "/default/tiny.fictable"
        let binary = try #require(Fic.binary)
        for round in 0..<40 {
            try Data(repeating: UInt8(round), count: 9000).write(to: URL(fileURLWithPath: table))
            let processes = try (0..<2).map { _ in
                try ChildProcess.startCapturing(binary, ["ingest", folder.path("source"), "--cache", cache])
            }
            var succeeded = 0
            for p in processes {
                let run = p.result()
                if run.status == 0 {
                    succeeded += 1
                } else {
                    Issue.record("round \(round): an ingest failed: \(run.stderr)")
                }
            }
            #expect(succeeded == 2, "round \(round): both ingests succeed")
            let verify = try Fic.run(["verify", "--cache", cache])
            #expect(verify.stdout.contains("verified 2 entries"), "round \(round): \(verify.stdout)\(verify.stderr)")
        }
    }
}

@Suite("read-only media and permissions")
struct MediaTests {
    /// Whether this process may mount a tmpfs (root with CAP_SYS_ADMIN, as on the CI machines).
    static let canMount: Bool = {
        guard getuid() == 0, let probe = try? TemporaryFolder() else { return false }
        guard mount("tmpfs", probe.url.path, "tmpfs", 0, "size=64k") == 0 else { return false }
        umount(probe.url.path)
        return true
    }()

    @Test("get, inspect and verify read a cache on a read-only file system", .enabled(if: canMount, "mounting a tmpfs needs root"))
    func readOnlyMedia() throws {
        let folder = try TemporaryFolder()
        try folder.copyTestdata("photos/chelsea.jpg", into: "source", as: "a.jpg")
        let media = folder.path("media")
        try FileManager.default.createDirectory(atPath: media, withIntermediateDirectories: true)
        guard mount("tmpfs", media, "tmpfs", 0, "size=8m") == 0 else { Issue.record("mount: errno \(errno)"); return }
        defer { umount(media) }
        let cache = media + "/cache"
        let ingest = try Fic.run(["ingest", folder.path("source"), "--cache", cache, "--format", "tiny:8x8:bgra:max=16"])
        #expect(ingest.status == 0, "\(ingest.stderr)")
        #expect(mount("tmpfs", media, "tmpfs", UInt(MS_REMOUNT | MS_RDONLY), "size=8m") == 0)
        let get = try Fic.run(["get", "--cache", cache, "--format", "tiny", "--entity", "a.jpg", "--out", folder.path("a.png")])
        #expect(get.status == 0, "\(get.stderr)")
        let inspect = try Fic.run(["inspect", "--cache", cache])
        #expect(inspect.status == 0 && inspect.stdout.contains("1/16"), "\(inspect.stdout)\(inspect.stderr)")
        let verify = try Fic.run(["verify", "--cache", cache])
        #expect(verify.status == 0 && verify.stdout.contains("all intact"), "\(verify.stdout)\(verify.stderr)")
        let repair = try Fic.run(["verify", "--cache", cache, "--repair"])
        #expect(repair.status == 1 && repair.stderr.contains("read-only"), "repairing needs a writable cache: \(repair.stderr)")
    }

    @Test("what the cache creates is private to the user, and a stricter umask is kept")
    func permissions() throws {
        let binary = try #require(Fic.binary)
        for (umask, fileMode, folderMode) in [("022", 0o600, 0o700), ("277", 0o400, 0o500)] {
            let folder = try TemporaryFolder()
            try folder.copyTestdata("photos/chelsea.jpg", into: "source", as: "a.jpg")
            let run = try ChildProcess.capture(
                "/bin/sh",
                [
                    "-c", "umask \(umask) && exec \"$0\" ingest \"$1\" --cache \"$2\" --format tiny:8x8:bgra:max=4",
                    binary, folder.path("source"), folder.path("cache/deep")
                ])
            #expect(run.status == 0)
            func mode(_ path: String) -> Int {
                var st = stat()
                return lstat(path, &st) == 0 ? Int(st.st_mode & 0o777) : -1
            }
            #expect(mode(folder.path("cache/deep/default/tiny.fictable")) == fileMode, "umask \(umask)")
            #expect(mode(folder.path("cache/deep/default.formats.json")) == fileMode, "umask \(umask)")
            #expect(mode(folder.path("cache/deep/default")) == folderMode, "umask \(umask)")
            #expect(mode(folder.path("cache/deep")) == folderMode, "umask \(umask)")
        }
    }
}
