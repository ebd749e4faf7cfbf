import FICTestSupport
import Foundation
import Testing

extension ViewTests {
    /// Animated images played by `fic view`, on a script's clock: after `replay`, the frame drawn
    /// next shows time 0 and each later one 1/60 s more, so a screenshot `wait N` frames later
    /// shows the animation N/60 s in.
    @Suite("animation")
    struct Animation {
        /// Solid colours as (B, G, R) bytes.
        typealias Colour = (UInt8, UInt8, UInt8)
        static let red: Colour = (0, 0, 255), lime: Colour = (0, 255, 0), blue: Colour = (255, 0, 0)
        /// Every frame is shown 200 ms, and the animations loop forever.
        static let frameMilliseconds = 200

        /// The script: all the way in, `replay`, then screenshots 6, 18, 30 and 42 frames later:
        /// at 100, 300, 500 and 700 ms, the middle of frames 0, 1, 2, and of frame 0 of the second
        /// play (a wait after a screenshot counts from the frame after it, so `wait 11` is 12 frames).
        static func script(in folder: TemporaryFolder) throws -> (path: String, shots: [String]) {
            let shots = (0..<4).map { folder.path("at-\($0).png") }
            let path = folder.path("play.script")
            try """
            wait-idle
            replay
            wait 6
            screenshot \(shots[0])
            wait 11
            screenshot \(shots[1])
            wait 11
            screenshot \(shots[2])
            wait 11
            screenshot \(shots[3])
            """.write(toFile: path, atomically: true, encoding: .utf8)
            return (path, shots)
        }

        /// The frame shown at each screenshot, from the durations given to the encoders.
        static let framesAtShots = [100, 300, 500, 700].map { ($0 / frameMilliseconds) % 3 }

        /// `colours` as 64 × 64 PNG frames in `folder`, ImageMagick's names for them.
        static func framePNGs(_ colours: [String], in folder: TemporaryFolder) throws -> [String] {
            try colours.map { name in
                let path = folder.path("frame-\(name).png")
                try ExternalTools.run("/usr/bin/convert", ["-size", "64x64", "xc:\(name)", "PNG32:" + path])
                return path
            }
        }

        /// A GIF (ImageMagick), an animated WebP (img2webp) and an APNG (Pillow) of three solid
        /// 64 × 64 frames each, shown 200 ms each and looping forever, in the folder `photos`;
        /// each with the colours in another order. Returns the files' names and frame colours.
        static func makeAnimations(in folder: TemporaryFolder) throws -> [(name: String, frames: [Colour])] {
            let photos = folder.path("photos")
            try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
            try ExternalTools.run(
                "/usr/bin/convert",
                [
                    "-delay", "\(frameMilliseconds / 10)", "-size", "64x64", "xc:#ff0000", "xc:#00ff00", "xc:#0000ff",
                    "-loop", "0", photos + "/a.gif"
                ])
            let webpFrames = try framePNGs(["#00ff00", "#0000ff", "#ff0000"], in: folder)
            try ExternalTools.run(
                try ExternalTools.tool("img2webp", package: "webp"),
                ["-loop", "0", "-lossless", "-d", "\(frameMilliseconds)"] + webpFrames + ["-o", photos + "/b.webp"])
            let apngFrames = try framePNGs(["#0000ff", "#ff0000", "#00ff00"], in: folder)
            try ExternalTools.run(
                ExternalTools.pythonWithPillow,
                [
                    "-c",
                    """
                    import sys
                    from PIL import Image
                    frames = [Image.open(p).convert("RGBA") for p in sys.argv[1:4]]
                    frames[0].save(sys.argv[4], save_all=True, append_images=frames[1:], duration=\(frameMilliseconds), loop=0)
                    """
                ] + apngFrames + [photos + "/c.png"])
            return [("a.gif", [red, lime, blue]), ("b.webp", [lime, blue, red]), ("c.png", [blue, red, lime])]
        }

