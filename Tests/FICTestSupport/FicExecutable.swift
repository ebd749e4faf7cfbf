import Foundation

/// Where the `fic` executable is, for tests that run it as a child process: `FIC_BINARY`, or
/// beside the test bundle (`swift build --build-tests` and `swift test` build it into the same
/// folder), looked for from the test process's executable and from its main bundle.
public enum FicExecutable {
    /// The path of `fic`, or `nil` when it was not built.
    public static let path: String? = {
        if let path = ProcessInfo.processInfo.environment["FIC_BINARY"], !path.isEmpty { return path }
        var folders: [URL] = []
        if let first = CommandLine.arguments.first {
            let folder = URL(fileURLWithPath: first).deletingLastPathComponent()
            folders += [folder, folder.deletingLastPathComponent(), folder.deletingLastPathComponent().deletingLastPathComponent()]
        }
        folders += [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
        return folders.map { $0.appendingPathComponent("fic").path }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()
}
