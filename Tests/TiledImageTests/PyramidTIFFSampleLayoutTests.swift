import FICTestSupport
import Foundation
import ImageCodec
import Testing
@testable import TiledImage

/// Tiled TIFFs in every 8-bit sample layout other tools write (grey, grey and alpha, MinIsWhite,
/// RGB with alpha associated or not, prediction), read by the pyramid reader as vips reads them;
/// and the layouts it cannot show, refused when the file is opened, naming what they are.
@Suite struct PyramidTIFFSampleLayoutTests {
    typealias F = PyramidTIFFFixtures

    /// A layout: the tool runs making `{dir}/t.tif` from `{photo}`, and whether it has alpha.
    struct Layout: Sendable, CustomStringConvertible {
        let description: String
        let steps: [[String]]
        let hasAlpha: Bool
        /// Whether vips's decode and ours may differ by rounding (associated alpha: each
        /// reader un-premultiplies and premultiplies in its own way).
        var rounding = false
    }

    static let tile = ["--tile", "--tile-width", "256", "--tile-height", "256", "--pyramid"]
    static let magickTile = ["-define", "tiff:tile-geometry=256x256", "-compress", "zip"]
    /// An alpha band that varies across the picture, made by ImageMagick from the pixel's column.
    static let magickAlpha = ["(", "+clone", "-fx", "i/w", ")", "-alpha", "off", "-compose", "copy_opacity", "-composite"]

    static let layouts: [Layout] = [
        Layout(
            description: "grey, deflate with horizontal prediction (vips)",
            steps: [
                [F.vips, "colourspace", "{photo}", "{dir}/g.v", "b-w"],
                [F.vips, "tiffsave", "{dir}/g.v", "{dir}/t.tif", "--compression", "deflate", "--predictor", "horizontal"] + tile
            ], hasAlpha: false),
        Layout(
            description: "grey, JPEG tiles (vips)",
            steps: [
                [F.vips, "colourspace", "{photo}", "{dir}/g.v", "b-w"],
                [F.vips, "tiffsave", "{dir}/g.v", "{dir}/t.tif", "--compression", "jpeg", "--Q", "90"] + tile
            ], hasAlpha: false),
        Layout(
            description: "RGB, JPEG tiles (vips)",
            steps: [[F.vips, "tiffsave", "{photo}", "{dir}/t.tif", "--compression", "jpeg", "--Q", "90"] + tile], hasAlpha: false),
        Layout(
            description: "grey and alpha (vips)",
            steps: [
                [F.vips, "colourspace", "{photo}", "{dir}/g.v", "b-w"],
                [F.vips, "extract_band", "{photo}", "{dir}/a.v", "1"],
                [F.vips, "bandjoin", "{dir}/g.v {dir}/a.v", "{dir}/ga.v"],
                [F.vips, "tiffsave", "{dir}/ga.v", "{dir}/t.tif", "--compression", "deflate"] + tile
            ], hasAlpha: true),
        Layout(
            description: "RGB and unassociated alpha, uncompressed (vips)",
            steps: [
                [F.vips, "extract_band", "{photo}", "{dir}/a.v", "0"],
                [F.vips, "bandjoin", "{photo} {dir}/a.v", "{dir}/rgba.v"],
                [F.vips, "tiffsave", "{dir}/rgba.v", "{dir}/t.tif", "--compression", "none"] + tile
            ], hasAlpha: true),
        Layout(
            description: "grey, MinIsWhite (ImageMagick)",
            steps: [
                ["/usr/bin/convert", "{photo}", "-colorspace", "gray", "-define", "quantum:polarity=min-is-white"] + magickTile + [
                    "{dir}/t.tif"
                ]
            ],
            hasAlpha: false),
        Layout(
            description: "RGB and associated alpha (ImageMagick)",
            steps: [["/usr/bin/convert", "{photo}"] + magickAlpha + ["-define", "tiff:alpha=associated"] + magickTile + ["{dir}/t.tif"]],
            hasAlpha: true, rounding: true)
    ]

    static func make(_ steps: [[String]], in folder: String) throws -> String {
        for step in steps {
            let arguments = step.dropFirst().map {
                $0.replacingOccurrences(of: "{photo}", with: Fixtures.path("photos/chelsea.jpg")).replacingOccurrences(
                    of: "{dir}", with: folder)
            }
            try ExternalTools.run(step[0], Array(arguments))
        }
        return folder + "/t.tif"
    }

    @Test(arguments: layouts)
    func readAsVipsReadsIt(_ layout: Layout) throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let path = try Self.make(layout.steps, in: folder)
        let reader = try PyramidTIFFReader(path: path)
        #expect(reader.levels.allSatisfy { $0.hasAlpha == layout.hasAlpha })
        for level in reader.levels.indices {
            let ours = try F.decodedLevel(reader, level: level), theirs = try F.vipsPage(path, page: level, folder: folder)
            try #require(ours.width == theirs.width && ours.height == theirs.height)
            let largest = zip(ours.pixels, theirs.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
            #expect(largest <= (layout.rounding ? 1 : 0), "level \(level): largest difference \(largest)")
        }
    }

    /// Signed samples would be shown as other colours; they are refused when the file is opened.
    @Test func signedSamplesAreRefusedByName() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let path = try Self.make(
            [["/usr/bin/convert", "{photo}", "-define", "quantum:format=signed"] + Self.magickTile + ["{dir}/t.tif"]], in: folder)
        let error = try #require(throws: ImageCacheError.self) { try PyramidTIFFReader(path: path) }
        #expect(error.code == .unsupportedFormat && error.message.contains("signed integer"), "\(error)")
    }
}
