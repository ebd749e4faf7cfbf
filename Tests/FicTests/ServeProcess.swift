import FICTestSupport
import Foundation
import Testing

/// A `fic serve` child process on a port it picked, stopped (SIGTERM) when the value goes away.
final class ServeProcess: @unchecked Sendable {
    let started: Process.Started
    /// The port it listens on.
    let port: Int
    /// `http://127.0.0.1:PORT`.
    var base: String { "http://127.0.0.1:\(port)" }
    /// The process id.
    var pid: Int32 { started.process.processIdentifier }

    /// Starts `fic serve STORE --port 0` with `arguments` and waits for the line naming its port.
    init(store: String, _ arguments: [String] = []) async throws {
        let binary = try #require(Fic.binary, "the fic binary was not found next to the test bundle; set FIC_BINARY")
        let started = try Process.start(binary, ["serve", store, "--port", "0"] + arguments)
        self.started = started
        var port: Int?
        try await waitUntil("fic serve prints where it listens", timeout: .seconds(60)) {
            port = Self.port(in: started.standardOutput)
            return port != nil || !started.process.isRunning
        }
        guard let port else {
            Issue.record("fic serve did not start: \(started.standardError)")
            throw CancellationError()
        }
        self.port = port
    }

    deinit {
        if started.process.isRunning {
            started.process.terminate()
            started.process.waitUntilExit()
        }
    }

    /// The port in `Serving STORE at http://HOST:PORT/`.
    private static func port(in output: String) -> Int? {
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("Serving ") }),
              let colon = line.lastIndex(of: ":") else { return nil }
        return Int(line[line.index(after: colon)...].filter(\.isNumber))
    }
}
