import FICHarness
import FICTestSupport
import Foundation
import Glibc
import Testing

/// The nginx test server of `scripts/test-server` (which `scripts/test` starts): its base URL and
/// served folder from `FIC_TEST_SERVER_URL`/`FIC_TEST_SERVER_ROOT`, or from `.build/test-server`.
struct TestWebServer: Sendable {
    let base: String
    let root: String

    static let shared: TestWebServer? = {
        let env = ProcessInfo.processInfo.environment
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .path
        let folder = env["FIC_TEST_SERVER_DIR"] ?? repository + "/.build/test-server"
        let root = env["FIC_TEST_SERVER_ROOT"] ?? folder + "/www"
        if let url = env["FIC_TEST_SERVER_URL"] { return TestWebServer(base: url, root: root) }
        guard let url = try? String(contentsOfFile: folder + "/url", encoding: .utf8),
            let pid = try? String(contentsOfFile: folder + "/nginx.pid", encoding: .utf8),
            let n = Int32(pid.trimmingCharacters(in: .whitespacesAndNewlines)), kill(n, 0) == 0
        else { return nil }
        return TestWebServer(base: url.trimmingCharacters(in: .whitespacesAndNewlines), root: root)
    }()

    /// Whether the tests must have it (`scripts/test` sets `FIC_REQUIRE_TEST_SERVER=1`).
    static let isRequired = ProcessInfo.processInfo.environment["FIC_REQUIRE_TEST_SERVER"] == "1"

    /// A new served folder holding copies of the test-data `files`; returns its name.
    func publish(_ files: [String]) throws -> String {
        let name = "fic-\(UUID().uuidString)"
        let folder = root + "/" + name
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for file in files {
            try FileManager.default.copyItem(atPath: Fic.testdata + "/" + file, toPath: folder + "/" + (file as NSString).lastPathComponent)
        }
        return name
    }

    /// Removes a published folder.
    func unpublish(_ name: String) { try? FileManager.default.removeItem(atPath: root + "/" + name) }
}

/// An HTTP server on 127.0.0.1 that answers every request with `200`, a `Content-Length` of the
/// whole `body`, and only its first `sent` bytes, then closes the connection (a truncated body),
/// resets it, or sends nothing more until the client goes (a stalled body). Blocking sockets on
/// one thread: for tests only.
final class CuttingServer: @unchecked Sendable {
    /// What happens after the bytes sent.
    enum Ending: Sendable { case close, reset, stall }

    /// What the server's thread saw of stalled clients (kept apart from the server, which the
    /// thread must not keep alive).
    final class Stalls: @unchecked Sendable {
        private let lock = NSLock()
        private var stalling = 0
        private var gone = 0

        /// Clients sent their share, now sent nothing more, still connected.
        var waiting: Int { lock.withLock { stalling } }
        /// Clients that went away (closed the connection) while stalled.
        var left: Int { lock.withLock { gone } }

        func began() { lock.withLock { stalling += 1 } }
        func ended() {
            lock.withLock {
                stalling -= 1; gone += 1
            }
        }
    }

    let port: Int
    /// With `.stall`: the clients stalled, and those that gave up.
    let stalls = Stalls()
    private let listener: Int32

