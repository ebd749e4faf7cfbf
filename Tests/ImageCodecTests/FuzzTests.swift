import FICTestSupport
import Foundation
import ImageCodec
import Testing

/// Deterministic mutation fuzzing of every decoder. `FIC_FUZZ_SECONDS` (default 3) is the total
/// time, split evenly across JPEG, PNG, WebP, HEIF/AVIF, JPEG XL, GIF and TIFF. Every call must either return a sane
/// image or throw an ``ImageCacheError``; a crash or an ASan report fails the run. The JPEG XL and
/// GIF seeds are made at test time (cjxl, ImageMagick) from the bundled photos.
@Suite(.serialized) struct Fuzz {
    static var secondsPerFormat: Double {
        let total = ProcessInfo.processInfo.environment["FIC_FUZZ_SECONDS"].flatMap(Double.init) ?? 3
        return max(total, 0.7) / 7
    }

    @Test func jpeg() async throws {
        let stats = try await OwnThread.running { try FuzzRunner.run(format: .jpeg, seconds: Self.secondsPerFormat, seed: 0x4A50_4547) }
        #expect(stats.iterations > 0)
        #expect(stats.incrementalRuns > 0)
        #expect(stats.failures + stats.successes > 0)
    }

    @Test func png() async throws {
        let stats = try await OwnThread.running { try FuzzRunner.run(format: .png, seconds: Self.secondsPerFormat, seed: 0x504E_47) }
        #expect(stats.iterations > 0)
        #expect(stats.failures + stats.successes > 0)
    }

    /// Seeded with small TIFFs made by the tools at test time (the test data has none): strips,
    /// tiles, BigTIFF, a pyramid, YCbCr JPEG, separate planes, 16 bits, palette, alpha, CMYK, fax.
    @Test func tiff() async throws {
        let folder = try TIFFMaker.folder()
        defer { TIFFMaker.remove(folder) }
        let small = folder + "/small.png"
        try ExternalTools.run(TIFFMaker.vips, ["resize", TIFFMaker.photo("chelsea.jpg"), small, "0.15"])
        try ExternalTools.run(TIFFMaker.vips, ["tiffsave", small, folder + "/plain.tif", "--compression", "none"])
        let recipes: [(String, String, [String])] = [
            ("strips.tif", TIFFMaker.vips, ["tiffsave", small, "{out}", "--compression", "deflate"]),
            (
                "tiles.tif", TIFFMaker.vips,
                ["tiffsave", small, "{out}", "--tile", "--tile-width", "16", "--tile-height", "16", "--compression", "lzw"]
            ),
            ("big.tif", TIFFMaker.vips, ["tiffsave", small, "{out}", "--bigtiff", "--tile", "--tile-width", "32", "--tile-height", "32"]),
            (
                "pyramid.tif", TIFFMaker.vips,
                ["tiffsave", small, "{out}", "--tile", "--tile-width", "16", "--tile-height", "16", "--pyramid", "--subifd"]
            ),
            ("ycbcr.tif", TIFFMaker.tiffcp, ["-c", "jpeg:80", "-r", "16", folder + "/plain.tif", "{out}"]),
            ("planar.tif", TIFFMaker.tiffcp, ["-p", "separate", "-c", "zip", folder + "/plain.tif", "{out}"]),
            ("rgb16.tif", TIFFMaker.convert, [small, "-depth", "16", "{out}"]),
            ("palette.tif", TIFFMaker.convert, [small, "-colors", "16", "-type", "Palette", "{out}"]),
            (
                "alpha.tif", TIFFMaker.convert,
                [
                    small, "(", "+clone", "-fx", "i/w", ")", "-alpha", "off", "-compose", "copy_opacity", "-composite", "-define",
                    "tiff:alpha=associated", "{out}"
                ]
            ),
            ("cmyk.tif", TIFFMaker.convert, [small, "-colorspace", "CMYK", "{out}"]),
            ("fax.tif", TIFFMaker.convert, [small, "-monochrome", "-compress", "Group4", "{out}"])
        ]
        var seeds: [(name: String, bytes: [UInt8])] = []
        for (name, tool, arguments) in recipes {
            let out = folder + "/" + name
            seeds.append((name, try TIFFMaker.make(out, tool, arguments.map { $0 == "{out}" ? out : $0 })))
        }
        let corpus = seeds
        let stats = try await OwnThread.running {
            try FuzzRunner.run(format: .tiff, seconds: Self.secondsPerFormat, seed: 0x5449_4646, extra: corpus)
        }
        #expect(stats.iterations > 0)
        #expect(stats.failures + stats.successes > 0)
    }

    @Test func webp() async throws {
        let stats = try await OwnThread.running { try FuzzRunner.run(format: .webp, seconds: Self.secondsPerFormat, seed: 0x5745_4250) }
        #expect(stats.iterations > 0)
        #expect(stats.failures + stats.successes > 0)
    }

    /// HEIC and AVIF made at test time: plain, with a thumbnail, alpha, 10-bit, a grid, turned and
    /// mirrored, an animation's first frame.
    @Test func heif() async throws {
        let stats = try await OwnThread.running {
            try FuzzRunner.run(format: .heif, seconds: Self.secondsPerFormat, seed: 0x4845_4946, extra: try HEIFTestFiles.fuzzCorpus())
        }
        #expect(stats.iterations > 0)
        #expect(stats.failures + stats.successes > 0)
    }

    @Test func jxl() async throws {
        let folder = try JXLTests.Folder()
        let seeds = [
            (
                "lossless JPEG",
                try ExternalTools.cjxl(TestData.path("jpeg/orientation/chelsea-orientation-6.jpg"), in: folder.path, name: "a.jxl")
            ),
            (
                "VarDCT",
                try ExternalTools.cjxl(
                    TestData.path("photos/chelsea.jpg"), ["-d", "2", "--lossless_jpeg=0"], in: folder.path, name: "b.jxl")
            ),
            (
                "lossless alpha",
                try ExternalTools.cjxl(TestData.path("png/astronaut-rgba.png"), ["-d", "0", "-e", "1"], in: folder.path, name: "c.jxl")
            ),
            ("16-bit", try ExternalTools.cjxl(TestData.path("png/astronaut-16bit.png"), ["-d", "3"], in: folder.path, name: "d.jxl"))
        ]
        let stats = try await OwnThread.running {
            try FuzzRunner.run(format: .jxl, seconds: Self.secondsPerFormat, seed: 0x4A58_4C, extra: seeds)
        }
        #expect(stats.iterations > 0)
        #expect(stats.failures + stats.successes > 0)
    }

    @Test func gif() async throws {
        let folder = try JXLTests.Folder()
        let photo = TestData.path("photos/chelsea.jpg")
        let seeds = [
            ("photo", try GIFTests.photoGIF("photos/coffee.jpg", extra: ["-resize", "50%"], in: folder)),
            ("interlaced", try GIFTests.photoGIF("photos/astronaut.jpg", interlaced: true, extra: ["-resize", "25%"], in: folder)),
            (
                "animated",
                try ExternalTools.convert(
                    [
                        "-delay", "10", "(", photo, "-resize", "20%", ")", "(", photo, "-resize", "10%", "-transparent", "white", ")",
                        "-colors", "32"
                    ], in: folder.path, name: "anim.gif")
            )
        ]
        let stats = try await OwnThread.running {
            try FuzzRunner.run(format: .gif, seconds: Self.secondsPerFormat, seed: 0x4749_46, extra: seeds)
        }
        #expect(stats.iterations > 0)
        #expect(stats.failures + stats.successes > 0)
    }
}
