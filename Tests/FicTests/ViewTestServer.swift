import FICHarness
import Foundation
import Testing

/// The nginx test server that `scripts/test-server start` runs (`scripts/test` starts it and
/// exports `FIC_TEST_SERVER_URL`, `FIC_TEST_SERVER_ROOT` and `FIC_REQUIRE_TEST_SERVER=1`): its
/// base URL and the folder it serves. Nil when it is not running.
struct ViewTestServer {
    let base: URL
    let root: String

    static let shared: ViewTestServer? = {
        let env = ProcessInfo.processInfo.environment
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL
        let folder = env["FIC_TEST_SERVER_DIR"] ?? repository.appendingPathComponent(".build/test-server").path
        let text = env["FIC_TEST_SERVER_URL"] ?? (try? String(contentsOfFile: folder + "/url", encoding: .utf8))
        guard let text, let base = URL(string: text.trimmingCharacters(in: .whitespacesAndNewlines)) else { return nil }
        let root = env["FIC_TEST_SERVER_ROOT"] ?? folder + "/www"
        if env["FIC_TEST_SERVER_URL"] != nil { return ViewTestServer(base: base, root: root) }
        guard let pid = try? String(contentsOfFile: folder + "/nginx.pid", encoding: .utf8),
            let n = Int32(pid.trimmingCharacters(in: .whitespacesAndNewlines)), kill(n, 0) == 0
        else { return nil }
        return ViewTestServer(base: base, root: root)
    }()

    /// Whether `scripts/test` runs the tests: then a missing server fails instead of skipping.
    static let isRequired = ProcessInfo.processInfo.environment["FIC_REQUIRE_TEST_SERVER"] == "1"

    /// Whether the server tests run (the server runs, or it is required and they fail without it).
    static var shouldTest: Bool { shared != nil || isRequired }

    /// A new folder under the served root; removed by ``unpublish(_:)``.
    func makeFolder() throws -> String {
        let name = "view-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root + "/" + name, withIntermediateDirectories: true)
        return name
    }

    /// The URL of `path` below the root.
    func url(_ path: String) -> URL { base.appendingPathComponent(path) }

    /// 36 distinct photos (the six test JPEGs, each turned six ways by `jpegtran`) in a new
    /// served folder; returns the folder's name and the photos' names.
    func publishPhotos() throws -> (folder: String, names: [String]) {
        try #require(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/jpegtran"),
            "jpegtran is missing: run scripts/install-deps (libjpeg-turbo-progs)")
        let folder = try makeFolder()
        let sources = ["astronaut", "chelsea", "coffee", "hubble", "retina", "rocket"]
        let turns: [[String]] = [
            [], ["-flip", "horizontal"], ["-flip", "vertical"], ["-rotate", "90"], ["-rotate", "180"], ["-rotate", "270"]
        ]
        var names: [String] = []
        for turn in turns {
            for source in sources {
                let name = String(format: "p%02d.jpg", names.count)
                let run = try ChildProcess.capture(
                    "/usr/bin/jpegtran",
                    ["-copy", "none", "-trim"] + turn + [
                        "-outfile", root + "/" + folder + "/" + name, Fic.testdata + "/photos/\(source).jpg"
                    ])
                #expect(run.status == 0, "jpegtran \(turn): \(run.stderr)")
                names.append(name)
            }
        }
        return (folder, names)
    }

    /// Removes a folder made by ``makeFolder()``.
    func unpublish(_ name: String) {
        try? FileManager.default.removeItem(atPath: root + "/" + name)
    }
}

/// Why the server tests are skipped when they are.
let viewServerMissing: Comment = "nginx is not running: start it with scripts/test-server start (scripts/test does, and then requires it)"
