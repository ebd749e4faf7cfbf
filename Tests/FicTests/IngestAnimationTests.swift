import FICTestSupport
import Foundation
import Testing

/// `fic ingest` stores every frame of an animated GIF, and `fic get --frame N` writes each.
@Suite("ingest and get an animation's frames")
struct IngestAnimationTests {
    @Test("every frame of an animated GIF is stored by fic ingest, and fic get --frame writes it; a frame past the last is refused")
    func framesOfAnIngestedGIF() throws {
        let convert = try ExternalTools.tool("convert", package: "imagemagick")
        let folder = try TemporaryFolder()
        let source = folder.path("source")
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
        // Three flat frames whose colours are the reference: red, lime, blue; 50, 100 and 200 ms; played twice.
        try ExternalTools.run(
            convert,
            [
                "-delay", "5", "-size", "64x64", "xc:#ff0000", "-delay", "10", "xc:#00ff00", "-delay", "20", "xc:#0000ff",
                "-loop", "2", source + "/flags.gif"
            ])
        let cache = folder.path("cache")
        let ingest = try Fic.run(["ingest", source, "--cache", cache, "--format", "thumb:32x32@1:bgrx:max=64"])
        #expect(ingest.status == 0, "\(ingest.stderr)")
        for (frame, blue, green, red) in [(0, 0, 0, 255), (1, 0, 255, 0), (2, 255, 0, 0)] as [(Int, UInt8, UInt8, UInt8)] {
            let out = folder.path("frame-\(frame).png")
            let get = try Fic.run([
                "get", "--cache", cache, "--format", "thumb", "--entity", "flags.gif", "--frame", "\(frame)", "--out", out
            ])
            #expect(get.status == 0, "\(get.stderr)")
            #expect(get.stdout.contains("frame \(frame) of 3; durations 50 ms, 100 ms, 200 ms"), "\(get.stdout)")
            let picture = try Picture(out)
            let pixel = picture.bgr(16, 16)
            #expect(pixel.0 == blue && pixel.1 == green && pixel.2 == red, "frame \(frame): \(pixel)")
        }
        let past = try Fic.run([
            "get", "--cache", cache, "--format", "thumb", "--entity", "flags.gif", "--frame", "3", "--out", folder.path("x.png")
        ])
        #expect(past.status == 1 && past.stderr.contains("3 frame(s)"), "\(past.stderr)")

        // A format whose quarter holds fewer than the frames and the record keeps frame 0 only:
        // a later frame is refused with why, frame 0 is written.
        let small = folder.path("small-cache")
        let again = try Fic.run(["ingest", source, "--cache", small, "--format", "tiny:32x32@1:bgrx:max=8"])
        #expect(again.status == 0, "\(again.stderr)")
        let ring = try Fic.run([
            "get", "--cache", small, "--format", "tiny", "--entity", "flags.gif", "--frame", "1", "--out", folder.path("r.png")
        ])
        #expect(
            ring.status == 1 && ring.stderr.contains("3 frames are too many for the table") && ring.stderr.contains("ring"),
            "\(ring.stderr)")
        let first = try Fic.run(["get", "--cache", small, "--format", "tiny", "--entity", "flags.gif", "--out", folder.path("f.png")])
        #expect(first.status == 0, "\(first.stderr)")
    }
}

