import Foundation

/// Where the `fic` executable is: `FIC_BINARY`, or beside the test bundle (`swift build
/// --build-tests` and `swift test` build it into the same folder), for tests that run it as a
/// child process.
public enum FicExecutable {
    /// The path of `fic`, or `nil` when it was not built.
    public static let path: String? = {
        if let path = ProcessInfo.processInfo.environment["FIC_BINARY"], !path.isEmpty { return path }
        guard let first = CommandLine.arguments.first else { return nil }
        var folder = URL(fileURLWithPath: first).deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = folder.appendingPathComponent("fic").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return nil
    }()
}
