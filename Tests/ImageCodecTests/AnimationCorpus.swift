import FICTestSupport
import Foundation

/// The animations the tests make at test time from the bundled photos, one function each, so that
/// every reference they are compared with (Pillow's frames in AnimationTests, Chromium's in
/// BrowserAnimationTests) sees the same files.
enum AnimationCorpus {
    /// Full-canvas frames of three photos (local palettes), delays 100, 250 and 0 ms, played
    /// twice (ImageMagick's -loop counts plays), stored in order or interlaced.
    static func gifFullFrames(interlaced: Bool, in folder: String) throws -> [UInt8] {
        let a = try AnimationFiles.still("chelsea.jpg", 64, 48, in: folder), b = try AnimationFiles.still("coffee.jpg", 64, 48, in: folder)
        let c = try AnimationFiles.still("rocket.jpg", 64, 48, in: folder)
        return try ExternalTools.convert(
            ["-delay", "10", a, "-delay", "25", b, "-delay", "0", c, "-loop", "2"]
                + (interlaced ? ["-interlace", "Line"] : []), in: folder, name: "full\(interlaced ? "-interlaced" : "").gif")
    }

    /// Sub-rectangle frames with transparency over a first frame with transparency, disposed to
    /// nothing, to the background and to the previous frame, looping forever.
    static func gifDisposal(in folder: String) throws -> [UInt8] {
        let background = try AnimationFiles.still("astronaut.jpg", 80, 60, roundAlpha: true, in: folder)
        let s1 = try AnimationFiles.still("coffee.jpg", 30, 24, roundAlpha: true, in: folder)
        let s2 = try AnimationFiles.still("chelsea.jpg", 26, 20, roundAlpha: true, in: folder)
        let s3 = try AnimationFiles.still("rocket.jpg", 20, 30, roundAlpha: true, in: folder)
        return try ExternalTools.convert(
            [
                "-loop", "0", "-delay", "20", "-dispose", "none", "-page", "80x60+0+0", background,
                "-dispose", "background", "-delay", "30", "-page", "+10+8", s1,
                "-dispose", "previous", "-delay", "40", "-page", "+40+30", s2,
                "-dispose", "none", "-delay", "5", "-page", "+25+15", s3,
                "-dispose", "background", "-page", "+5+35", s1,
                "-dispose", "none", "-page", "+50+2", s2
            ], in: folder, name: "dispose.gif")
    }

    /// img2webp: lossless and lossy frames (with an alpha plane), durations 80, 120 and 40 ms,
    /// two loops.
    static func webpMixed(in folder: String) throws -> [UInt8] {
        let a = try AnimationFiles.still("chelsea.jpg", 64, 48, in: folder),
            b = try AnimationFiles.still("coffee.jpg", 64, 48, roundAlpha: true, in: folder)
        let c = try AnimationFiles.still("rocket.jpg", 64, 48, roundAlpha: true, in: folder)
        let out = folder + "/mixed.webp"
        try ExternalTools.run(
            try ExternalTools.tool("img2webp", package: "webp"),
            ["-loop", "2", "-d", "80", "-lossless", a, "-d", "120", "-lossy", "-q", "60", b, "-d", "40", "-lossless", c, "-o", out])
        return try ExternalTools.bytes(atPath: out)
    }

    /// gif2webp of a disposal GIF: sub-rectangles, blending and disposal to background, 200 ms
    /// frames.
    static func webpFromGIF(in folder: String) throws -> [UInt8] {
        let background = try AnimationFiles.still("astronaut.jpg", 80, 60, roundAlpha: true, in: folder)
        let s1 = try AnimationFiles.still("coffee.jpg", 30, 24, roundAlpha: true, in: folder)
        let gif = folder + "/source.gif", output = folder + "/converted.webp"
        _ = try ExternalTools.convert(
            [
                "-loop", "0", "-delay", "20", "-dispose", "none", "-page", "80x60+0+0", background,
                "-dispose", "background", "-page", "+10+8", s1, "-dispose", "none", "-page", "+40+30", s1
            ],
            in: folder, name: "source.gif")
        try ExternalTools.run(try ExternalTools.tool("gif2webp", package: "webp"), ["-mixed", gif, "-o", output])
        return try ExternalTools.bytes(atPath: output)
    }

    /// Pillow's APNG writer: every dispose and blend operation, frames it crops to the rectangle
    /// that changed, transparency, four plays, and a default image that is (`defaultImage`
    /// false) or is not a frame (a red one, then).
    static func apng(defaultImage: Bool, in folder: String) throws -> [UInt8] {
        let a = try AnimationFiles.still("chelsea.jpg", 64, 48, in: folder),
            b = try AnimationFiles.still("coffee.jpg", 24, 20, roundAlpha: true, in: folder)
        let c = try AnimationFiles.still("rocket.jpg", 30, 16, roundAlpha: true, in: folder)
        let out = folder + "/animation-\(defaultImage ? "default" : "frames").png"
        try AnimationFiles.pillow(
            """
            import sys
            from PIL import Image
            a, b, c = (Image.open(p).convert("RGBA") for p in sys.argv[1:4])
            frames = []
            for i, (small, x, y) in enumerate([(b, 4, 4), (c, 30, 20), (b, 36, 2), (c, 2, 30), (b, 20, 14)]):
                frame = Image.new("RGBA", a.size, (0, 0, 0, 0)) if i % 2 else a.copy()
                frame.alpha_composite(small, (x, y))
                frames.append(frame)
            first = Image.new("RGBA", a.size, (255, 0, 0, 255))
            images = ([first] if sys.argv[5] == "1" else []) + frames + [a.copy()]
            images[0].save(sys.argv[4], save_all=True, append_images=images[1:], default_image=sys.argv[5] == "1",
                           duration=[100, 40, 0, 1000 / 3, 70, 55, 20][:len(images)], loop=4,
                           disposal=[0, 1, 2, 0, 2, 1, 0][:len(images)], blend=[0, 1, 0, 1, 1, 0, 1][:len(images)])
            """, [a, b, c, out, defaultImage ? "1" : "0"])
        return try ExternalTools.bytes(atPath: out)
    }
}
