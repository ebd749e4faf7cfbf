import Foundation

/// Where the package's executables are, for tests that run them as child processes: beside the
/// test bundle (`swift build --build-tests` and `swift test` build them into the same folder),
/// looked for from the test process's executable and from its main bundle.
public enum BuiltExecutable {
    /// The path of the executable `name` built with the tests, or `nil` when it was not built.
    public static func path(_ name: String) -> String? {
        var folders: [URL] = []
        if let first = CommandLine.arguments.first {
            let folder = URL(fileURLWithPath: first).deletingLastPathComponent()
            folders += [folder, folder.deletingLastPathComponent(), folder.deletingLastPathComponent().deletingLastPathComponent()]
        }
        folders += [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
        return folders.map { $0.appendingPathComponent(name).path }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

/// Where the `fic` executable is: `FIC_BINARY`, or the one built with the tests.
public enum FicExecutable {
    /// The path of `fic`, or `nil` when it was not built.
    public static let path: String? = {
        if let path = ProcessInfo.processInfo.environment["FIC_BINARY"], !path.isEmpty { return path }
        return BuiltExecutable.path("fic")
    }()
}
