import FICTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Glibc
import Testing

/// An nginx of the test's own (its configuration, logs and pid file in a temporary folder, on a
/// free port of 127.0.0.1, in the foreground as a child of the test) that spreads requests over
/// `fic serve` processes listed in an `upstream` block, retrying the next one on a connection
/// error, and logs which upstream answered each request.
final class UpstreamNginx: @unchecked Sendable {
    let folder: String
    let port: Int
    private let pid: pid_t
    private var stopped = false

    var base: String { "http://127.0.0.1:\(port)" }
    var accessLog: String { folder + "/access.log" }

    static let binary = ["/usr/sbin/nginx", "/usr/bin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Starts nginx in front of the servers on `upstreams` (ports of 127.0.0.1); tries a few free
    /// ports (another process may take the one chosen before nginx binds it).
    static func start(upstreams: [Int]) async throws -> UpstreamNginx {
        let nginx = try #require(binary, "nginx is missing: run scripts/install-deps")
        let folder = try ExternalTools.makeFolder("upstream-nginx")
        for name in ["tmp", "logs"] {
            try FileManager.default.createDirectory(atPath: folder + "/" + name, withIntermediateDirectories: true)
        }
        var failures: [String] = []
        for _ in 0..<5 {
            let port = try freePort()
            try configuration(folder: folder, port: port, upstreams: upstreams).write(
                toFile: folder + "/nginx.conf", atomically: true, encoding: .utf8)
            let pid = try ExternalTools.spawn(
                nginx, ["-p", folder + "/", "-e", folder + "/error.log", "-c", folder + "/nginx.conf"],
                standardOutput: folder + "/stdout", standardError: folder + "/stderr")
            let started = UpstreamNginx(folder: folder, port: port, pid: pid)
            var exited = false, status: Int32 = 0
            try? await waitUntil("nginx listens on \(port), or exits", timeout: .seconds(30)) {
                exited = waitpid(pid, &status, WNOHANG) == pid
                return exited || LoopbackSocket.accepts(port)
            }
            if exited {
                started.stopped = true
                failures.append(String(decoding: (try? ExternalTools.bytes(atPath: folder + "/error.log")) ?? [], as: UTF8.self))
                continue
            }
            if let (code, _) = try? await get(started.base + "/alive"), code == 204 { return started }
        }
        throw FicServer.Failed(description: "nginx did not start: \(failures.joined(separator: "\n"))")
    }

    private init(folder: String, port: Int, pid: pid_t) {
        self.folder = folder
        self.port = port
        self.pid = pid
    }

    /// Stops nginx (SIGQUIT: a graceful stop) and reaps it.
    func stop() {
        guard !stopped else { return }
        stopped = true
        kill(pid, SIGQUIT)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// The configuration: round robin over `upstreams`, the next one tried on a connection error
    /// or timeout, the client's Host passed on (so that an info.json names nginx's address), each
    /// request logged with the upstreams tried, in order.
    private static func configuration(folder: String, port: Int, upstreams: [Int]) -> String {
        // As root, the workers would run as nobody; run them as this user (as scripts/test-server does).
        var user = ""
        if getuid() == 0, let pw = getpwuid(getuid()), let gr = getgrgid(getgid()) {
            user = "user \(String(cString: pw.pointee.pw_name)) \(String(cString: gr.pointee.gr_name));"
        }
        let servers = upstreams.map { "        server 127.0.0.1:\($0);" }.joined(separator: "\n")
        return """
            \(user)
            worker_processes 1;
            daemon off;
            pid \(folder)/nginx.pid;
            error_log \(folder)/error.log warn;
            events { worker_connections 256; }
            http {
                client_body_temp_path \(folder)/tmp/body;
                proxy_temp_path \(folder)/tmp/proxy;
                fastcgi_temp_path \(folder)/tmp/fastcgi;
                uwsgi_temp_path \(folder)/tmp/uwsgi;
                scgi_temp_path \(folder)/tmp/scgi;
                log_format upstreams '$status "$upstream_addr" "$upstream_status" $request_uri';
                access_log \(folder)/access.log upstreams;
                upstream fic {
            \(servers)
                }
                server {
                    listen 127.0.0.1:\(port);
                    location = /alive { access_log off; return 204; }
                    location / {
                        proxy_pass http://fic;
                        proxy_http_version 1.1;
                        proxy_set_header Connection "";
                        proxy_set_header Host $http_host;
                        proxy_next_upstream error timeout;
                        proxy_connect_timeout 5s;
                    }
                }
            }

            """
    }

    /// A port of 127.0.0.1 that was free a moment ago (bound to port 0, then closed).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        try #require(bound, "no free port: \(String(cString: strerror(errno)))")
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// One log line: the status, the upstreams tried (in order) and the request.
    struct Logged {
        let status: Int
        let upstreams: [String]
        let uri: String
    }

    /// The requests logged so far.
    func logged() -> [Logged] {
        let text = String(decoding: (try? ExternalTools.bytes(atPath: accessLog)) ?? [], as: UTF8.self)
        return text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: "\"", omittingEmptySubsequences: false)
            guard parts.count == 5, let status = Int(parts[0].trimmingCharacters(in: .whitespaces)) else { return nil }
            let upstreams = parts[1].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            return Logged(status: status, upstreams: upstreams, uri: parts[4].trimmingCharacters(in: .whitespaces))
        }
    }

