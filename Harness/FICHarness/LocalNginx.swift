import Foundation
import Glibc

/// nginx from the system, started with a configuration of its own on 127.0.0.1 to serve a
/// folder, and stopped by its pid file. Nothing of the system's nginx setup is used.
public final class LocalNginx: @unchecked Sendable {
    /// The port it listens on.
    public let port: Int
    /// Its base URL.
    public var base: URL { URL(string: "http://127.0.0.1:\(port)")! }
    private let prefix: String

    /// Starts nginx serving `root`, with its files in `prefix` (created). Each entry of
    /// `fastCGI` passes the requests of one path (an exact `location`) to the FastCGI servers on
    /// those ports of 127.0.0.1, in turn (iipsrv's way of being served).
    ///
    /// - Throws: ``HarnessError`` when nginx is missing or does not start.
    public init(root: String, prefix: String, fastCGI: [String: [Int]] = [:]) throws {
        guard let nginx = Executables.find("nginx") ?? (access("/usr/sbin/nginx", X_OK) == 0 ? "/usr/sbin/nginx" : nil) else {
            throw HarnessError("nginx is not installed (scripts/install-deps --bench installs it)")
        }
        self.prefix = prefix
        try FileManager.default.createDirectory(atPath: prefix + "/tmp", withIntermediateDirectories: true)
        var lastError = ""
        for attempt in 0..<30 {
            let port = 40000 + Int(getpid() % 10000) + attempt * 11
            let user = getuid() == 0 ? "user root root;" : ""
            let conf = """
                \(user)
                worker_processes 2;
                daemon on;
                pid \(prefix)/nginx.pid;
                error_log \(prefix)/error.log warn;
                events { worker_connections 1024; }
                http {
                    access_log off;
                    client_body_temp_path \(prefix)/tmp/body;
                    proxy_temp_path \(prefix)/tmp/proxy;
                    fastcgi_temp_path \(prefix)/tmp/fastcgi;
                    uwsgi_temp_path \(prefix)/tmp/uwsgi;
                    scgi_temp_path \(prefix)/tmp/scgi;
                    types { image/jpeg jpg; }
                    sendfile on;
                    tcp_nopush on;
                    keepalive_requests 100000;
                \(fastCGI.sorted { $0.key < $1.key }.enumerated().map { Self.fastCGIUpstream(index: $0, ports: $1.value) }.joined(separator: "\n"))
                    server {
                        listen 127.0.0.1:\(port) backlog=1024;
                        root \(root);
                        location / { }
                \(fastCGI.sorted { $0.key < $1.key }.enumerated().map { Self.fastCGILocation($1.key, ports: $1.value, index: $0) }.joined(separator: "\n"))
                    }
                }
                """
            try conf.write(toFile: prefix + "/nginx.conf", atomically: true, encoding: .utf8)
            let log = prefix + "/start.log"
            let status = try Self.spawnAndWait(nginx, ["-p", prefix, "-c", prefix + "/nginx.conf"], errors: log)
            let message = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if status == 0 {
                for _ in 0..<50 where !FileManager.default.fileExists(atPath: prefix + "/nginx.pid") { usleep(20_000) }
                self.port = port
                return
            }
            lastError = message
            if !message.contains("Address already in use") { break }
        }
        throw HarnessError("nginx did not start: \(lastError)")
    }

    /// The `upstream` block of the FastCGI servers on `ports`. A connection per request: an iipsrv
    /// process serves one connection at a time, and one kept open idle would block it.
    static func fastCGIUpstream(index: Int, ports: [Int]) -> String {
        """
                upstream fastcgi\(index) {
            \(ports.map { "        server 127.0.0.1:\($0);" }.joined(separator: "\n"))
                }
        """
    }

    /// The `location` block that passes `path` to the FastCGI servers of upstream `index`, with
    /// the parameters a FastCGI application reads (those of nginx's `fastcgi_params`, written out
    /// so that nothing of the system's setup is used).
    static func fastCGILocation(_ path: String, ports: [Int], index: Int) -> String {
        let parameters = [
            "QUERY_STRING $query_string", "REQUEST_METHOD $request_method", "CONTENT_TYPE $content_type",
            "CONTENT_LENGTH $content_length", "SCRIPT_NAME $fastcgi_script_name", "REQUEST_URI $request_uri",
            "DOCUMENT_URI $document_uri", "SERVER_PROTOCOL $server_protocol", "REMOTE_ADDR $remote_addr",
            "SERVER_ADDR $server_addr", "SERVER_PORT $server_port", "SERVER_NAME $server_name", "HTTP_HOST $host"
        ]
        return """
                    location = \(path) {
                        fastcgi_pass fastcgi\(index);
                \(parameters.map { "            fastcgi_param \($0);" }.joined(separator: "\n"))
                    }
            """
    }

    /// Runs `executable` with `arguments` (output discarded, errors to the file `errors`) and
    /// returns its exit status. Waits for the process, not for its output: nginx's daemon
    /// inherits the starter's descriptors and keeps them.
    static func spawnAndWait(_ executable: String, _ arguments: [String], errors: String) throws -> Int32 {
        let child = try ChildProcess.start(executable, arguments, standardError: errors)
        switch child.wait(timeout: .seconds(120)) {
        case .exited(let status): return status
        case .signalled(let signal): return 128 + signal
        case .timedOut: throw HarnessError("\(executable) did not end within two minutes")
        }
    }

    /// Stops nginx (the master of our pid file) and waits for it to go.
    public func stop() {
        guard let text = try? String(contentsOfFile: prefix + "/nginx.pid", encoding: .utf8),
            let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
        else { return }
        kill(pid, SIGTERM)
        for _ in 0..<100 where kill(pid, 0) == 0 { usleep(20_000) }
    }

    deinit {
        stop()
    }
}
