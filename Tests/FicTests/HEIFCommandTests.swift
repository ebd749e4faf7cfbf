import FastImageCache
import FICTestSupport
import Foundation
import ImageCodec
import Testing

/// `fic decode`, `fic tile` and `fic ingest` on HEIC and AVIF files made with Debian's encoders.
@Suite("HEIC and AVIF")
struct HEIFCommandTests {
    /// Runs `/usr/bin/<tool>` (from Debian package `package`); throws, with what it said, unless
    /// it succeeds.
    static func encode(_ tool: String, package: String, _ arguments: [String]) throws {
        try ExternalTools.run(try ExternalTools.tool("/usr/bin/" + tool, package: package), arguments)
    }

    /// A folder with `coffee.heic` (600 × 400) and `chelsea-turned.avif` (451 × 300 stored, turned
    /// a quarter anticlockwise by its `irot`: 300 × 451 upright).
    static func files() throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path("images"), withIntermediateDirectories: true)
        try encode(
            "heif-enc", package: "libheif-examples",
            ["-q", "70", "-o", folder.path("images/coffee.heic"), Fic.testdata + "/photos/coffee.jpg"])
        try encode(
            "avifenc", package: "libavif-bin",
            ["-s", "8", "--irot", "1", Fic.testdata + "/photos/chelsea.jpg", folder.path("images/chelsea-turned.avif")])
        return folder
    }

    @Test("decode writes HEIC and AVIF upright")
    func decode() throws {
        let folder = try Self.files()
        for (name, width, height) in [("coffee.heic", 600, 400), ("chelsea-turned.avif", 300, 451)] {
            let out = folder.path(name + ".png")
            let run = try Fic.run(["decode", folder.path("images/" + name), "--out", out])
            #expect(run.status == 0, "\(run.stderr)")
            let written = try ImageDecoder.info(Data(contentsOf: URL(fileURLWithPath: out)))
            #expect(written.width == width && written.height == height, "\(name)")
        }
    }

    @Test("tile builds a pyramid of a HEIC")
    func tile() throws {
        let folder = try Self.files()
        let run = try Fic.run(["tile", folder.path("images/coffee.heic"), "--out", folder.path("pyramid.tif")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("600×400"), "\(run.stdout)")
        #expect(FileManager.default.fileExists(atPath: folder.path("pyramid.tif")))
    }

    @Test("ingest finds and stores HEIC and AVIF files")
    func ingest() throws {
        let folder = try Self.files()
        let run = try Fic.run(["ingest", folder.path("images"), "--cache", folder.path("cache"), "--format", "thumb:100x100"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("2 added"), "\(run.stdout)")
    }
}
