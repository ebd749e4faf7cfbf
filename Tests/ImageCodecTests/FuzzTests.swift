import FICTestSupport
import Foundation
import ImageCodec
import Testing

/// Deterministic mutation fuzzing of every decoder. `FIC_FUZZ_SECONDS` (default 3) is the total
/// time, split evenly across JPEG, PNG, WebP and TIFF. Every call must either return a sane image or throw
/// an ``ImageCacheError``; a crash or an ASan report fails the run.
@Suite(.serialized) struct Fuzz {
    static var secondsPerFormat: Double {
        let total = ProcessInfo.processInfo.environment["FIC_FUZZ_SECONDS"].flatMap(Double.init) ?? 3
        return max(total, 0.4) / 4
    }

    @Test func jpeg() throws {
        let stats = try FuzzRunner.run(format: .jpeg, seconds: Self.secondsPerFormat, seed: 0x4A50_4547)
        #expect(stats.iterations > 0)
        #expect(stats.incrementalRuns > 0)
        #expect(stats.failures + stats.successes > 0)
    }

    @Test func png() throws {
        let stats = try FuzzRunner.run(format: .png, seconds: Self.secondsPerFormat, seed: 0x504E_47)
        #expect(stats.iterations > 0)
        #expect(stats.failures + stats.successes > 0)
    }

    /// Seeded with small TIFFs made by the tools at test time (the test data has none): strips,
    /// tiles, BigTIFF, a pyramid, YCbCr JPEG, separate planes, 16 bits, palette, alpha, CMYK, fax.
    @Test func tiff() throws {
        let folder = try TIFFMaker.folder()
        defer { TIFFMaker.remove(folder) }
        let small = folder + "/small.png"
        try ExternalTools.run(TIFFMaker.vips, ["resize", TIFFMaker.photo("chelsea.jpg"), small, "0.15"])
        try ExternalTools.run(TIFFMaker.vips, ["tiffsave", small, folder + "/plain.tif", "--compression", "none"])
        let recipes: [(String, String, [String])] = [
            ("strips.tif", TIFFMaker.vips, ["tiffsave", small, "{out}", "--compression", "deflate"]),
            ("tiles.tif", TIFFMaker.vips, ["tiffsave", small, "{out}", "--tile", "--tile-width", "16", "--tile-height", "16", "--compression", "lzw"]),
            ("big.tif", TIFFMaker.vips, ["tiffsave", small, "{out}", "--bigtiff", "--tile", "--tile-width", "32", "--tile-height", "32"]),
            ("pyramid.tif", TIFFMaker.vips, ["tiffsave", small, "{out}", "--tile", "--tile-width", "16", "--tile-height", "16", "--pyramid", "--subifd"]),
            ("ycbcr.tif", TIFFMaker.tiffcp, ["-c", "jpeg:80", "-r", "16", folder + "/plain.tif", "{out}"]),
            ("planar.tif", TIFFMaker.tiffcp, ["-p", "separate", "-c", "zip", folder + "/plain.tif", "{out}"]),
            ("rgb16.tif", TIFFMaker.convert, [small, "-depth", "16", "{out}"]),
            ("palette.tif", TIFFMaker.convert, [small, "-colors", "16", "-type", "Palette", "{out}"]),
            ("alpha.tif", TIFFMaker.convert, [small, "(", "+clone", "-fx", "i/w", ")", "-alpha", "off", "-compose", "copy_opacity", "-composite", "-define", "tiff:alpha=associated", "{out}"]),
            ("cmyk.tif", TIFFMaker.convert, [small, "-colorspace", "CMYK", "{out}"]),
            ("fax.tif", TIFFMaker.convert, [small, "-monochrome", "-compress", "Group4", "{out}"]),
        ]
        var seeds: [(name: String, bytes: [UInt8])] = []
        for (name, tool, arguments) in recipes {
            let out = folder + "/" + name
            seeds.append((name, try TIFFMaker.make(out, tool, arguments.map { $0 == "{out}" ? out : $0 })))
        }
        let stats = try FuzzRunner.run(format: .tiff, seconds: Self.secondsPerFormat, seed: 0x5449_4646, seeds: seeds)
        #expect(stats.iterations > 0)
        #expect(stats.failures + stats.successes > 0)
    }

    @Test func webp() throws {
        let stats = try FuzzRunner.run(format: .webp, seconds: Self.secondsPerFormat, seed: 0x5745_4250)
        #expect(stats.iterations > 0)
        #expect(stats.failures + stats.successes > 0)
    }
}
