import Foundation
import Testing

extension ViewTests {
    /// The README's screenshots come from these runs: the scripts in docs/view/ played on the
    /// test photos. With `FIC_UPDATE_SCREENSHOTS=1` they are written to docs/ (commit them);
    /// otherwise to a temporary folder, and checked.
    @Suite("README screenshots")
    struct Screenshots {
        static let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs")
            .standardizedFileURL.path
        static let update = ProcessInfo.processInfo.environment["FIC_UPDATE_SCREENSHOTS"] == "1"
        static let width = 640, height = 400

        /// Plays `docs/view/NAME.script` with `arguments`, overlay on; returns the screenshot's path.
        private func shoot(_ name: String, _ arguments: [String], in folder: TemporaryFolder) throws -> String {
            try #require(ViewRunner.hasXvfb, "xvfb-run is missing: run scripts/install-deps")
            let out = Self.update ? Self.docs + "/view-\(name).png" : folder.path("\(name).png")
            let run = try ViewRunner.run(
                ["view"] + arguments + [
                    "--paced", "--size", "\(Self.width)x\(Self.height)", "--script", Self.docs + "/view/\(name).script", "--screenshot", out
                ],
                width: Self.width, height: Self.height)
            #expect(run.status == 0, "\(run.stderr)")
            return out
        }

        /// Whether the top-left corner shows the overlay's dark panel with light text.
        private func hasOverlay(_ shot: Picture) -> Bool {
            var light = 0
            for y in 10..<40 { for x in 10..<200 where shot.bgr(x, y).0 > 200 && shot.bgr(x, y).2 > 200 { light += 1 } }
            return light > 50
        }

        @Test("the gallery: the sample photos mid-fling, with the overlay")
        func gallery() throws {
            let folder = try TemporaryFolder()
            let shot = try Picture(try shoot("gallery", ["gallery", "--photos", Fic.testdata + "/photos", "--cells", "10000"], in: folder))
            #expect(shot.width == Self.width && shot.height == Self.height)
            #expect(hasOverlay(shot))
        }

        @Test(
            "the network gallery: URLs loading through the lanes, with the overlay",
            .enabled(if: ViewTestServer.shouldTest, viewServerMissing))
        func network() throws {
            let server = try #require(ViewTestServer.shared, "FIC_REQUIRE_TEST_SERVER=1 but nginx is not running")
            let (served, names) = try server.publishPhotos()
            defer { server.unpublish(served) }
            let folder = try TemporaryFolder()
            try names.map { server.url(served + "/" + $0).absoluteString }.joined(separator: "\n").write(
                toFile: folder.path("urls.txt"), atomically: true, encoding: .utf8)
            let shot = try Picture(
                try shoot("network", ["gallery", "--urls", folder.path("urls.txt"), "--hold-fetches-after", "6"], in: folder))
            #expect(shot.width == Self.width && shot.height == Self.height)
            #expect(hasOverlay(shot))
            // Cells 0–5 have their images, 6 and on are held: below the overlay, the second
            // row's first two cells are loaded, the rest of the second and third rows are
            // placeholders (their gray). 150 px cells in 4 columns from x = 8, rows 158 px apart.
            var seen: [Bool] = []
            for y in [241, 360] {
                for column in 0..<4 { seen.append(shot.bgr(8 + column * 158 + 75, y) != (51, 51, 51)) }
            }
            #expect(seen == [true, true, false, false, false, false, false, false], "loaded cells of rows 2 and 3: \(seen)")
        }

        @Test("the photo: a pyramid zoomed in, with the overlay")
        func photo() throws {
            let folder = try TemporaryFolder()
            let tile = try Fic.run(["tile", Fic.testdata + "/photos/hubble.jpg", "--out", folder.path("hubble.tif")])
            #expect(tile.status == 0, "\(tile.stderr)")
            let shot = try Picture(try shoot("photo", ["photo", folder.path("hubble.tif")], in: folder))
            #expect(shot.width == Self.width && shot.height == Self.height)
            #expect(hasOverlay(shot))
        }
    }
}
