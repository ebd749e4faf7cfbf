import FICTestSupport
import Foundation
import Glibc
import Testing

/// A `fic serve STORE --port 0` child process: started, its port read from the line it prints
/// once it listens (`Serving STORE at http://127.0.0.1:PORT/`), and killed and reaped when the
/// test stops it or lets it go.
final class FicServeProcess: @unchecked Sendable {
    let pid: pid_t
    let port: Int
    private let folder: String
    private let lock = NSLock()
    private var reaped = false

    /// The server's base URL, without a trailing `/`.
    var base: String { "http://127.0.0.1:\(port)" }

    private init(pid: pid_t, port: Int, folder: String) {
        self.pid = pid
        self.port = port
        self.folder = folder
    }

    /// Starts `fic serve store --port 0` (and `extra`) and waits, up to `timeout`, for the line
    /// that names its port; throws with what it wrote to standard error if it exits before.
    static func start(store: String, extra: [String] = [], timeout: Duration = .seconds(120)) async throws -> FicServeProcess {
        let binary = try #require(Fic.binary, "the fic binary was not found next to the test bundle; set FIC_BINARY")
        let folder = try ExternalTools.makeFolder("fic-serve")
        let out = folder + "/stdout", err = folder + "/stderr"
        let pid = try ExternalTools.spawn(binary, ["serve", store, "--port", "0"] + extra, standardOutput: out, standardError: err)
        var said = "", port: Int?, ended = false, status: Int32 = 0
        do {
            try await waitUntil("fic serve \(store) prints the port it listens on, or exits", timeout: timeout) {
                said = String(decoding: (try? ExternalTools.bytes(atPath: out)) ?? [], as: UTF8.self)
                if let line = said.split(separator: "\n").first(where: { $0.hasPrefix("Serving ") }),
                   let range = line.range(of: "http://127.0.0.1:") {
                    port = Int(line[range.upperBound...].prefix(while: \.isNumber))
                }
                ended = port == nil && waitpid(pid, &status, WNOHANG) == pid
                return port != nil || ended
            }
        } catch is WaitTimedOut {
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
        }
        guard let port else {
            let errors = String(decoding: (try? ExternalTools.bytes(atPath: err)) ?? [], as: UTF8.self)
            try? FileManager.default.removeItem(atPath: folder)
            throw Failed(description: "fic serve \(store) \(ended ? "exited (wait status \(status))" : "printed no port within \(timeout)"): \(said) \(errors)")
        }
        return FicServeProcess(pid: pid, port: port, folder: folder)
    }

    /// Why a server did not start.
    struct Failed: Error, CustomStringConvertible {
        let description: String
    }

    /// What it has written to standard error so far.
    var standardError: String {
        String(decoding: (try? ExternalTools.bytes(atPath: folder + "/stderr")) ?? [], as: UTF8.self)
    }

    /// Whether it still runs (an ended process is reaped here).
    var isRunning: Bool {
        lock.withLock {
            guard !reaped else { return false }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid { reaped = true }
            return !reaped
        }
    }

    /// Sends `signal` and reaps the process (waits for it to end: SIGKILL ends it at once).
    func stop(_ signal: Int32 = SIGKILL) {
        lock.withLock {
            guard !reaped else { return }
            kill(pid, signal)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            reaped = true
        }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: folder)
    }
}
