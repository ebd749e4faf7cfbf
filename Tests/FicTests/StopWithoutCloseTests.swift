import FICTestSupport
import Foundation
import ImageTable
import Testing

/// The tool's commands on a cache whose last writer was killed: on the same boot they report
/// nothing and check nothing; after a (simulated) restart they say that every image is checked.
@Suite("stop without close")
struct StopWithoutCloseTests {
    static let format = ["--format", "tiny:64x64:bgra:max=400"]

    /// A folder of `copies` links to each test photo.
    func manyPhotos(_ folder: TemporaryFolder, copies: Int) throws -> String {
        let root = folder.path("photos")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let photos = try FileManager.default.contentsOfDirectory(atPath: Fic.testdata + "/photos").sorted()
        for copy in 0..<copies {
            for photo in photos {
                try FileManager.default.createSymbolicLink(
                    atPath: root + "/\(copy)-\(photo)", withDestinationPath: Fic.testdata + "/photos/" + photo)
            }
        }
        return root
    }

    /// Kills the process `pid` with `SIGKILL` once `bytes` bytes of pixels are stored in the
    /// table file at `table` (see ``storedBytes(_:atLeast:)``), at most 60 s on; returns whether
    /// it had exited by itself before, and its wait status. The wait and the kill run on a thread
    /// of their own, so that they come at once however busy Swift's cooperative pool is.
    static func kill(_ pid: pid_t, onceStored bytes: Int, in table: String) async -> (exited: Bool, status: Int32) {
        await OwnThread.run { () -> (Bool, Int32) in
            var status: Int32 = 0
            let deadline = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < deadline {
                if waitpid(pid, &status, WNOHANG) == pid { return (true, status) }
                if storedBytes(table, atLeast: bytes) { break }
                sched_yield()
            }
            Glibc.kill(pid, SIGKILL)
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            return (false, status)
        }
    }

    /// Whether at least `enough` bytes of the table file at `path` past its first page are not
    /// zero: written since it was made (its file is made of zeros, then filled as images are stored).
    static func storedBytes(_ path: String, atLeast enough: Int) -> Bool {
        guard let bytes = try? ExternalTools.bytes(atPath: path), bytes.count > 4096 else { return false }
        return bytes.withUnsafeBufferPointer { b in
            var found = 0
            for i in 4096..<b.count where b[i] != 0 {
                found += 1
                if found >= enough { return true }
            }
            return false
        }
    }

    @Test("an ingest killed mid-run leaves a cache the next commands use without any check", .timeLimit(.minutes(3)))
    func killedIngest() async throws {
        let folder = try TemporaryFolder()
        // 392 images (within the table's 400): the kill after five comes long before the end.
        let photos = try manyPhotos(folder, copies: 56)
        let cache = folder.path("cache"), table = cache + "/default/tiny.fictable"
        let binary = try #require(Fic.binary)
        let ingest = try ExternalTools.spawn(
            binary, ["ingest", photos, "--cache", cache, "--jobs", "1"] + Self.format,
            standardOutput: "/dev/null", standardError: "/dev/null")
        // Killed once it has stored some images (five images' worth of pixels written past the
        // table's header; its file is made at full size at once, so its size says nothing), mid-run.
        // The ingest takes well under a second: the wait and the kill run on a thread of its own,
        // so that they come at once however busy Swift's cooperative pool is with other tests.
        let (exited, status) = await Self.kill(ingest, onceStored: 5 * 64 * 64 * 4, in: table)
        #expect(!exited, "the ingest was still running when it had stored some images")
        #expect(status & 0x7F == SIGKILL, "the ingest was killed before it finished (wait status \(status))")

        let inspect = try Fic.run(["inspect", "--cache", cache])
        #expect(inspect.status == 0, "\(inspect.stderr)")
        // A stop on this boot is nothing to report; only the image being written at the kill, if the
        // kill came mid-write (it comes at a random moment), is dropped and said so.
        let reported = inspect.stderr.split(separator: "\n").filter { !$0.contains("being written when its process stopped was dropped") }
        #expect(reported.isEmpty, "a stop on this boot is nothing to report: \(inspect.stderr)")

        // The same file after a restart of the system (inspect opened it read-only: still "left open").
        let handle = try #require(FileHandle(forUpdatingAtPath: table))
        try handle.seek(toOffset: UInt64(TableFileFormat.bootIdentifierOffset))
        try handle.write(contentsOf: Data((0..<TableFileFormat.bootIdentifierLength).map { UInt8($0 + 1) }))
        try handle.close()
        let afterRestart = try Fic.run(["inspect", "--cache", cache])
        #expect(afterRestart.status == 0, "\(afterRestart.stderr)")
        #expect(
            afterRestart.stderr.contains("the system has restarted since it was written")
                && afterRestart.stderr.contains("is checked before it is first served"), "\(afterRestart.stderr)")

        let verify = try Fic.run(["verify", "--cache", cache])
        #expect(verify.status == 0 && verify.stdout.contains("all intact"), "\(verify.stdout)\(verify.stderr)")
        let again = try Fic.run(["ingest", photos, "--cache", cache])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("0 refused"), "\(again.stdout)")
        // The ingest found every image stored and read none, so none was checked yet: still marked.
        let marked = try Fic.run(["inspect", "--cache", cache])
        #expect(marked.stderr.contains("left unchecked by an earlier unclean stop are checked before first use"), "\(marked.stderr)")
        let repair = try Fic.run(["verify", "--repair", "--cache", cache])
        #expect(repair.status == 0, "\(repair.stdout)\(repair.stderr)")
        let clean = try Fic.run(["inspect", "--cache", cache])
        #expect(clean.stderr.isEmpty, "checked and marked so by a writer: \(clean.stderr)")
    }
}
