import FICCore
import Foundation
import Testing
@testable import FastImageCache
@testable import ImageLoader

/// The tests' locked values are FICCore's box, as the library's are.
typealias Locked<Value> = LockedBox<Value>

/// The repository's root folder.
let repositoryRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// The shared test images: `../shared/testdata` beside the repository, or `FIC_TESTDATA`.
let testdata: String =
    ProcessInfo.processInfo.environment["FIC_TESTDATA"]
    ?? repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/testdata").path

func testFile(_ relative: String) -> URL { URL(fileURLWithPath: testdata).appendingPathComponent(relative) }

/// A fresh folder, removed by `cleanup()`.
struct TemporaryDirectory {
    let path: String
    init() {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("fic-loader-\(UUID().uuidString)").path
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    func cleanup() { try? FileManager.default.removeItem(atPath: path) }
    func child(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }
}

/// The nginx test server that `scripts/test-server start` runs (`scripts/test` starts it): its
/// base URL and the folder it serves, from `FIC_TEST_SERVER_URL`/`FIC_TEST_SERVER_ROOT` or from
/// `.build/test-server`. Nil when it is not running.
struct NginxServer: Sendable {
    let base: URL
    let root: String

    static let shared: NginxServer? = {
        let env = ProcessInfo.processInfo.environment
        let folder = env["FIC_TEST_SERVER_DIR"] ?? repositoryRoot.appendingPathComponent(".build/test-server").path
        let text = env["FIC_TEST_SERVER_URL"] ?? (try? String(contentsOfFile: folder + "/url", encoding: .utf8))
        guard let text, let base = URL(string: text.trimmingCharacters(in: .whitespacesAndNewlines)) else { return nil }
        let root = env["FIC_TEST_SERVER_ROOT"] ?? folder + "/www"
        // Is it answering?
        guard let pid = try? String(contentsOfFile: folder + "/nginx.pid", encoding: .utf8),
            let n = Int32(pid.trimmingCharacters(in: .whitespacesAndNewlines)), kill(n, 0) == 0
        else {
            return env["FIC_TEST_SERVER_URL"] != nil ? NginxServer(base: base, root: root) : nil
        }
        return NginxServer(base: base, root: root)
    }()

    /// Whether nginx runs (for `.enabled(if:)`).
    static var isRunning: Bool { shared != nil }

    /// A new folder served by nginx, with copies of `files` (test-data paths) in it; returns its
    /// name under the server's root.
    func publish(_ files: [String]) throws -> String {
        let name = "t-\(UUID().uuidString)"
        let folder = (root as NSString).appendingPathComponent(name)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for file in files {
            try FileManager.default.copyItem(
                atPath: testFile(file).path, toPath: (folder as NSString).appendingPathComponent((file as NSString).lastPathComponent))
        }
        return name
    }

    /// The URL of `path` (below the root), optionally through a location such as `slow`.
    func url(_ path: String, location: String? = nil) -> URL {
        base.appendingPathComponent((location.map { $0 + "/" } ?? "") + path)
    }

    /// Removes a published folder.
    func unpublish(_ name: String) {
        try? FileManager.default.removeItem(atPath: (root as NSString).appendingPathComponent(name))
    }
}

/// Why nginx tests are skipped when they are.
let nginxMissing: Comment = "nginx is not running: start it with scripts/test-server start (scripts/test does)"

/// The names of the files in `folder` (entries, journal, anything else).
func filesIn(_ folder: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
}

/// The originals cache's entry files in `folder`.
func entryFiles(_ folder: String) -> [String] {
    filesIn(folder).filter { $0.count == 64 }
}

/// What the tests' loaders use unless a test is about a timeout (those set theirs): the defaults,
/// with connect and idle limits no busy test machine reaches. Under a sanitizer, with the fuzzers
/// and stress tests on both cores, the task that reads a body (on the shared cooperative pool)
/// can wait many seconds to run; AsyncHTTPClient stops reading the socket meanwhile, and its idle
/// timer, which only a read resets, would then say the server sent nothing.
func testLoaderConfiguration(_ configure: (inout LoaderConfiguration) -> Void = { _ in }) -> LoaderConfiguration {
    var c = LoaderConfiguration(connectTimeout: .seconds(120), idleTimeout: .seconds(120), totalTimeout: .seconds(600))
    configure(&c)
    return c
}
