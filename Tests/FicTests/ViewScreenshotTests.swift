import Foundation
import Testing

extension ViewTests {
    /// The README's screenshots come from these runs: the scripts in docs/view/ played on the
    /// test photos. With `FIC_UPDATE_SCREENSHOTS=1` they are written to docs/ (commit them);
    /// otherwise to a temporary folder, and checked.
    @Suite("README screenshots")
    struct Screenshots {
        static let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs").standardizedFileURL.path
        static let update = ProcessInfo.processInfo.environment["FIC_UPDATE_SCREENSHOTS"] == "1"
        static let width = 640, height = 400

        /// Plays `docs/view/NAME.script` with `arguments`, overlay on; returns the screenshot's path.
        private func shoot(_ name: String, _ arguments: [String], in folder: TemporaryFolder) throws -> String {
            try #require(ViewRunner.hasXvfb, "xvfb-run is missing: run scripts/install-deps")
            let out = Self.update ? Self.docs + "/view-\(name).png" : folder.path("\(name).png")
            let run = try ViewRunner.run(["view"] + arguments + ["--paced", "--size", "\(Self.width)x\(Self.height)", "--script", Self.docs + "/view/\(name).script", "--screenshot", out],
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

        @Test("the photo: a pyramid zoomed in, with the overlay")
        func photo() throws {
            let folder = try TemporaryFolder()
            let tile = try Fic.run(["tile", Fic.testdata + "/photos/hubble.jpg", "--out", folder.path("hubble.tiles")])
            #expect(tile.status == 0, "\(tile.stderr)")
            let shot = try Picture(try shoot("photo", ["photo", folder.path("hubble.tiles")], in: folder))
            #expect(shot.width == Self.width && shot.height == Self.height)
            #expect(hasOverlay(shot))
        }
    }
}
