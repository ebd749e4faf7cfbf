import Foundation
import Testing

/// The nginx of `scripts/test-server` as the fic tests see it: `FIC_TEST_SERVER_URL` and
/// `FIC_TEST_SERVER_ROOT` (set by `scripts/test`), or nil.
private let testServer: (base: String, root: String)? = {
    let env = ProcessInfo.processInfo.environment
    guard let base = env["FIC_TEST_SERVER_URL"], let root = env["FIC_TEST_SERVER_ROOT"] else { return nil }
    return (base.hasSuffix("/") ? String(base.dropLast()) : base, root)
}()

@Suite(
    "ingest of URLs",
    .enabled(
        if: testServer != nil,
        "needs the nginx test server: run scripts/test, or scripts/test-server start and set FIC_TEST_SERVER_URL and FIC_TEST_SERVER_ROOT"))
struct URLIngestTests {
    static let formats = ["--format", "thumb:40x30@2:rgb565", "--format", "medium:100x100", "--family", "photos"]

    /// Publishes the test photos in a new folder of the server; returns their URLs and the folder.
    func publish() throws -> (urls: [String], folder: String) {
        let server = try #require(testServer)
        let name = "fic-ingest-\(UUID().uuidString)"
        let folder = server.root + "/" + name
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let photos = try FileManager.default.contentsOfDirectory(atPath: Fic.testdata + "/photos").filter { $0.hasSuffix(".jpg") }.sorted()
        for photo in photos { try FileManager.default.copyItem(atPath: Fic.testdata + "/photos/" + photo, toPath: folder + "/" + photo) }
        return (photos.map { "\(server.base)/\(name)/\($0)" }, folder)
    }

    @Test("a URL list is ingested through the originals cache; a second run downloads nothing; a 404 is named and exits 1")
    func listTwice() throws {
        let (urls, published) = try publish()
        defer { try? FileManager.default.removeItem(atPath: published) }
        #expect(urls.count >= 3)
        let folder = try TemporaryFolder()
        let list = folder.path("urls.txt")
        let missing = urls[0].replacingOccurrences(of: ".jpg", with: "-missing.jpg")
        try (["# photos on the test server", ""] + urls + [missing]).joined(separator: "\n").write(
            toFile: list, atomically: true, encoding: .utf8)
        let cache = folder.path("cache")

        let first = try Fic.run(["ingest", "--urls", list, "--cache", cache] + Self.formats)
        #expect(first.status == 1, "a 404 makes the run exit 1: \(first.stderr)")
        #expect(first.stderr.contains(missing) && first.stderr.contains("404"), "\(first.stderr)")
        #expect(first.stdout.contains("\(urls.count) added, 0 unchanged, 1 refused"), "\(first.stdout)")
        #expect(!first.stdout.contains(" 0 B downloaded"), "\(first.stdout)")
        let originals = cache + "/default.originals"
        let entries = try FileManager.default.contentsOfDirectory(atPath: originals).filter { $0.count == 64 }
        #expect(entries.count == urls.count, "one original per URL in the default originals folder")

        // The images are stored under their URLs, in every format of the family.
        let out = folder.path("one.png")
        let get = try Fic.run(["get", "--cache", cache, "--format", "medium", "--entity", urls[1], "--out", out])
        #expect(get.status == 0, "\(get.stderr)")
        #expect(FileManager.default.fileExists(atPath: out))

        // Again, without the missing URL and with one URL as an argument too: nothing downloaded.
        try urls.joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let second = try Fic.run(["ingest", urls[0], "--urls", list, "--cache", cache])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.contains("0 added, \(urls.count + 1) unchanged, 0 refused; 0 B downloaded"), "\(second.stdout)")
    }

    @Test("an originals folder that holds someone else's files is refused and left as it was")
    func foreignOriginalsFolder() throws {
        let (urls, published) = try publish()
        defer { try? FileManager.default.removeItem(atPath: published) }
        let folder = try TemporaryFolder()
        let pictures = folder.path("Pictures")
        try FileManager.default.createDirectory(atPath: pictures, withIntermediateDirectories: true)
        try Data("not an original".utf8).write(to: URL(fileURLWithPath: pictures + "/holiday.jpg"))
        let run = try Fic.run(["ingest", urls[0], "--originals", pictures, "--cache", folder.path("cache")] + Self.formats)
        #expect(run.status == 1)
        #expect(run.stderr.contains("holiday.jpg") && run.stderr.contains("did not make"), "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: pictures) == ["holiday.jpg"])
    }

    @Test("a line that is not a URL is a usage error naming the line")
    func badLine() throws {
        let folder = try TemporaryFolder()
        let list = folder.path("urls.txt")
        try "http://127.0.0.1:1/a.jpg\nftp://example.com/b.jpg\n".write(toFile: list, atomically: true, encoding: .utf8)
        let run = try Fic.run(["ingest", "--urls", list, "--cache", folder.path("cache")] + Self.formats)
        #expect(run.status == 2)
        #expect(run.stderr.contains("urls.txt line 2"), "\(run.stderr)")
    }
}
