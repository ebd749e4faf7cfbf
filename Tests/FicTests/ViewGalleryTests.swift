import FICHarness
import FastImageCache
import Foundation
import Testing

extension ViewTests {
    @Suite("gallery")
    struct Gallery {
        /// A cache of the test photos in a 100 × 100 px 32-bit format, made by `fic ingest`.
        private func makeCache(in folder: TemporaryFolder) throws -> (cache: String, labels: [String]) {
            let cache = folder.path("cache")
            let ingest = try Fic.run([
                "ingest", Fic.testdata + "/photos", "--cache", cache, "--format", "cell:100x100:bgrx", "--family", "photos"
            ])
            #expect(ingest.status == 0, "\(ingest.stderr)")
            let labels = try FileManager.default.contentsOfDirectory(atPath: Fic.testdata + "/photos").sorted()
            return (cache, labels)
        }

        @Test(
            "after a scripted scroll the window shows exactly the grid composed from the cache; the conventional path shows the same photos"
        )
        func scrolledGridEqualsCache() throws {
            try #require(ViewRunner.hasXvfb, "xvfb-run is missing: run scripts/install-deps")
            let folder = try TemporaryFolder()
            let (cache, labels) = try makeCache(in: folder)
            let script = folder.path("scroll.script")
            try """
            wait-idle
            scroll 250
            scroll 37      # two scrolls on one frame
            wait 2
            screenshot \(folder.path("cache.png"))
            toggle-path
            wait-idle
            screenshot \(folder.path("conventional.png"))
            """.write(toFile: script, atomically: true, encoding: .utf8)
            let run = try ViewRunner.run(
                [
                    "view", "gallery", "--cache", cache, "--format", "cell", "--cells", "200", "--size", "640x400",
                    "--no-overlay", "--script", script, "--stats", folder.path("stats.json")
                ], width: 640, height: 400)
            #expect(run.status == 0, "\(run.stderr)")
            let stats = try ViewRunner.stats(folder.path("stats.json"))
            #expect(stats["scroll_offset"] as? Int == 287)
            #expect(stats["path"] as? String == "conventional")
            let layout = try #require(stats["layout"] as? [String: Any])
            let columns = try #require(layout["columns"] as? Int), left = try #require(layout["left"] as? Int),
                gap = try #require(layout["gap"] as? Int)
            #expect(columns == 5 && left == 54 && gap == 8)
            for key in [
                "frames", "compose_p99_ms", "compose_max_ms", "present_p99_ms", "frames_compose_over_8_3_ms", "peak_rss_bytes", "hits",
                "misses"
            ] {
                #expect(stats[key] != nil, "missing \(key)")
            }
            #expect((stats["peak_rss_bytes"] as? Int ?? 0) > 1 << 20)
            let phases = try #require(stats["phases"] as? [String: Any])
            #expect(phases["cache"] != nil && phases["conventional"] != nil)

            // The expected cells: each entity's image read back from the cache by `fic get`.
            var expected: [Picture] = []
            for (i, label) in labels.enumerated() {
                let get = try Fic.run(["get", "--cache", cache, "--format", "cell", "--entity", label, "--out", folder.path("\(i).png")])
                #expect(get.status == 0, "\(get.stderr)")
                expected.append(try Picture(folder.path("\(i).png")))
            }
            let shot = try Picture(folder.path("cache.png"))
            let conventional = try Picture(folder.path("conventional.png"))
            #expect(shot.width == 640 && shot.height == 400)
            let background = shot.bgr(0, 0)
            let offset = 287, pitch = 108, side = 100
            var cellsChecked = 0
            for index in 0..<200 {
                let x = left + index % columns * pitch, y = gap + index / columns * pitch - offset
                let top = max(0, y), bottom = min(400, y + side)
                guard bottom > top else { continue }
                let picture = expected[index % labels.count]
                #expect(
                    shot.differences(x: x, y: top, w: side, h: bottom - top, from: picture, ox: 0, oy: top - y) == 0,
                    "cell \(index) differs from \(labels[index % labels.count])")
                if bottom - top == side {
                    let psnr = conventional.psnr(x: x, y: top, w: side, h: side, against: picture, ox: 0, oy: 0)
                    #expect(psnr > 28, "conventional cell \(index): \(psnr) dB")
                }
                // The gap to the left of each cell is background.
                #expect(shot.bgr(x - 1, top) == background)
                cellsChecked += 1
            }
            #expect(cellsChecked == 25)  // rows 2…6 of 5 columns are (partly) visible at 287 px
        }

