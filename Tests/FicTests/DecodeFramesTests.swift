import FastImageCache
import FICTestSupport
import Foundation
import ImageCodec
import Testing

@Suite("decode --frames")
struct DecodeFramesTests {
    /// A three-frame GIF (ImageMagick) written as three full-size PNGs whose pixels are the
    /// decoder's frames, and its durations and loop count as JSON.
    @Test func writesEveryFrameAndItsTimings() throws {
        let folder = try TemporaryFolder()
        let gif = folder.path("three.gif")
        var arguments: [String] = []
        for (photo, delay) in [("chelsea.jpg", "4"), ("coffee.jpg", "10"), ("rocket.jpg", "0")] {
            arguments += ["-delay", delay, "(", Fic.testdata + "/photos/" + photo, "-resize", "40x30!", ")"]
        }
        try ExternalTools.run("/usr/bin/convert", arguments + ["-loop", "0", gif])

        try expectFramesWritten(of: gif, in: folder, durations: [40, 100, 0])
    }

    /// An AVIF sequence (avifenc, from three photos ImageMagick resized, with durations in a
    /// timescale of 1000): its frames as PNGs, each the decoder's frame, the durations given to
    /// avifenc, played forever.
    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/avifenc")
                && FileManager.default.isExecutableFile(atPath: "/usr/bin/convert"),
            "avifenc (libavif-bin) and ImageMagick are needed: run scripts/install-deps"))
    func writesEveryFrameOfAnAVIFSequence() throws {
        let folder = try TemporaryFolder()
        let avif = folder.path("three.avif")
        var arguments = ["-s", "8", "--timescale", "1000"]
        for (photo, duration) in [("chelsea.jpg", 40), ("coffee.jpg", 100), ("rocket.jpg", 250)] {
            let frame = folder.path(photo + ".png")
            try ExternalTools.run("/usr/bin/convert", [Fic.testdata + "/photos/" + photo, "-resize", "40x30!", "PNG24:" + frame])
            arguments += ["--duration", "\(duration)", frame]
        }
        try ExternalTools.run("/usr/bin/avifenc", arguments + [avif])

        try expectFramesWritten(of: avif, in: folder, durations: [40, 100, 250])
    }

    @Test func jsonNeedsFrames() throws {
        let folder = try TemporaryFolder()
        let run = try Fic.run(["decode", Fic.testdata + "/photos/chelsea.jpg", "--json", "--out", folder.path("a.png")])
        #expect(run.status == 2)
    }

    /// `fic decode FILE --frames --out DIR --json` on a 40 × 30 animation that plays forever:
    /// the JSON has its size, loop count and `durations`, and each frame-NNNN.png (no more) shows
    /// the decoder's frame.
    private func expectFramesWritten(
        of file: String, in folder: TemporaryFolder, durations: [Int],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let out = folder.path("frames")
        let run = try Fic.run(["decode", file, "--frames", "--out", out, "--json"])
        #expect(run.status == 0, "\(run.stderr)", sourceLocation: sourceLocation)
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], sourceLocation: sourceLocation)
        #expect(report["loop_count"] as? Int == 0, sourceLocation: sourceLocation)
        #expect(report["width"] as? Int == 40 && report["height"] as? Int == 30, sourceLocation: sourceLocation)
        let frames = try #require(report["frames"] as? [[String: Any]], sourceLocation: sourceLocation)
        #expect(frames.map { $0["index"] as? Int } == Array(durations.indices), sourceLocation: sourceLocation)
        #expect(frames.map { $0["duration_ms"] as? Int } == durations, sourceLocation: sourceLocation)

        let decoder = try AnimatedImageDecoder(contentsOf: file)
        var index = 0
        try decoder.forEachFrame { frame in
            let written = try ImageDecoder.decode(contentsOf: out + "/" + String(format: "frame-%04d.png", index))
            #expect(written.width == 40 && written.height == 30, sourceLocation: sourceLocation)
            #expect(try same(written, frame.image), "frame \(index)", sourceLocation: sourceLocation)
            index += 1
        }
        #expect(index == durations.count, sourceLocation: sourceLocation)
        #expect(
            !FileManager.default.fileExists(atPath: out + String(format: "/frame-%04d.png", durations.count)),
            sourceLocation: sourceLocation)
    }

    /// Whether two bitmaps show the same colours (the PNG is opaque BGRX, the frame BGRA).
    private func same(_ a: DecodedImage, _ b: DecodedImage) throws -> Bool {
        guard a.width == b.width, a.height == b.height else { return false }
        return a.withUnsafeBytes { p in
            b.withUnsafeBytes { q in
                for y in 0..<a.height {
                    for x in 0..<a.width * 4 where x % 4 != 3 {
                        if p[y * a.bytesPerRow + x] != q[y * b.bytesPerRow + x] { return false }
                    }
                }
                return true
            }
        }
    }
}
