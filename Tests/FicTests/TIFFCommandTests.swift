import FastImageCache
import FICTestSupport
import Foundation
import ImageCodec
import Testing

/// `fic decode`, `fic tile` and `fic ingest` take TIFFs, found by their content.
@Suite("TIFF through the command line")
struct TIFFCommandTests {
    @Test("decode writes the TIFF's pixels, as vips reads them, and reports damage; --strict refuses it")
    func decode() throws {
        let folder = try TemporaryFolder()
        let tiff = folder.path("photo.tif")
        try ExternalTools.run(
            "/usr/bin/vips", ["tiffsave", Fic.testdata + "/photos/coffee.jpg", tiff, "--tile", "--compression", "deflate"])
        try ExternalTools.run("/usr/bin/vips", ["copy", tiff, folder.path("reference.png")])
        let run = try Fic.run(["decode", tiff, "--out", folder.path("out.png")])
        #expect(run.status == 0, "\(run.stderr)")
        let decoded = try ImageDecoder.decode(contentsOf: folder.path("out.png"))
        let reference = try ImageDecoder.decode(contentsOf: folder.path("reference.png"))
        #expect(decoded.width == 600 && decoded.height == 400)
        #expect(decoded.withUnsafeBytes { Array($0) } == reference.withUnsafeBytes { Array($0) })
        // Deflate strips of 20 rows, 200 bytes in the middle scrambled: libtiff's zip codec says
        // so (not every damage to deflate data is detectable: it may inflate to other pixels).
        try ExternalTools.run("/usr/bin/tiffcp", ["-c", "zip", "-r", "20", tiff, folder.path("strips.tif")])
        var bytes = try ExternalTools.bytes(atPath: folder.path("strips.tif"))
        for i in (bytes.count / 2)..<(bytes.count / 2 + 200) { bytes[i] ^= 0x5A }
        try ExternalTools.write(bytes, to: folder.path("damaged.tif"))
        let shown = try Fic.run(["decode", folder.path("damaged.tif"), "--out", folder.path("shown.png")])
        #expect(shown.status == 0 && shown.stdout.contains("the file is damaged"), "\(shown.stdout) \(shown.stderr)")
        let strict = try Fic.run(["decode", folder.path("damaged.tif"), "--strict", "--out", folder.path("strict.png")])
        #expect(strict.status == 1 && strict.stderr.hasPrefix("fic: cannot decode"), "\(strict.stderr)")
    }

    @Test("tile builds the pyramid of a TIFF read where it lies; tile-get reads a full-size tile back")
    func tile() throws {
        let folder = try TemporaryFolder()
        let tiff = folder.path("photo.tif")
        try ExternalTools.run(
            "/usr/bin/vips", ["tiffsave", Fic.testdata + "/photos/retina.jpg", tiff, "--tile", "--bigtiff", "--compression", "lzw"])
        let run = try Fic.run(["tile", tiff, "--out", folder.path("pyramid.tif"), "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("1411×1411 px, 4 levels"), "\(run.stdout)")
        let get = try Fic.run([
            "tile-get", folder.path("pyramid.tif"), "--level", "0", "--column", "0", "--row", "0", "--out", folder.path("tile.png")
        ])
        #expect(get.status == 0, "\(get.stderr)")
        #expect(try ImageDecoder.info(Data(contentsOf: URL(fileURLWithPath: folder.path("tile.png")))).width == 256)
    }

    @Test("tile --out NAME.tif writes one pyramidal TIFF that vips reads as the pyramid's levels; its options are checked")
    func tileIntoATIFF() throws {
        let folder = try TemporaryFolder()
        let tiff = folder.path("retina.tif")
        let run = try Fic.run(["tile", Fic.testdata + "/photos/retina.jpg", "--out", tiff, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("1411×1411 px, 4 levels"), "\(run.stdout)")
        // vips sees the levels as pages, full resolution first: the fourth is 177 × 177.
        try ExternalTools.run("/usr/bin/vips", ["copy", tiff + "[page=3]", folder.path("smallest.png")])
        let smallest = try ImageDecoder.info(Data(contentsOf: URL(fileURLWithPath: folder.path("smallest.png"))))
        #expect(smallest.width == 177 && smallest.height == 177)
        let get = try Fic.run(["tile-get", tiff, "--level", "0", "--column", "5", "--row", "5", "--out", folder.path("tile.png")])
        #expect(get.status == 0, "\(get.stderr)")
        // A pyramid is a TIFF: --out names its file. --compression belongs to a TIFF; --layout to a folder.
        let notTIFF = try Fic.run(["tile", Fic.testdata + "/photos/retina.jpg", "--out", folder.path("dir")])
        #expect(notTIFF.status == 2 && notTIFF.stderr.contains("must end in .tif or .tiff"), "\(notTIFF.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.path("dir")))
        let misplaced = try Fic.run([
            "tile", Fic.testdata + "/photos/retina.jpg", "--out", folder.path("dir"), "--layout", "dzi", "--compression", "none"
        ])
        #expect(misplaced.status == 2 && misplaced.stderr.contains("--compression goes with"), "\(misplaced.stderr)")
        let layout = try Fic.run(["tile", Fic.testdata + "/photos/retina.jpg", "--out", tiff, "--layout", "dzi"])
        #expect(layout.status == 2 && layout.stderr.contains("--layout writes a static tree"), "\(layout.stderr)")
    }

    @Test("tile-get reads a tile of a pyramidal TIFF made by vips, as vips reads it")
    func tileGetOfAPyramidalTIFF() throws {
        let folder = try TemporaryFolder()
        let tiff = folder.path("scan.tif")
        try ExternalTools.run(
            "/usr/bin/vips", ["tiffsave", Fic.testdata + "/photos/retina.jpg", tiff, "--tile", "--pyramid", "--compression", "deflate"])
        let get = try Fic.run(["tile-get", tiff, "--level", "1", "--column", "1", "--row", "1", "--out", folder.path("tile.png")])
        #expect(get.status == 0, "\(get.stderr)")
        // The same 256 × 256 pixels cut by vips from the file's second page.
        try ExternalTools.run("/usr/bin/vips", ["crop", tiff + "[page=1]", folder.path("vips.png"), "256", "256", "256", "256"])
        let ours = try ImageDecoder.decode([UInt8](Data(contentsOf: URL(fileURLWithPath: folder.path("tile.png")))))
        let theirs = try ImageDecoder.decode([UInt8](Data(contentsOf: URL(fileURLWithPath: folder.path("vips.png")))))
        #expect(ours.width == 256 && ours.height == 256)
        #expect(ours.withUnsafeBytes { Array($0) } == theirs.withUnsafeBytes { Array($0) })
    }

    @Test("ingest finds TIFFs by their content, whatever their names")
    func ingest() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path("photos"), withIntermediateDirectories: true)
        try ExternalTools.run("/usr/bin/vips", ["tiffsave", Fic.testdata + "/photos/chelsea.jpg", folder.path("photos/a.tif")])
        try ExternalTools.run(
            "/usr/bin/vips", ["tiffsave", Fic.testdata + "/photos/rocket.jpg", folder.path("photos/b.data"), "--compression", "jpeg"])
        let run = try Fic.run(["ingest", folder.path("photos"), "--cache", folder.path("cache"), "--format", "thumb:64x64@1:bgrx"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("2 added"), "\(run.stdout)")
    }
}