        @Test("a gallery of a GIF, an animated WebP and an APNG plays every frame of each at its timing; a still cell stays as it is")
        func galleryPlaysEachAnimation() throws {
            try #require(ViewRunner.hasXvfb, "xvfb-run is missing: run scripts/install-deps")
            let folder = try TemporaryFolder()
            let animations = try Self.makeAnimations(in: folder)
            try folder.copyTestdata("photos/coffee.jpg", into: "photos", as: "d.jpg")
            let (script, shots) = try Self.script(in: folder)
            // Two rows of four cells, both on screen: a.gif, b.webp, c.png, d.jpg, twice.
            let run = try ViewRunner.run(
                [
                    "view", "gallery", "--photos", folder.path("photos"), "--temporary", "--cells", "8", "--size", "640x400",
                    "--no-overlay", "--script", script, "--stats", folder.path("stats.json")
                ], width: 640, height: 400)
            #expect(run.status == 0, "\(run.stderr)")
            let stats = try ViewRunner.stats(folder.path("stats.json"))
            #expect(stats["script_waits_timed_out"] as? Int == 0)
            #expect(stats["animated_cells_shown"] as? Int == 6)
            let layout = try #require(stats["layout"] as? [String: Any])
            let columns = try #require(layout["columns"] as? Int), left = try #require(layout["left"] as? Int),
                gap = try #require(layout["gap"] as? Int)
            let side = try #require(layout["cell_width"] as? Int)
            #expect(columns == 4 && side == 150)
            let pictures = try shots.map(Picture.init)
            for (shot, picture) in pictures.enumerated() {
                let frame = Self.framesAtShots[shot]
                for cell in 0..<8 {
                    let x = left + cell % columns * (side + gap), y = gap + cell / columns * (side + gap)
                    if cell % 4 == 3 {
                        // The still photo: the same pixels at every moment.
                        #expect(
                            picture.differences(x: x, y: y, w: side, h: side, from: pictures[0], ox: x, oy: y) == 0,
                            "still cell \(cell) changed by shot \(shot)")
                        continue
                    }
                    let (name, colours) = animations[cell % 4]
                    let expected = colours[frame]
                    var wrong = 0
                    for v in stride(from: y, to: y + side, by: 5) {
                        for u in stride(from: x, to: x + side, by: 5) where picture.bgr(u, v) != expected { wrong += 1 }
                    }
                    #expect(
                        wrong == 0,
                        "cell \(cell) (\(name)) at shot \(shot): \(wrong) samples are not frame \(frame)'s \(expected); centre \(picture.bgr(x + side / 2, y + side / 2))"
                    )
                }
            }
            // The still cell is the photo, not a placeholder.
            #expect(pictures[0].bgr(left + 3 * (side + gap) + side / 2, gap + side / 2) != (51, 51, 51))
        }

        @Test("an animated cell off screen makes no lookup: cells never on screen none, cells scrolled away stop")
        func offScreenCellsMakeNoLookups() throws {
            try #require(ViewRunner.hasXvfb, "xvfb-run is missing: run scripts/install-deps")
            let folder = try TemporaryFolder()
            let photos = folder.path("photos")
            try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
            try ExternalTools.run(
                "/usr/bin/convert",
                [
                    "-delay", "\(Self.frameMilliseconds / 10)", "-size", "64x64", "xc:#ff0000", "xc:#00ff00", "xc:#0000ff",
                    "-loop", "0", photos + "/a.gif"
                ])
            // 80 cells of the GIF in rows of 4, 158 px apart: rows 0…2 on screen at first; 1 s
            // later rows 10…12 (offset 1600), for 10 s.
            let script = folder.path("scroll.script")
            try "wait-idle\nreplay\nwait 60\nscroll-to 1600\nwait 600\n".write(toFile: script, atomically: true, encoding: .utf8)
            let run = try ViewRunner.run(
                [
                    "view", "gallery", "--photos", photos, "--temporary", "--cells", "80", "--size", "640x400",
                    "--no-overlay", "--script", script, "--stats", folder.path("stats.json")
                ], width: 640, height: 400)
            #expect(run.status == 0, "\(run.stderr)")
            let stats = try ViewRunner.stats(folder.path("stats.json"))
            #expect(stats["scroll_offset"] as? Int == 1600)
            let byCell = try #require(stats["animation_lookups_by_cell"] as? [String: Int])
            let first = 0..<12, later = 40..<52
            // On screen 1 s: five frame changes of 200 ms and a record read per 600 ms play, at
            // most; 10 s more (had they kept playing) would be 50 changes more.
            for cell in first {
                let n = byCell[String(cell)] ?? 0
                #expect(n >= 4 && n <= 10, "cell \(cell), on screen for 1 s: \(n) lookups")
            }
            for cell in later {
                let n = byCell[String(cell)] ?? 0
                #expect(n >= 50, "cell \(cell), on screen for 10 s: \(n) lookups")
            }
            let others = byCell.keys.compactMap(Int.init).filter { !first.contains($0) && !later.contains($0) }.sorted()
            #expect(others.isEmpty, "cells never on screen made lookups: \(others)")
            #expect(stats["animation_lookups"] as? Int == byCell.values.reduce(0, +))
        }

        @Test("fic view photo plays an animated GIF fitted and centred from frames stored once; a one-frame GIF is a still photo")
        func photoPlaysAnAnimatedFile() throws {
            try #require(ViewRunner.hasXvfb, "xvfb-run is missing: run scripts/install-deps")
            let folder = try TemporaryFolder()
            let animations = try Self.makeAnimations(in: folder)
            let (script, shots) = try Self.script(in: folder)
            let cache = folder.path("cache")
            var decodes: [Int] = []
            for launch in 0..<2 {
                let stats = folder.path("stats-\(launch).json")
                let run = try ViewRunner.run(
                    [
                        "view", "photo", folder.path("photos/a.gif"), "--cache", cache, "--size", "640x400", "--no-overlay",
                        "--script", script, "--stats", stats
                    ], width: 640, height: 400)
                #expect(run.status == 0, "\(run.stderr)")
                let figures = try ViewRunner.stats(stats)
                #expect(figures["mode"] as? String == "animation")
                #expect(figures["frame_count"] as? Int == 3 && figures["loop_count"] as? Int == 0)
                #expect(
                    figures["stored_width"] as? Int == 64 && figures["stored_height"] as? Int == 64,
                    "stored at the image's size, scaled up when drawn")
                decodes.append(figures["cache_decodes"] as? Int ?? -1)
                // Fitted: 400 × 400 in the middle of the 640 × 400 window, background either side.
                for (shot, path) in shots.enumerated() {
                    let picture = try Picture(path)
                    let expected = animations[0].frames[Self.framesAtShots[shot]]
                    for (x, y) in [(320, 200), (121, 1), (518, 398), (121, 398), (518, 1)] {
                        #expect(
                            picture.bgr(x, y) == expected,
                            "launch \(launch), shot \(shot) at (\(x), \(y)): \(picture.bgr(x, y)), expected \(expected)")
                    }
                    #expect(
                        picture.bgr(100, 200) == picture.bgr(540, 200) && picture.bgr(100, 200) != expected,
                        "background beside the animation")
                }
            }
            #expect(decodes == [1, 0], "the frames are stored once, then played from the table")

            // A GIF of one frame is a still photo: a tile pyramid, as any still.
            try ExternalTools.run("/usr/bin/convert", ["-size", "64x64", "xc:#ff0000", folder.path("still.gif")])
            let still = try ViewRunner.run(
                [
                    "view", "photo", folder.path("still.gif"), "--cache", cache, "--size", "640x400", "--no-overlay",
                    "--script", script, "--stats", folder.path("still.json")
                ], width: 640, height: 400)
            #expect(still.status == 0, "\(still.stderr)")
            #expect(try ViewRunner.stats(folder.path("still.json"))["mode"] as? String == "photo")
        }
    }
}
