import FICTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// `fic tile --layout`: a static tree that a web server serves as it is.
@Suite("fic tile --layout: static DZI and IIIF trees")
struct StaticExportCommandTests {
    /// The bytes and status of a GET.
    private func get(_ url: String) async throws -> (Int, Data) {
        let (data, response) = try await URLSession.shared.data(from: try #require(URL(string: url)))
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    @Test(
        "a DZI tree written into nginx's folder is served: its descriptor and a full-resolution tile",
        .enabled(
            if: TestWebServer.shared != nil || TestWebServer.isRequired,
            "nginx is not running: start it with scripts/test-server start (scripts/test does)"))
    func deepZoomIsServedByNginx() async throws {
        let server = try #require(TestWebServer.shared, "scripts/test started nginx, but the tests cannot reach it")
        let name = "fic-\(UUID().uuidString)"
        defer { server.unpublish(name) }
        let run = try Fic.run(["tile", Fic.testdata + "/photos/hubble.jpg", "--out", server.root + "/" + name, "--layout", "dzi", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data((run.stdout.split(separator: "\n").last ?? "").utf8)) as? [String: Any])
        let width = try #require(report["width"] as? Int), height = try #require(report["height"] as? Int)
        #expect((report["static_tiles"] as? Int ?? 0) > 0)
        let (status, descriptor) = try await get("\(server.base)/\(name)/image.dzi")
        #expect(status == 200)
        let text = String(decoding: descriptor, as: UTF8.self)
        #expect(text.contains("Width=\"\(width)\"") && text.contains("Height=\"\(height)\"") && text.contains("TileSize=\"256\""))
        // The full-resolution level is numbered by the halvings down to 1 × 1.
        var top = 0
        while (1 << top) < max(width, height) { top += 1 }
        let (tileStatus, tile) = try await get("\(server.base)/\(name)/image_files/\(top)/0_0.jpg")
        #expect(tileStatus == 200)
        #expect(tile.starts(with: [0xFF, 0xD8, 0xFF]))
        let (missing, _) = try await get("\(server.base)/\(name)/image_files/\(top + 1)/0_0.jpg")
        #expect(missing == 404, "no level above full resolution")
    }

    @Test("a second export into the same folder is refused, naming the tree, and leaves it as it was")
    func anExistingTreeIsRefused() throws {
        let folder = try TemporaryFolder()
        let first = try Fic.run([
            "tile", Fic.testdata + "/photos/coffee.jpg", "--out", folder.path("out"), "--layout", "iiif", "--iiif-id",
            "https://images.example/coffee"
        ])
        #expect(first.status == 0, "\(first.stderr)")
        let info = try String(contentsOfFile: folder.path("out") + "/iiif/info.json", encoding: .utf8)
        #expect(info.contains("\"id\" : \"https://images.example/coffee\""))
        let second = try Fic.run(["tile", Fic.testdata + "/photos/coffee.jpg", "--out", folder.path("out"), "--layout", "iiif"])
        #expect(second.status == 1)
        #expect(second.stderr.contains("already holds a iiif tree"))
        #expect(try String(contentsOfFile: folder.path("out") + "/iiif/info.json", encoding: .utf8) == info)
    }

    @Test(
        "usage errors: a quality out of range, an IIIF id without the IIIF layout",
        arguments: [
            ["--layout", "dzi", "--quality", "0"], ["--layout", "dzi", "--iiif-id", "https://x.example/"], ["--layout", "tiff"]
        ])
    func usageErrors(_ extra: [String]) throws {
        let folder = try TemporaryFolder()
        let run = try Fic.run(["tile", Fic.testdata + "/photos/coffee.jpg", "--out", folder.path("out")] + extra)
        #expect(run.status == 2, "\(run.stderr)")
    }
}