    /// A session that keeps nothing: every request goes to the server.
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSession(configuration: configuration)
    }()

    /// The status and body of a GET.
    static func get(_ url: String) async throws -> (Int, Data) {
        let (data, response) = try await session.data(from: try #require(URL(string: url)))
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }
}

@Suite("fic serve: several servers on one store behind an nginx upstream")
struct ServeUpstreamTests {
    /// Every file and folder under `root` with its size and modification time (to the nanosecond).
    static func snapshot(_ root: String) throws -> [String: String] {
        var result: [String: String] = [:]
        let enumerator = try #require(FileManager.default.enumerator(atPath: root))
        for case let relative as String in enumerator {
            var st = stat()
            try #require(lstat(root + "/" + relative, &st) == 0)
            result[relative] = "\(st.st_mode) \(st.st_size) \(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec) \(st.st_ino)"
        }
        var st = stat()
        try #require(lstat(root, &st) == 0)
        result["."] = "\(st.st_mode) \(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)"
        return result
    }

    /// The tiles, descriptors and IIIF images the test asks for, for a pyramid of a `width × height` image.
    static func paths(name: String, width: Int, height: Int) -> [String] {
        var top = 0
        while (1 << top) < max(width, height) { top += 1 }
        var paths = ["/dzi/\(name).dzi"]
        for level in [top, top - 1, top - 3] {
            let f = 1 << (top - level)
            let columns = ((width + f - 1) / f + 255) / 256, rows = ((height + f - 1) / f + 255) / 256
            for (c, r) in [(0, 0), (columns - 1, rows - 1), (columns / 2, rows / 2)] {
                paths.append("/dzi/\(name)_files/\(level)/\(c)_\(r).jpg")
            }
        }
        for iiif in [
            "full/max/0/default.jpg", "0,0,512,512/256,/0/default.jpg", "full/200,/90/gray.png", "square/100,100/!0/default.webp",
            "pct:10,10,50,50/max/0/bitonal.png", "full/,300/180/color.jpg", "100,50,300,200/max/270/default.png",
            "full/^!600,600/0/default.jpg"
        ] {
            paths.append("/iiif/3/\(name)/\(iiif)")
        }
        return paths
    }

