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
                try FileManager.default.createSymbolicLink(atPath: root + "/\(copy)-\(photo)", withDestinationPath: Fic.testdata + "/photos/" + photo)
            }
        }
        return root
    }

    @Test("an ingest killed mid-run leaves a cache the next commands use without any check", .timeLimit(.minutes(3)))
    func killedIngest() throws {
        let folder = try TemporaryFolder()
        let photos = try manyPhotos(folder, copies: 12)
        let cache = folder.path("cache"), table = cache + "/default/tiny.fictable"
        let binary = try #require(Fic.binary)
        let ingest = Process()
        ingest.executableURL = URL(fileURLWithPath: binary)
        ingest.arguments = ["ingest", photos, "--cache", cache, "--jobs", "1"] + Self.format
        ingest.standardOutput = FileHandle.nullDevice
        ingest.standardError = FileHandle.nullDevice
        try ingest.run()
        // Killed once it has stored some images (its table has grown past the header), mid-run.
        let deadline = Date().addingTimeInterval(60)
        while ((try? FileManager.default.attributesOfItem(atPath: table))?[.size] as? Int ?? 0) <= 4096 && ingest.isRunning && Date() < deadline {
            usleep(2_000)
        }
        usleep(UInt32.random(in: 0...100_000))
        kill(ingest.processIdentifier, SIGKILL)
        ingest.waitUntilExit()
        #expect(ingest.terminationReason == .uncaughtSignal, "the ingest was killed before it finished")

        let inspect = try Fic.run(["inspect", "--cache", cache])
        #expect(inspect.status == 0, "\(inspect.stderr)")
        #expect(inspect.stderr.isEmpty, "a stop on this boot is nothing to report: \(inspect.stderr)")

        // The same file after a restart of the system (inspect opened it read-only: still "left open").
        let handle = try #require(FileHandle(forUpdatingAtPath: table))
        try handle.seek(toOffset: UInt64(TableFileFormat.bootIdentifierOffset))
        try handle.write(contentsOf: Data((0..<TableFileFormat.bootIdentifierLength).map { UInt8($0 + 1) }))
        try handle.close()
        let afterRestart = try Fic.run(["inspect", "--cache", cache])
        #expect(afterRestart.status == 0, "\(afterRestart.stderr)")
        #expect(afterRestart.stderr.contains("the system has restarted since it was written") && afterRestart.stderr.contains("is checked before it is first served"), "\(afterRestart.stderr)")

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
