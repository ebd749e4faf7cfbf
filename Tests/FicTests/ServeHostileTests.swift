import FICTestSupport
import Foundation
import Glibc
import Testing

/// `fic serve` against clients that misbehave: a thousand connections that send half a request
/// and stall, garbage, absurd paths. Others are still answered, memory stays bounded, and the
/// server stays up.
@Suite(.serialized) struct ServeHostileTests {
    /// A connected TCP socket to 127.0.0.1:`port`.
    static func connect(_ port: Int) throws -> Int32 { try LoopbackSocket.connect(port) }

    /// Sends `request` on a new connection and reads the answer until the server closes it.
    static func exchange(_ port: Int, _ request: [UInt8]) throws -> String { try LoopbackSocket.exchange(port, request) }

    /// The status line's code of a GET of `path` (with `Connection: close`).
    static func status(_ port: Int, _ path: String) throws -> Int? {
        let answer = try exchange(port, Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8))
        return answer.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) }
    }

    /// The resident memory of process `pid`, bytes.
    static func residentBytes(_ pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return nil }
        return Int(line.filter(\.isNumber)).map { $0 * 1024 }
    }

    /// Two requests sent at once on one connection: the first made on a render thread, the second
    /// kept (answered on the event loop). The answers come in the order of the requests.
    @Test func pipelinedAnswersKeepTheirOrder() async throws {
        let folder = try TemporaryFolder()
        let tiled = try Fic.run(["tile", Fic.testdata + "/photos/hubble.jpg", "--out", folder.path("store/photo.tif")])
        #expect(tiled.status == 0, "\(tiled.stderr)")
        let server = try await FicServer.start(store: folder.path("store"))
        let tile = "/dzi/photo_files/8/0_0.jpg"
        #expect(try Self.status(server.port, tile) == 200)
        for size in 600..<603 {
            let slow = "/iiif/3/photo/full/\(size),/0/default.png"
            let requests = "GET \(slow) HTTP/1.1\r\nHost: x\r\n\r\nGET \(tile) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            let answer = try Self.exchange(server.port, Array(requests.utf8))
            let types = answer.components(separatedBy: "\r\n").filter { $0.lowercased().hasPrefix("content-type:") }
            #expect(types == ["Content-Type: image/png", "Content-Type: image/jpeg"], "\(types)")
        }
    }

    @Test func stalledConnectionsDoNotStopOthers() async throws {
        let folder = try TemporaryFolder()
        let tiled = try Fic.run(["tile", Fic.testdata + "/photos/hubble.jpg", "--out", folder.path("store/photo.tif")])
        #expect(tiled.status == 0, "\(tiled.stderr)")
        let server = try await FicServer.start(store: folder.path("store"))
        let tile = "/dzi/photo_files/8/0_0.jpg"
        #expect(try Self.status(server.port, tile) == 200)
        let before = try #require(Self.residentBytes(server.pid))

        // A thousand clients that send the start of a request and never finish it (this process
        // needs the descriptors too: its soft limit is raised as far as the hard one allows).
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = min(limit.rlim_max, 8192)
        setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        let clients = min(1000, Int(limit.rlim_cur) - 300)
        var stalled: [Int32] = []
        defer { for fd in stalled { close(fd) } }
        for _ in 0..<clients {
            let fd = try Self.connect(server.port)
            _ = Array("GET /iiif/3/photo/full/max/0/def".utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            stalled.append(fd)
        }
        // Meanwhile, others are answered.
        for _ in 0..<20 { #expect(try Self.status(server.port, tile) == 200) }
        #expect(try Self.status(server.port, "/iiif/3/photo/0,0,512,512/256,/0/default.png") == 200)
        let during = try #require(Self.residentBytes(server.pid))
        #expect(during - before < 64 << 20, "a thousand stalled connections cost \((during - before) >> 20) MiB")

        // Garbage, an absurd path, a header flood: refused, and the server stays up.
        let garbage = try Self.exchange(server.port, (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919) })
        #expect(!garbage.contains("200 OK"))
        #expect(try Self.status(server.port, "/iiif/3/photo/" + String(repeating: "x", count: 8000) + "/max/0/default.jpg") == 400)
        #expect(try Self.status(server.port, "/iiif/3/photo/0,0,99999999,99999999/max/0/default.jpg") == 200)
        #expect(try Self.status(server.port, "/iiif/3/photo/full/99999,99999/0/default.jpg") == 400)
        #expect(try Self.status(server.port, "/dzi/..%2F..%2Fetc%2Fpasswd") == 404)
        #expect(server.isRunning)
        #expect(try Self.status(server.port, tile) == 200)
    }
}
