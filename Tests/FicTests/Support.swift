import FICHarness
import FICTestSupport
import Foundation
import Testing

/// The result of running the `fic` binary.
struct FicRun {
    let status: Int32
    let stdout: String
    let stderr: String
}

/// Runs the built `fic` binary and finds the test data.
enum Fic {
    /// The `fic` executable next to the test bundle (or `FIC_BINARY`).
    static let binary: String? = FicExecutable.path

    /// `testdata/`: `FIC_TESTDATA`, or `../../../shared/testdata` from this folder.
    static let testdata: String = {
        if let path = ProcessInfo.processInfo.environment["FIC_TESTDATA"] { return path }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../shared/testdata").standardizedFileURL.path
    }()

    /// Runs `fic` with `arguments`, capturing its output through files (no pipe can fill up).
    /// `environment` is added to this process's (see ``FICHarness/ChildProcess/capture(_:_:environment:timeout:)`` for
    /// where the default cache folder is).
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> FicRun {
        let binary = try #require(binary, "the fic binary was not found next to the test bundle; set FIC_BINARY")
        return try ChildProcess.capture(
            binary, arguments, environment: environment.isEmpty ? nil : ProcessInfo.processInfo.environment.merging(environment) { $1 })
    }
}

/// A new empty folder, removed when the value goes away.
final class TemporaryFolder: @unchecked Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("fic-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// The path of `name` inside the folder.
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Links each file of `testdata/SUBFOLDER` (not recursively) into `name/SUBFOLDER`.
    func linkTestdata(_ subfolders: [String], into name: String) throws -> String {
        let root = path(name)
        for sub in subfolders {
            let source = Fic.testdata + "/" + sub
            let target = root + "/" + sub
            try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
            for file in try FileManager.default.contentsOfDirectory(atPath: source) {
                var isDirectory: ObjCBool = false
                _ = FileManager.default.fileExists(atPath: source + "/" + file, isDirectory: &isDirectory)
                if isDirectory.boolValue { continue }
                try FileManager.default.createSymbolicLink(atPath: target + "/" + file, withDestinationPath: source + "/" + file)
            }
        }
        return root
    }

    /// Copies `testdata/FILE` into `name/` under `newName`.
    func copyTestdata(_ file: String, into name: String, as newName: String) throws {
        try FileManager.default.createDirectory(atPath: path(name), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fic.testdata + "/" + file, toPath: path(name) + "/" + newName)
    }
}

/// The files of `testdata/bad` that must be refused: all but those decoded since they were put there.
var badFiles: [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: Fic.testdata + "/bad")) ?? []).sorted().filter {
        !ManifestUpdates.decodedNow.contains("bad/" + $0)
    }
}
