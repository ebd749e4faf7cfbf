import FICCore
import FICTestSupport
import Foundation
import Testing
@testable import ImageLoader

/// A download killed with SIGKILL half way: nothing of it is served afterwards, nothing stored
/// before is lost, and no file of it is left in the originals folder.
@Suite struct CrashTests {
    static let environment = ProcessInfo.processInfo.environment

    @Test func aDownloadKilledHalfWayLeavesNothingBehind() async throws {
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let server = try await FaultServer.start()
        let folder = dir.child("originals")
        let good = URL(string: "https://example.com/kept.jpg")!
        do {
            let cache = try OriginalsCache(directory: folder, maximumBytes: 64 << 20)
            try store(pattern(30_000), for: good, in: cache)
        }
        let before = filesIn(folder)
        // 8 MB announced; 2 MB sent, then nothing: the child has written over a megabyte of it.
        let url = server.url("/stall/8000000")
        let ready = dir.child("ready")
        let child = try ExternalTools.spawn(
            CommandLine.arguments[0], ["--testing-library", "swift-testing", "--filter", "downloadUntilKilled"],
            extraEnvironment: ["FIC_CRASH_URL": url.absoluteString, "FIC_CRASH_FOLDER": folder, "FIC_CRASH_READY": ready],
            standardOutput: "/dev/null", standardError: "/dev/null")
        var status: Int32 = 0
        var exited = false
        try await waitUntil("the child has written part of the download") {
            if !exited { exited = waitpid(child, &status, WNOHANG) == child }
            return FileManager.default.fileExists(atPath: ready) || exited
        }
        #expect(!exited, "the child is still downloading")
        kill(child, SIGKILL)
        if !exited { while waitpid(child, &status, 0) < 0 && errno == EINTR {} }
        #expect(status & 0x7F == SIGKILL, "the child was killed (wait status \(status))")
        #expect(filesIn(folder) == before, "no entry, no temporary file of the killed download")
        let cache = try OriginalsCache(directory: folder, maximumBytes: 64 << 20)
        #expect(try cache.data(for: url) == nil)
        #expect(same(try cache.data(for: good), pattern(30_000)), "what was stored before is intact")
        #expect(cache.diskUsage == entryBytesOnDisk(folder))
        await server.stop()
    }

    /// Run by the test above in a child process, which it kills: downloads until then.
    @Test(.enabled(if: environment["FIC_CRASH_URL"] != nil, "runs only as the child of aDownloadKilledHalfWayLeavesNothingBehind"))
    func downloadUntilKilled() async throws {
        let env = Self.environment
        let url = URL(string: env["FIC_CRASH_URL"]!)!
        let loader = OriginalsLoader(
            configuration: LoaderConfiguration(idleTimeout: .seconds(600), totalTimeout: .seconds(600)),
            originals: try OriginalsCache(directory: env["FIC_CRASH_FOLDER"]!, maximumBytes: 64 << 20))
        var received = 0
        for try await chunk in try await loader.download(url).chunks {
            received += chunk.count
            if received >= 3 << 19 { _ = FileManager.default.createFile(atPath: env["FIC_CRASH_READY"]!, contents: nil) }
        }
        Issue.record("the stalled download ended instead of waiting to be killed")
    }
}
