import FICTestSupport
import Foundation
import Testing

extension ViewTests {
    /// The gallery on a folder holding one photo in each format the package decodes, two of them
    /// in wide-gamut colours, made at test time from one bundled photo by Debian's encoders.
    @Suite("gallery of every format")
    struct GalleryFormats {
        static let width = 640, height = 400

        /// coffee.jpg as `a.jpg` (Display P3), `b.png` (sRGB, the reference), `c.webp`, `d.heic`,
        /// `e.avif`, `f.jxl`, `g.gif` and `h.tif` (Adobe RGB); names sort in that order.
        static func makePhotos(in folder: TemporaryFolder) throws -> String {
            let photos = folder.path("photos")
            try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
            let source = Fic.testdata + "/photos/coffee.jpg", png = photos + "/b.png"
            let vips = try ExternalTools.tool("vips", package: "libvips-tools")
            try ExternalTools.run(vips, ["copy", source, png])
            try ExternalTools.run(vips, ["icc_transform", source, photos + "/a.jpg[Q=95]", "p3"])
            try ExternalTools.run(vips, ["copy", source, photos + "/c.webp[Q=90]"])
            try ExternalTools.run(
                try ExternalTools.tool("heif-enc", package: "libheif-examples"), ["-q", "90", "-o", photos + "/d.heic", png])
            try ExternalTools.run(
                try ExternalTools.tool("avifenc", package: "libavif-bin"),
                ["-s", "8", "--min", "10", "--max", "20", png, photos + "/e.avif"])
            try ExternalTools.run(try ExternalTools.tool("cjxl", package: "libjxl-tools"), [png, photos + "/f.jxl", "-d", "1"])
            try ExternalTools.run(try ExternalTools.tool("/usr/bin/convert", package: "imagemagick"), [png, photos + "/g.gif"])
            let adobe = "/usr/share/color/icc/colord/AdobeRGB1998.icc"
            try #require(FileManager.default.fileExists(atPath: adobe), "install colord-data (scripts/install-deps)")
            try ExternalTools.run(vips, ["icc_transform", source, photos + "/h.tif", adobe])
            return photos
        }

        @Test("one photo of each of the eight formats: all decoded, each cell close to the PNG's, the wide-gamut ones converted to sRGB")
        func everyFormat() throws {
            try #require(ViewRunner.hasXvfb, "xvfb-run is missing: run scripts/install-deps")
            let folder = try TemporaryFolder()
            let photos = try Self.makePhotos(in: folder)
            let names = try FileManager.default.contentsOfDirectory(atPath: photos).sorted()
            #expect(names == ["a.jpg", "b.png", "c.webp", "d.heic", "e.avif", "f.jxl", "g.gif", "h.tif"])
            let script = folder.path("shot.script"), statsPath = folder.path("stats.json"), shotPath = folder.path("shot.png")
            try "wait-idle\nscreenshot \(shotPath)\n".write(toFile: script, atomically: true, encoding: .utf8)
            let run = try ViewRunner.run(
                [
                    "view", "gallery", "--photos", photos, "--temporary", "--size", "\(Self.width)x\(Self.height)",
                    "--no-overlay", "--script", script, "--stats", statsPath
                ], width: Self.width, height: Self.height)
            #expect(run.status == 0, "\(run.stderr)")
            let stats = try ViewRunner.stats(statsPath)
            #expect(stats["cache_decodes"] as? Int == 8, "every photo decoded once: \(stats["cache_decodes"] ?? "nil")")
            #expect(stats["script_waits_timed_out"] as? Int == 0)
            let shot = try Picture(shotPath)
            let reference = try ViewTests.Remembers.cell(1, stats)
            // Each format's cell against the PNG's: lossy encodes at high quality, GIF's 256 colours
            // lower; the Display P3 JPEG and the Adobe RGB TIFF only come close once converted
            // (coffee.jpg in Display P3 taken as sRGB is 29 dB from it).
            let least: [String: Double] = ["a.jpg": 36, "c.webp": 34, "d.heic": 36, "e.avif": 34, "f.jxl": 33, "g.gif": 30, "h.tif": 40]
            for (index, name) in names.enumerated() where name != "b.png" {
                let cell = try ViewTests.Remembers.cell(index, stats)
                try #require(cell.y + cell.side <= Self.height, "cell \(index) is on screen")
                let psnr = shot.psnr(x: cell.x, y: cell.y, w: cell.side, h: cell.side, against: shot, ox: reference.x, oy: reference.y)
                print("\(name): \(String(format: "%.1f", psnr)) dB against the PNG's cell")
                #expect(psnr >= least[name]!, "\(name): \(psnr) dB against the PNG's cell")
            }
        }
    }
}