/// An ingest killed while it stores an animation's frames leaves it half stored; the next
/// ingest stores its frames again instead of finding it "unchanged".
@Suite("an animation's ingest killed mid-way")
struct KilledAnimationIngestTests {
    @Test("fic ingest killed while it stores an animation's frames; the next ingest stores every frame", .timeLimit(.minutes(3)))
    func killedWhileStoringFrames() async throws {
        let folder = try TemporaryFolder()
        let source = folder.path("source")
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
        // 200 frames of 480×360 (a pan across a photo), stored at 120×90: the kill, after 15
        // frames' pixels are in the table, comes long before the last frame.
        let frames = 200
        try PillowFrames.run(
            """
            import sys
            from PIL import Image
            src = Image.open(sys.argv[1]).convert("RGB").resize((720, 600))
            frames = [src.crop((i, i, i + 480, i + 360)) for i in range(int(sys.argv[3]))]
            frames[0].save(sys.argv[2], save_all=True, append_images=frames[1:], duration=40, loop=0, quality=50, method=0)
            """, [Fic.testdata + "/photos/retina.jpg", source + "/pan.webp", "\(frames)"])
        let cache = folder.path("cache"), table = cache + "/default/pan.fictable"
        let format = ["--format", "pan:120x90:bgra:max=\(4 * (frames + 1))"]
        let binary = try #require(Fic.binary)
        let ingest = try ExternalTools.spawn(
            binary, ["ingest", source, "--cache", cache, "--jobs", "1"] + format,
            standardOutput: "/dev/null", standardError: "/dev/null")
        let (exited, status) = await StopWithoutCloseTests.kill(ingest, onceStored: 15 * 120 * 90 * 4, in: table)
        #expect(!exited && status & 0x7F == SIGKILL, "the ingest was killed while it stored frames (wait status \(status))")
        let missing = try Fic.run([
            "get", "--cache", cache, "--format", "pan", "--entity", "pan.webp", "--frame", "\(frames - 1)", "--out", folder.path("x.png")
        ])
        #expect(missing.status == 1, "the last frame is not stored yet: \(missing.stdout)")

        let again = try Fic.run(["ingest", source, "--cache", cache, "--jobs", "1"] + format)
        #expect(again.status == 0 && again.stdout.contains("1 added, 0 unchanged"), "\(again.stdout)\(again.stderr)")
        let inspect = try Fic.run(["inspect", "--cache", cache])
        #expect(inspect.stdout.contains("1 image, \(frames - 1) animation frames, 1 animation record"), "\(inspect.stdout)")
        let last = try Fic.run([
            "get", "--cache", cache, "--format", "pan", "--entity", "pan.webp", "--frame", "\(frames - 1)", "--out", folder.path("last.png")
        ])
        #expect(last.status == 0, "\(last.stderr)")
    }
}

/// `fic inspect` counts every entry an animation takes: its frames after the first and its record.
@Suite("inspect counts an animation's frames")
struct InspectAnimationTests {
    @Test(
        "fic inspect counts each stored frame of an ingested GIF of N frames as an entry, and says how many entries are images, frames and records"
    )
    func inspectCountsFrames() throws {
        let convert = try ExternalTools.tool("convert", package: "imagemagick")
        let folder = try TemporaryFolder()
        let source = folder.path("source")
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
        // N flat frames; beside them two still images.
        let colours = ["#ff0000", "#00ff00", "#0000ff", "#ffff00", "#00ffff"]
        let frames = colours.count
        try ExternalTools.run(convert, ["-size", "40x30"] + colours.flatMap { ["-delay", "10", "xc:\($0)"] } + [source + "/five.gif"])
        for name in ["coffee.jpg", "rocket.jpg"] {
            try FileManager.default.copyItem(atPath: Fic.testdata + "/photos/" + name, toPath: source + "/" + name)
        }
        let cache = folder.path("cache")
        let ingest = try Fic.run(["ingest", source, "--cache", cache, "--format", "thumb:32x32@1:bgrx:max=64"])
        #expect(ingest.status == 0, "\(ingest.stderr)")

        // Three images (the GIF's first frame among them), the GIF's other frames and its record.
        let entries = 3 + (frames - 1) + 1
        let run = try Fic.run(["inspect", "--cache", cache, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let format = try #require((json["formats"] as? [[String: Any]])?.first)
        #expect(format["count"] as? Int == entries)
        #expect(format["images"] as? Int == 3)
        #expect(format["animationFrames"] as? Int == frames - 1)
        #expect(format["animationRecords"] as? Int == 1)
        #expect(json["totalCount"] as? Int == entries)

        let table = try Fic.run(["inspect", "--cache", cache])
        #expect(table.status == 0, "\(table.stderr)")
        #expect(table.stdout.contains("\(entries)/64"), "\(table.stdout)")
        #expect(table.stdout.contains("3 images, \(frames - 1) animation frames, 1 animation record"), "\(table.stdout)")
    }
}