    init(body: [UInt8], sent: Int, ending: Ending) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        try #require(bound && listen(fd, 16) == 0, "cannot listen on 127.0.0.1: errno \(errno)")
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let stalls = self.stalls
        let thread = Thread {
            while true {
                let client = accept(fd, nil, nil)
                if client < 0 { if errno == EINTR { continue } else { return } }
                Self.serve(client, body: body, sent: sent, ending: ending, stalls: stalls)
            }
        }
        thread.start()
    }

    private static func serve(_ client: Int32, body: [UInt8], sent: Int, ending: Ending, stalls: Stalls) {
        var request: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !request.suffix(4).elementsEqual([13, 10, 13, 10]) {
            let n = buffer.withUnsafeMutableBytes { read(client, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            request += buffer[0..<n]
        }
        let head = Array("HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nContent-Length: \(body.count)\r\n\r\n".utf8)
        for part in [head, Array(body[0..<sent])] {
            var offset = 0
            while offset < part.count {
                let n = part[offset...].withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
                if n <= 0 { break }
                offset += n
            }
        }
        // What was sent is in the client's hands before the connection ends: a reset would
        // otherwise race the bytes. Watched, not slept on: the send queue empties once the
        // client's kernel has acknowledged every byte (or the client went away).
        waitUntilAcknowledged(client)
        if ending == .stall {
            stalls.began()
            while buffer.withUnsafeMutableBytes({ read(client, $0.baseAddress, $0.count) }) > 0 {}
            stalls.ended()
        }
        if ending == .reset {
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            setsockopt(client, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        }
        close(client)
    }

    /// Returns once `client`'s send queue is empty (TIOCOUTQ: bytes not yet acknowledged), or
    /// after 30 s.
    private static func waitUntilAcknowledged(_ client: Int32) {
        let deadline = ContinuousClock.now + .seconds(30)
        var pending: Int32 = 0
        while ContinuousClock.now < deadline, ioctl(client, UInt(TIOCOUTQ), &pending) == 0, pending > 0 {
            sched_yield()
        }
    }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }
}

/// `fic tile URL`: the download's bytes go straight into the pyramid.
@Suite("fic tile URL", .serialized)
struct TileURLTests {
    /// Each page (level) of the pyramidal TIFF at `path` as vips writes it to PNG: the same pixels
    /// give the same bytes.
    private func pages(_ path: String, count: Int, in folder: TemporaryFolder) throws -> [[UInt8]] {
        try (0..<count).map { try ExternalTools.vipsPagePNG(path, page: $0, folder: folder.url.path) }
    }

    private func server() throws -> TestWebServer {
        if TestWebServer.shared == nil && TestWebServer.isRequired {
            Issue.record("scripts/test started nginx, but the tests cannot reach it")
        }
        return try #require(TestWebServer.shared)
    }

    @Test(
        "every tile of every level from the nginx test server equals the same file tiled from disk (JPEG through the rate-limited location, PNG)",
        .enabled(
            if: TestWebServer.shared != nil || TestWebServer.isRequired,
            "nginx is not running: start it with scripts/test-server start (scripts/test does)"),
        arguments: [("photos/hubble.jpg", "slow/"), ("photos/camera-gray.png", "")])
    func urlEqualsFile(_ file: String, location: String) throws {
        let server = try server()
        let published = try server.publish([file]); defer { server.unpublish(published) }
        let folder = try TemporaryFolder()
        let name = (file as NSString).lastPathComponent
        let fromFile = try Fic.run(["tile", Fic.testdata + "/" + file, "--out", folder.path("file.tif"), "--compression", "none"])
        #expect(fromFile.status == 0, "\(fromFile.stderr)")
        let url = "\(server.base)/\(location)\(published)/\(name)"
        let fromURL = try Fic.run(["tile", url, "--out", folder.path("url.tif"), "--compression", "none", "--json"])
        #expect(fromURL.status == 0, "\(fromURL.stderr)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data((fromURL.stdout.split(separator: "\n").last ?? "").utf8)) as? [String: Any])
        let size = try #require(try FileManager.default.attributesOfItem(atPath: Fic.testdata + "/" + file)[.size] as? Int)
        #expect(report["bytes_downloaded"] as? Int == size)
        #expect((report["after_last_byte_ms"] as? Double ?? -1) >= 0)

        let levels = try #require(report["levels"] as? Int)
        #expect(levels >= 2)
        let a = try pages(folder.path("file.tif"), count: levels, in: folder)
        let b = try pages(folder.path("url.tif"), count: levels, in: folder)
        for level in 0..<levels { #expect(a[level].count > 0 && a[level] == b[level], "level \(level) differs") }
        // It opens and reads like any pyramid.
        let tile = try Fic.run([
            "tile-get", folder.path("url.tif"), "--level", "0", "--column", "0", "--row", "0", "--out", folder.path("tile.png")
        ])
        #expect(tile.status == 0, "\(tile.stderr)")
    }

    @Test(
        "an HTTP error or a body that is not an image: exit status 1, a clear message, no pyramid",
        .enabled(
            if: TestWebServer.shared != nil || TestWebServer.isRequired,
            "nginx is not running: start it with scripts/test-server start (scripts/test does)"))
    func httpErrorsAndNonImages() throws {
        let server = try server()
        let published = try server.publish([]); defer { server.unpublish(published) }
        try String(repeating: "<html>not a photo</html>\n", count: 2000).write(
            toFile: server.root + "/" + published + "/page.jpg", atomically: true, encoding: .utf8)
        let folder = try TemporaryFolder()
        let missing = try Fic.run(["tile", "\(server.base)/\(published)/missing.jpg", "--out", folder.path("a.tif")])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("404"), "\(missing.stderr)")
        expectNoPyramid(folder.path("a.tif"))
        let failing = try Fic.run(["tile", "\(server.base)/status/500", "--out", folder.path("b.tif")])
        #expect(failing.status == 1)
        #expect(failing.stderr.contains("500"), "\(failing.stderr)")
        expectNoPyramid(folder.path("b.tif"))
        let page = try Fic.run(["tile", "\(server.base)/\(published)/page.jpg", "--out", folder.path("c.tif")])
        #expect(page.status == 1)
        #expect(page.stderr.contains("not an image"), "\(page.stderr)")
        expectNoPyramid(folder.path("c.tif"))
    }

    @Test(
        "a body cut short (the connection closed or reset after 60 %): exit status 1, a clear message, and the half-written levels removed",
        arguments: [CuttingServer.Ending.close, .reset])
    func cutBody(ending: CuttingServer.Ending) throws {
        let body = Array(try Data(contentsOf: URL(fileURLWithPath: Fic.testdata + "/photos/retina.jpg")))
        let sent = body.count * 6 / 10
        let server = try CuttingServer(body: body, sent: sent, ending: ending)
        let folder = try TemporaryFolder()
        let run = try Fic.run([
            "tile", "http://127.0.0.1:\(server.port)/retina.jpg", "--out", folder.path("p.tif"), "--stall-timeout-ms", "700"
        ]
        )
        #expect(run.status == 1)
        #expect(run.stderr.contains("cannot tile"), "\(run.stderr)")
        // The figure is what fic had taken of the body when the end came: all that was sent, or
        // (a slower fic, as under Address Sanitizer) less, the HTTP client dropping the parts it
        // still held when it saw the connection end.
        let taken = run.stderr.firstMatch(of: /ended after (\d+) of the (\d+) bytes/).map { (Int($0.1) ?? -1, Int($0.2) ?? -1) }
        if ending == .close {
            let (got, of) = try #require(taken, "\(run.stderr)")
            #expect(got > 0 && got <= sent && of == body.count, "\(run.stderr)")
        } else {
            #expect(taken.map { $0.0 <= sent && $0.1 == body.count } ?? run.stderr.lowercased().contains("reset"), "\(run.stderr)")
        }
        expectNoPyramid(folder.path("p.tif"))
    }

    /// Two runs against bodies that stall after 60 %: one told to wait an hour, started and
    /// stalled first, and one told 700 ms. The second gives up while the first still waits, which
    /// runs that ignored `--stall-timeout-ms` (both waiting the default) could not do: the first
    /// would give up first. An order of events, not a measured time; a run that never gave up
    /// would meet the time limit.
    @Test(
        "a body that stalls after 60 %: the run gives up after --stall-timeout-ms, not the default, with exit status 1, a clear message, and the half-written levels removed",
        .timeLimit(.minutes(5)))
    func stalledBody() async throws {
        let binary = try #require(Fic.binary)
        let body = Array(try Data(contentsOf: URL(fileURLWithPath: Fic.testdata + "/photos/retina.jpg")))
        let sent = body.count * 6 / 10
        let patientServer = try CuttingServer(body: body, sent: sent, ending: .stall)
        let server = try CuttingServer(body: body, sent: sent, ending: .stall)
        let folder = try TemporaryFolder()
        let patient = try ChildProcess.startCapturing(
            binary,
            [
                "tile", "http://127.0.0.1:\(patientServer.port)/retina.jpg", "--out", folder.path("patient.tif"), "--stall-timeout-ms",
                "3600000"
            ])
        defer { patient.stop() }
        try await waitUntil("the first run's body has stalled") { patientServer.stalls.waiting == 1 }
        let arguments = ["tile", "http://127.0.0.1:\(server.port)/retina.jpg", "--out", folder.path("p.tif"), "--stall-timeout-ms", "700"]
        let run = try await OwnThread.run { Result { try Fic.run(arguments) } }.get()
        #expect(run.status == 1)
        #expect(run.stderr.contains("cannot tile"), "\(run.stderr)")
        #expect(run.stderr.contains("stalled"), "\(run.stderr)")
        #expect(patientServer.stalls.left == 0 && patient.isRunning, "the run told to wait an hour still waits")
        try await waitUntil("the server saw the run go") { server.stalls.left == 1 }
        expectNoPyramid(folder.path("p.tif"))
    }
}