    @Test(
        "three servers behind nginx answer byte for byte as one does, the load is spread, a killed one is routed around, and the store is not written",
        .enabled(if: UpstreamNginx.binary != nil || TestWebServer.isRequired, "nginx is missing: run scripts/install-deps"),
        .timeLimit(.minutes(10)))
    func upstreamServesTheSameBytes() async throws {
        let folder = try TemporaryFolder()
        let store = folder.path("store")
        let photos = [("hubble", 1000, 872), ("retina", 1411, 1411)]
        for (name, _, _) in photos {
            let run = try Fic.run(["tile", Fic.testdata + "/photos/\(name).jpg", "--out", store + "/" + name + ".tif"])
            try #require(run.status == 0, "fic tile \(name): \(run.stderr)")
        }
        let before = try Self.snapshot(store)

        var servers: [FicServer] = []
        for _ in 0..<3 { servers.append(try await FicServer.start(store: store)) }
        let nginx = try await UpstreamNginx.start(upstreams: servers.map(\.port))
        let paths = photos.flatMap { Self.paths(name: $0.0, width: $0.1, height: $0.2) }

        // Straight to the first server: the reference answers.
        var direct: [String: Data] = [:]
        for path in paths {
            let (status, body) = try await UpstreamNginx.get(servers[0].base + path)
            #expect(status == 200, "\(path) from \(servers[0].base): \(status) \(String(decoding: body.prefix(200), as: UTF8.self))")
            direct[path] = body
        }

        // Through nginx, each twice (so that each server answers some): the same bytes.
        for _ in 0..<2 {
            for path in paths {
                let (status, body) = try await UpstreamNginx.get(nginx.base + path)
                #expect(status == 200, "\(path) through nginx: \(status)")
                #expect(
                    body == direct[path],
                    "\(path) through nginx differs from \(servers[0].base)'s answer (\(body.count) and \(direct[path]?.count ?? 0) bytes)")
            }
        }
        // nginx writes a request's log line after its answer: wait for the last one.
        try await waitUntil("nginx logged every request") { nginx.logged().count >= 2 * paths.count }
        let spread = nginx.logged()
        #expect(spread.count == 2 * paths.count, "nginx logged every request")
        var answered: [String: Int] = [:]
        for line in spread { answered[line.upstreams.last ?? "-", default: 0] += 1 }
        print("serve upstream: \(2 * paths.count) requests through nginx answered by \(answered.sorted { $0.key < $1.key })")
        #expect(answered.count > 1, "requests went to more than one server: \(answered)")
        #expect(Set(answered.keys) == Set(servers.map { "127.0.0.1:\($0.port)" }), "round robin reached all three: \(answered)")

        // The IIIF description names nginx's address, as the client asked for it.
        let (infoStatus, info) = try await UpstreamNginx.get(nginx.base + "/iiif/3/hubble/info.json")
        #expect(infoStatus == 200)
        #expect(
            String(decoding: info, as: UTF8.self).contains("\"\(nginx.base)/iiif/3/hubble\""), "\(String(decoding: info, as: UTF8.self))")

        // One server killed: nginx's connection to it is refused, it tries the next, and every
        // request still succeeds with the same bytes.
        // The description's line, too, is written after its answer: wait for it, so that the
        // lines counted below are those of the requests made with a server killed.
        let logged = 2 * paths.count + 1
        try await waitUntil("nginx logged the description's request") { nginx.logged().count >= logged }
        let killed = "127.0.0.1:\(servers[1].port)"
        servers[1].stop(SIGKILL)
        for path in paths {
            let (status, body) = try await UpstreamNginx.get(nginx.base + path)
            #expect(status == 200, "\(path) through nginx with \(killed) killed: \(status)")
            #expect(body == direct[path], "\(path) through nginx with \(killed) killed differs")
        }
        try await waitUntil("nginx logged every request") { nginx.logged().count >= logged + paths.count }
        let after = nginx.logged().dropFirst(logged)
        #expect(after.count == paths.count)
        #expect(!after.contains { $0.upstreams.last == killed }, "no answer from the killed server")
        #expect(
            after.contains { $0.upstreams.count > 1 && $0.upstreams.first == killed },
            "nginx tried the killed server and went on to the next")
        print(
            "serve upstream: after killing \(killed): \(after.filter { $0.upstreams.count > 1 }.count) request(s) retried on the next server, \(after.count) answered"
        )

        nginx.stop()
        for server in servers { server.stop(SIGTERM) }
        let afterwards = try Self.snapshot(store)
        let changed = Set(before.keys).union(afterwards.keys).filter { before[$0] != afterwards[$0] }.sorted()
        #expect(
            changed.isEmpty,
            "the servers wrote nothing in the store: \(changed.map { "\($0): \(before[$0] ?? "absent") → \(afterwards[$0] ?? "absent")" })")
        for server in servers where !server.standardError.isEmpty { print("serve upstream: \(server.base) said: \(server.standardError)") }
    }
}
