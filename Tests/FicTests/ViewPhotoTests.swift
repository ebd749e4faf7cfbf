import FICTestSupport
import FastImageCache
import Foundation
import Testing

extension ViewTests {
    @Suite("photo")
    struct Photo {
        /// Level 1 of a pyramid made from `full`: the 2 × 2 box filter, rounded (`(a+b+c+d+2) >> 2`).
        private func boxFiltered(_ full: Picture, x: Int, y: Int) -> (UInt8, UInt8, UInt8) {
            let x1 = min(2 * x + 1, full.width - 1), y1 = min(2 * y + 1, full.height - 1)
            let p = [full.bgr(2 * x, 2 * y), full.bgr(x1, 2 * y), full.bgr(2 * x, y1), full.bgr(x1, y1)]
            func mean(_ c: (UInt8, UInt8, UInt8, UInt8)) -> UInt8 {
                let sum: Int = Int(c.0) + Int(c.1)
                return UInt8((sum + Int(c.2) + Int(c.3) + 2) >> 2)
            }
            return (mean((p[0].0, p[1].0, p[2].0, p[3].0)), mean((p[0].1, p[1].1, p[2].1, p[3].1)), mean((p[0].2, p[1].2, p[2].2, p[3].2)))
        }

        @Test(
            "at 1:1 and at 1:2 the window shows exactly the pyramid's pixels, from a pyramid fic tile saved (raw tiles), a pyramidal TIFF vips wrote and an image tiled on the fly",
            arguments: ["pyramid", "tiff", "image"])
        func zoomedViewEqualsTiles(_ source: String) throws {
            try #require(ViewRunner.hasXvfb, "xvfb-run is missing: run scripts/install-deps")
            let folder = try TemporaryFolder()
            let photo = Fic.testdata + "/photos/hubble.jpg"  // 1000 × 872: levels 1000², 500², 250² (about)
            var input = photo
            if source == "pyramid" {
                // Raw tiles (lossless), so that the window can be compared pixel for pixel.
                let tile = try Fic.run(["tile", photo, "--out", folder.path("hubble.tif"), "--compression", "none"])
                #expect(tile.status == 0, "\(tile.stderr)")
                input = folder.path("hubble.tif")
            } else if source == "tiff" {
                // Lossless, so level 0 is the decode; vips halves with the same rounded 2 × 2 mean, down
                // to a level that fits its 128-pixel tiles: 4 levels where a pyramid built here has 3.
                input = folder.path("hubble.tif")
                try ExternalTools.run("/usr/bin/vips", ["tiffsave", photo, input, "--tile", "--pyramid", "--compression", "deflate"])
            }
            let script = folder.path("zoom.script")
            try """
            wait-idle 3000
            zoom-to 1 at 0 0
            wait-idle
            pan 300 200
            wait-idle
            screenshot \(folder.path("one.png"))
            zoom-to 0.5 at 0 0
            wait-idle
            """.write(toFile: script, atomically: true, encoding: .utf8)
            func view(_ name: String) throws -> [String: Any] {
                let run = try ViewRunner.run(
                    [
                        "view", "photo", input, "--size", "640x400", "--no-overlay", "--script", script, "--cache", folder.path("cache"),
                        "--screenshot", folder.path(name + ".png"), "--stats", folder.path(name + ".json")
                    ], width: 640, height: 400)
                #expect(run.status == 0, "\(run.stderr)")
                return try ViewRunner.stats(folder.path(name + ".json"))
            }
            let stats = try view("half")
            if source != "image" {
                // A pyramidal TIFF's tiles are decoded into its table once: shown again, in a new
                // run, they are read from it, none decoded.
                #expect((stats["tile_fetches"] as? Int ?? 0) > 0)
                let again = try view("again")
                #expect(again["tile_fetches"] as? Int == 0 && again["tiles_requested_fast"] as? Int == 0, "\(again)")
                let half = try Picture(folder.path("half.png"))
                #expect(try Picture(folder.path("again.png")).differences(x: 0, y: 0, w: 640, h: 400, from: half, ox: 0, oy: 0) == 0)
            }
            #expect(stats["level"] as? Int == 1)
            #expect(stats["levels"] as? Int == (source == "tiff" ? 4 : 3), "a pyramidal TIFF is shown as it is, not built again")
            #expect(stats["scale"] as? Double == 0.5)
            #expect(stats["tiles_unreadable"] as? Int == 0)
            #expect((stats["zooms_measured"] as? Int ?? 0) >= 1, "a frame after the zooms showed every tile at its level")

            // Level 0 is the plain decode of the JPEG.
            let full = try Picture(photo)
            let one = try Picture(folder.path("one.png"))
            #expect(one.differences(x: 0, y: 0, w: 640, h: 400, from: full, ox: 300, oy: 200) == 0)

            // At 1:2, level 1 drawn unscaled, the photo centred across (it is narrower than the window).
            let half = try Picture(folder.path("half.png"))
            let originX = Int(((stats["origin_x"] as? Double ?? .nan) / 2).rounded()),
                originY = Int(((stats["origin_y"] as? Double ?? .nan) / 2).rounded())
            #expect(originX == -70)
            var wrong = 0
            for y in 0..<400 {
                for x in 0..<640 {
                    let u = x + originX, v = y + originY
                    guard u >= 0, v >= 0, u < 500, v < 436 else { continue }
                    if half.bgr(x, y) != boxFiltered(full, x: u, y: v) { wrong += 1 }
                }
            }
            #expect(wrong == 0)
            #expect(half.bgr(10, 200) == half.bgr(630, 200), "background beside the photo")
            #expect(half.bgr(10, 200) != half.bgr(320, 200))
        }

