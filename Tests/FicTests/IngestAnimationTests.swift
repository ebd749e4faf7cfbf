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
        try ExternalTools.run(convert, ["-delay", "5", "-size", "64x64", "xc:#ff0000", "-delay", "10", "xc:#00ff00", "-delay", "20", "xc:#0000ff",
                                        "-loop", "2", source + "/flags.gif"])
        let cache = folder.path("cache")
        let ingest = try Fic.run(["ingest", source, "--cache", cache, "--format", "thumb:32x32@1:bgrx:max=64"])
        #expect(ingest.status == 0, "\(ingest.stderr)")
        for (frame, blue, green, red) in [(0, 0, 0, 255), (1, 0, 255, 0), (2, 255, 0, 0)] as [(Int, UInt8, UInt8, UInt8)] {
            let out = folder.path("frame-\(frame).png")
            let get = try Fic.run(["get", "--cache", cache, "--format", "thumb", "--entity", "flags.gif", "--frame", "\(frame)", "--out", out])
            #expect(get.status == 0, "\(get.stderr)")
            #expect(get.stdout.contains("frame \(frame) of 3; durations 50 ms, 100 ms, 200 ms"), "\(get.stdout)")
            let picture = try Picture(out)
            let pixel = picture.bgr(16, 16)
            #expect(pixel.0 == blue && pixel.1 == green && pixel.2 == red, "frame \(frame): \(pixel)")
        }
        let past = try Fic.run(["get", "--cache", cache, "--format", "thumb", "--entity", "flags.gif", "--frame", "3", "--out", folder.path("x.png")])
        #expect(past.status == 1 && past.stderr.contains("3 frame(s)"), "\(past.stderr)")

        // A format whose quarter holds fewer than the frames and the record keeps frame 0 only:
        // a later frame is refused with why, frame 0 is written.
        let small = folder.path("small-cache")
        let again = try Fic.run(["ingest", source, "--cache", small, "--format", "tiny:32x32@1:bgrx:max=8"])
        #expect(again.status == 0, "\(again.stderr)")
        let ring = try Fic.run(["get", "--cache", small, "--format", "tiny", "--entity", "flags.gif", "--frame", "1", "--out", folder.path("r.png")])
        #expect(ring.status == 1 && ring.stderr.contains("3 frames are too many for the table") && ring.stderr.contains("ring"), "\(ring.stderr)")
        let first = try Fic.run(["get", "--cache", small, "--format", "tiny", "--entity", "flags.gif", "--out", folder.path("f.png")])
        #expect(first.status == 0, "\(first.stderr)")
    }
}

/// `fic inspect` counts every entry an animation takes: its frames after the first and its record.
@Suite("inspect counts an animation's frames")
struct InspectAnimationTests {
    @Test("fic inspect counts each stored frame of an ingested GIF of N frames as an entry, and says how many entries are images, frames and records")
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
