import Foundation
import Testing

extension ViewTests {
    @Suite("photo while building")
    struct PhotoWhileBuilding {
        @Test("mid-build the window shows the rows of tiles already written, equal to the decoded image, and background below them")
        func showsWrittenRowsMidBuild() throws {
            try #require(ViewRunner.hasXvfb, "xvfb-run is missing: run scripts/install-deps")
            let folder = try TemporaryFolder()
            let photo = Fic.testdata + "/photos/hubble.jpg"  // 1000 × 872: tile rows 0…255, 256…511, 512…767, 768…871
            let size = try #require(try FileManager.default.attributesOfItem(atPath: photo)[.size] as? Int)
            // Rows reach the writer 256 at a time; a row of tiles counts once every write of it has
            // completed. About 73 % of the bytes decode rows 512…767 at most: the writer has had rows
            // 0…511, so the first row of tiles is written and the second one is not. A held build
            // counts as idle once its writes have settled and its written tiles are shown.
            let hold = size * 73 / 100
            let script = folder.path("mid.script")
            try """
            wait-idle 3000
            zoom-to 1 at 0 0
            wait-idle 3000
            screenshot \(folder.path("mid.png"))
            """.write(toFile: script, atomically: true, encoding: .utf8)
            let run = try ViewRunner.run(
                [
                    "view", "photo", photo, "--build-hold-after-bytes", "\(hold)", "--work-directory", folder.path(""),
                    "--size", "640x400", "--no-overlay", "--script", script,
                    "--stats", folder.path("stats.json")
                ], width: 640, height: 400)
            #expect(run.status == 0, "\(run.stderr)")
            let stats = try ViewRunner.stats(folder.path("stats.json"))
            #expect(stats["building"] as? Int == 1, "the build was still under way")
            #expect(stats["level"] as? Int == 0)
            #expect(stats["scale"] as? Double == 1)
            let completed = stats["completed_tile_rows"] as? [Double] ?? []
            try #require(completed.first == 1, "exactly the first row of full-resolution tiles is written: \(completed)")
            #expect(stats["tiles_unreadable"] as? Int == 0)

            let full = try Picture(photo)
            let mid = try Picture(folder.path("mid.png"))
            let ox = Int((stats["origin_x"] as? Double ?? .nan).rounded()), oy = Int((stats["origin_y"] as? Double ?? .nan).rounded())
            #expect(oy == 0)
            #expect(ox == 0)
            // The top: image rows 0…255 exactly as decoded.
            let left = max(0, -ox), right = min(640, 1000 - ox)
            #expect(
                mid.differences(x: left, y: 0, w: right - left, h: 256, from: full, ox: ox, oy: oy) == 0,
                "the written rows equal the decode")
            // The bottom: rows 256… of the photo not drawn yet (above the progress line at the foot).
            let background = mid.bgr(left, 300)
            #expect(
                background.0 == background.1 && background.1 == background.2 && background.0 < 30,
                "the background's dark gray: \(background)")
            var drawn = 0
            for y in 256..<360 {
                for x in left..<right where mid.bgr(x, y) != background { drawn += 1 }
            }
            #expect(drawn == 0, "rows of tiles not written yet stay background")
            #expect(mid.bgr(left + 100, 100) != background, "the photo is there above")
        }
    }
}