        @Test("while the tiles of a new zoom are read, the coarser level stands in (blurred, never blank); then the sharp tiles replace it")
        func coarseThenSharp() throws {
            try #require(ViewRunner.hasXvfb, "xvfb-run is missing: run scripts/install-deps")
            let folder = try TemporaryFolder()
            let photo = Fic.testdata + "/photos/retina.jpg"  // 1411 × 1411, bright: blank would show
            let tile = try Fic.run(["tile", photo, "--out", folder.path("retina.tif"), "--compression", "none"])
            #expect(tile.status == 0, "\(tile.stderr)")
            let script = folder.path("zoom.script")
            try """
            wait-idle 3000
            zoom-to 1
            wait 2
            screenshot \(folder.path("early.png"))
            wait-idle 3000
            """.write(toFile: script, atomically: true, encoding: .utf8)
            // Each tile read pauses 150 ms: the first level-0 tile cannot be there two frames after the zoom.
            let run = try ViewRunner.run(
                [
                    "view", "photo", folder.path("retina.tif"), "--tile-read-delay-ms", "150", "--size", "640x400", "--no-overlay",
                    "--cache", folder.path("cache"),
                    "--script", script, "--screenshot", folder.path("late.png"), "--stats", folder.path("stats.json")
                ], width: 640, height: 400)
            #expect(run.status == 0, "\(run.stderr)")
            let stats = try ViewRunner.stats(folder.path("stats.json"))
            #expect(stats["level"] as? Int == 0)
            #expect((stats["frames_not_sharp"] as? Int ?? 0) >= 2)
            #expect((stats["misses"] as? Int ?? 0) > 0)
            let full = try Picture(photo)
            let x = Int((stats["origin_x"] as? Double ?? .nan).rounded()), y = Int((stats["origin_y"] as? Double ?? .nan).rounded())
            let early = try Picture(folder.path("early.png")), late = try Picture(folder.path("late.png"))
            #expect(late.differences(x: 0, y: 0, w: 640, h: 400, from: full, ox: x, oy: y) == 0, "sharp at the end")
            #expect(early.differences(x: 0, y: 0, w: 640, h: 400, from: full, ox: x, oy: y) > 10_000, "not sharp yet")
            let psnr = early.psnr(x: 0, y: 0, w: 640, h: 400, against: full, ox: x, oy: y)
            #expect(psnr > 22, "the same picture, blurred: \(psnr) dB")
        }
    }
}