        @Test("a scripted drag moves the grid with the pointer and flings on release; the same script ends at the same offset")
        func dragAndFling() throws {
            try #require(ViewRunner.hasXvfb, "xvfb-run is missing: run scripts/install-deps")
            let folder = try TemporaryFolder()
            let (cache, _) = try makeCache(in: folder)
            let script = folder.path("drag.script")
            try "wait-idle\ndrag 320 350 to 320 150 in 10\nwait-idle\n".write(toFile: script, atomically: true, encoding: .utf8)
            var offsets: [Int] = []
            for i in 0..<2 {
                let run = try ViewRunner.run(
                    [
                        "view", "gallery", "--cache", cache, "--cells", "1000", "--size", "640x400", "--no-overlay",
                        "--script", script, "--stats", folder.path("\(i).json")
                    ], width: 640, height: 400)
                #expect(run.status == 0, "\(run.stderr)")
                let stats = try ViewRunner.stats(folder.path("\(i).json"))
                offsets.append(stats["scroll_offset"] as? Int ?? -1)
                #expect(stats["frames"] as? Int ?? .max < 1000, "the fling came to rest")
            }
            #expect(offsets[0] > 200, "200 px dragged, then the fling carried on: \(offsets[0])")
            #expect(offsets[0] == offsets[1])
        }

        @Test("a photo that cannot be decoded stays a placeholder; the others fill in")
        func placeholders() throws {
            try #require(ViewRunner.hasXvfb, "xvfb-run is missing: run scripts/install-deps")
            let folder = try TemporaryFolder()
            try folder.copyTestdata("photos/astronaut.jpg", into: "photos", as: "a.jpg")
            try folder.copyTestdata("bad/truncated-half.jpg", into: "photos", as: "b.jpg")
            try folder.copyTestdata("photos/coffee.jpg", into: "photos", as: "c.jpg")
            let script = folder.path("idle.script")
            try "wait-idle\n".write(toFile: script, atomically: true, encoding: .utf8)
            let run = try ViewRunner.run(
                [
                    "view", "gallery", "--photos", folder.path("photos"), "--size", "640x400", "--no-overlay",
                    "--script", script, "--screenshot", folder.path("shot.png"), "--stats", folder.path("stats.json")
                ], width: 640, height: 400)
            #expect(run.status == 0, "\(run.stderr)")
            let stats = try ViewRunner.stats(folder.path("stats.json"))
            #expect(stats["frames"] as? Int ?? 0 < 1000, "wait-idle ended when the ingest ended")
            let shot = try Picture(folder.path("shot.png"))
            let layout = try #require(stats["layout"] as? [String: Any])
            let left = try #require(layout["left"] as? Int), gap = try #require(layout["gap"] as? Int),
                side = try #require(layout["cell_width"] as? Int)
            #expect(layout["cells"] as? Int == 3)
            let centre = { (i: Int) in shot.bgr(left + i * (side + gap) + side / 2, gap + side / 2) }
            #expect(centre(1) == (51, 51, 51), "the undecodable photo's cell is the placeholder gray")
            #expect(centre(0) != (51, 51, 51) && centre(2) != (51, 51, 51))
            #expect(centre(0) != centre(2))
        }

        @Test("script errors name the line; without a display the viewer says how to get one")
        func usage() throws {
            let folder = try TemporaryFolder()
            let script = folder.path("bad.script")
            try "wait 3\nzoom sideways\n".write(toFile: script, atomically: true, encoding: .utf8)
            let bad = try Fic.run(["view", "gallery", "--script", script])
            #expect(bad.status == 2)
            #expect(bad.stderr.contains("line 2"), "\(bad.stderr)")
            let binary = try #require(Fic.binary)
            var environment = ProcessInfo.processInfo.environment
            for key in ["DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"] { environment[key] = nil }
            let headless = try ChildProcess.capture(
                binary, ["view", "photo", Fic.testdata + "/photos/hubble.jpg"], environment: environment)
            #expect(headless.status == 1)
            #expect(headless.stderr.contains("xvfb-run"), "\(headless.stderr)")
        }
    }
}
