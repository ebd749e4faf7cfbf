import FICTestSupport
import Foundation
import ImageCodec
import Testing
@testable import TiledImage

/// TIFFs into tile pyramids: read where the file lies, or spooled from chunks; the same tiles as
/// the same image as PNG.
@Suite struct TIFFPyramidTests {
    static let vips = "/usr/bin/vips"

    /// The pyramid of a tiled, deflated BigTIFF equals, tile for tile, the pyramid of the same
    /// pixels as PNG; spooled from chunks it is the same again.
    @Test func tiledBigTIFFPyramidEqualsThePNGPyramid() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let photo = Fixtures.path("photos/retina.jpg")  // 1411 × 1411: 6 × 6 tiles, 4 levels
        try ExternalTools.run(
            Self.vips,
            [
                "tiffsave", photo, folder + "/big.tif", "--tile", "--tile-width", "256", "--tile-height", "256", "--bigtiff",
                "--compression", "deflate"
            ])
        try ExternalTools.run(Self.vips, ["copy", photo, folder + "/same.png"])
        let tiff = try TilePyramidBuilder.build(contentsOf: folder + "/big.tif", destination: rawTIFF(folder + "/from-tiff.tif"))
        let png = try TilePyramidBuilder.build(contentsOf: folder + "/same.png", destination: rawTIFF(folder + "/from-png.tif"))
        #expect(tiff.geometry.levels.count == 4 && tiff.geometry.width == 1411 && png.geometry == tiff.geometry)
        #expect(tiff.sourceFormat == .tiff)
        let levels = tiff.geometry.levels.count
        #expect(try PyramidTIFFFixtures.tiles(of: tiff) == PyramidTIFFFixtures.tiles(of: png))
        let streamed = try buildPyramid(
            try ExternalTools.bytes(atPath: folder + "/big.tif"), chunkSize: 100_000, destination: rawTIFF(folder + "/streamed.tif"))
        #expect(streamed.geometry.levels.count == levels)
        #expect(try PyramidTIFFFixtures.tiles(of: streamed) == PyramidTIFFFixtures.tiles(of: png))
        let reopened = try TilePyramid.open(at: folder + "/from-tiff.tif")
        #expect(reopened.sourceFormat == .tiff)
    }

    /// TIFFs tagged Adobe RGB (rocket.jpg's profile, which libvips keeps) give the pyramid of
    /// their decode, converted to sRGB: 8-bit RGB has the conversion made on the pyramid's
    /// threads after the rows are handed over, 16-bit RGB while decoding (before its samples are
    /// reduced); either way level 0 is exactly the plain decode, which is not the untagged picture.
    /// Grey samples under the RGB profile are shown as they are, in the pyramid as in the decode.
    @Test(arguments: [
        ("rgb8-tiled", ["tiffsave", "{in}", "{out}", "--tile", "--compression", "deflate"], true),
        ("grey8-strips", ["colourspace", "{in}", "{out}", "b-w"], false),
        ("rgb16", ["colourspace", "{in}", "{out}", "rgb16"], true)
    ])
    func profiledTIFFsGiveThePyramidOfTheirConvertedDecode(name: String, arguments: [String], converted: Bool) throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let tiff = folder + "/\(name).tif", stripped = folder + "/\(name)-untagged.tif"
        try ExternalTools.run(Self.vips, arguments.map { $0 == "{in}" ? Fixtures.path("photos/rocket.jpg") : $0 == "{out}" ? tiff : $0 })
        try ExternalTools.run(Self.vips, ["tiffsave", tiff, stripped, "--strip"])
        let bytes = try ExternalTools.bytes(atPath: tiff)
        guard case .iccProfile = try ImageDecoder.info(bytes).color else {
            Issue.record("\(name): libvips kept no profile")
            return
        }
        let decoded = try Bitmap(decoding: bytes)
        let untagged = try Bitmap(decoding: try ExternalTools.bytes(atPath: stripped))
        #expect((decoded.maximumDifference(to: untagged) > 8) == converted, "\(name): whether the profile changes the picture")
        let pyramid = try TilePyramidBuilder.build(contentsOf: tiff, destination: rawTIFF(folder + "/p.tif"))
        try expectPyramid(pyramid, matches: decoded)
        let streamed = try buildPyramid(bytes, chunkSize: 50_000, destination: .temporary(folder: folder))
        try expectPyramid(streamed, matches: decoded)
    }

    /// A TIFF with Orientation 6 gives the pyramid of the upright image.
    @Test func rotatedTIFFGivesTheUprightPyramid() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let photo = Fixtures.path("photos/hubble.jpg")
        try ExternalTools.run(Self.vips, ["tiffsave", photo, folder + "/t.tif", "--compression", "lzw"])
        try ExternalTools.run("/usr/bin/tiffset", ["-s", "274", "6", folder + "/t.tif"])
        try ExternalTools.run(Self.vips, ["autorot", folder + "/t.tif", folder + "/upright.png"])
        let tiff = try TilePyramidBuilder.build(contentsOf: folder + "/t.tif", destination: rawTIFF(folder + "/a.tif"))
        let png = try TilePyramidBuilder.build(contentsOf: folder + "/upright.png", destination: rawTIFF(folder + "/b.tif"))
        #expect(tiff.geometry.width == 872 && tiff.geometry.height == 1000)
        #expect(try PyramidTIFFFixtures.tiles(of: tiff) == PyramidTIFFFixtures.tiles(of: png))
    }

    /// A TIFF cut short fails the build as cut short, and leaves no pyramid behind.
    @Test func truncatedTIFFLeavesNothing() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        try ExternalTools.run(Self.vips, ["tiffsave", Fixtures.path("photos/coffee.jpg"), folder + "/t.tif", "--tile"])
        let bytes = try ExternalTools.bytes(atPath: folder + "/t.tif")
        try ExternalTools.write(Array(bytes[0..<(bytes.count * 2 / 3)]), to: folder + "/cut.tif")
        #expect(throws: ImageCacheError.self) {
            do {
                _ = try TilePyramidBuilder.build(contentsOf: folder + "/cut.tif", destination: rawTIFF(folder + "/p.tif"))
            } catch let error as ImageCacheError {
                #expect(error.code == .truncated)
                #expect(error.path == folder + "/cut.tif")
                throw error
            }
        }
        #expect(throws: ImageCacheError.self) { try TilePyramid.open(at: folder + "/p.tif") }
        expectNoPyramid(folder + "/p.tif")
        #expect(throws: ImageCacheError.self) {
            try buildPyramid(Array(bytes[0..<(bytes.count / 2)]), chunkSize: 4096, destination: rawTIFF(folder + "/q.tif"))
        }
    }

    /// A cancel from another thread stops a TIFF being decoded from its file (under the builder's
    /// lock) at its next batch of rows; nothing is left behind. The build is held at its start
    /// (the progress report before decoding) until the cancel has been made, so that it cannot
    /// finish first.
    @Test func cancelStopsAFileDecode() async throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        try ExternalTools.run(Self.vips, ["resize", Fixtures.path("photos/hubble.jpg"), folder + "/big.v", "6"])
        try ExternalTools.run(
            Self.vips, ["tiffsave", folder + "/big.v", folder + "/big.tif", "--tile", "--tile-width", "256", "--tile-height", "256"])
        let builder = try TilePyramidBuilder(destination: rawTIFF(folder + "/p.tif"))
        let path = folder + "/big.tif"
        let reached = DispatchSemaphore(value: 0), cancelled = DispatchSemaphore(value: 0)
        let build = Task.detached { () -> ImageCacheError.Code? in
            do {
                _ = try builder.build(contentsOf: path) { _ in
                    reached.signal()
                    _ = cancelled.wait(timeout: .now() + 600)
                }
                return nil
            } catch let error as ImageCacheError {
                return error.code
            } catch {
                return .io
            }
        }
        try await waitUntil("the build reported its progress") { reached.wait(timeout: .now()) == .success }
        builder.cancel()
        cancelled.signal()
        #expect(await build.value == .cancelled)
        #expect(throws: ImageCacheError.self) { try TilePyramid.open(at: folder + "/p.tif") }
    }
}
