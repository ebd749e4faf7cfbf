import FICHarness
import FICTestSupport
import Foundation
import Glibc
import Testing

/// A `fic serve STORE --port 0` child process: started, its port read from the line it prints
/// once it listens (`Serving STORE at http://127.0.0.1:PORT/`), and killed and reaped when the
/// test stops it or lets it go.
final class FicServer: @unchecked Sendable {
    /// The child (FICHarness's, as every child of the tests).
    private let child: ChildProcess
    let port: Int
    private let folder: String

    /// Its process id.
    var pid: pid_t { child.pid }

    /// The server's base URL, without a trailing `/`.
    var base: String { "http://127.0.0.1:\(port)" }

    private init(child: ChildProcess, port: Int, folder: String) {
        self.child = child
        self.port = port
        self.folder = folder
    }

    /// Starts `fic serve store --port 0` (and `extra`) and waits, up to `timeout`, for the line
    /// that names its port; throws with what it wrote to standard error if it exits before.
    static func start(store: String, extra: [String] = [], timeout: Duration = .seconds(120)) async throws -> FicServer {
        let binary = try #require(Fic.binary, "the fic binary was not found next to the test bundle; set FIC_BINARY")
        let folder = try ExternalTools.makeFolder("fic-serve")
        let out = folder + "/stdout", err = folder + "/stderr"
        let child = try ChildProcess.start(binary, ["serve", store, "--port", "0"] + extra, standardOutput: out, standardError: err)
        var said = "", port: Int?, ending: ChildProcess.Ending?
        do {
            try await waitUntil("fic serve \(store) prints the port it listens on, or exits", timeout: timeout) {
                said = String(decoding: (try? ExternalTools.bytes(atPath: out)) ?? [], as: UTF8.self)
                if let line = said.split(separator: "\n").first(where: { $0.hasPrefix("Serving ") }),
                    let range = line.range(of: "http://127.0.0.1:")
                {
                    port = Int(line[range.upperBound...].prefix(while: \.isNumber))
                }
                ending = port == nil ? child.ending() : nil
                return port != nil || ending != nil
            }
        } catch is WaitTimedOut {
            child.kill()
        }
        guard let port else {
            let errors = String(decoding: (try? ExternalTools.bytes(atPath: err)) ?? [], as: UTF8.self)
            try? FileManager.default.removeItem(atPath: folder)
            throw Failed(
                description: "fic serve \(store) \(ending.map { "\($0)" } ?? "printed no port within \(timeout)"): \(said) \(errors)")
        }
        return FicServer(child: child, port: port, folder: folder)
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
        child.ending() == nil
    }

    /// Sends `signal` and waits, up to a minute, for the process to end (`SIGKILL` ends it at
    /// once); one still running then is killed, and that is a test failure.
    func stop(_ signal: Int32 = SIGKILL) {
        child.signal(signal)
        let ending = child.wait(timeout: .seconds(60))
        if case .timedOut = ending { Issue.record("fic serve was \(ending)") }
    }

    deinit {
        child.kill()
        try? FileManager.default.removeItem(atPath: folder)
    }
}
