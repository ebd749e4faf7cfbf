import FICTestSupport
import Foundation
import ImageCodec
import Testing
@testable import TiledImage

/// Static tile trees against the ones `vips dzsave` writes from the same image: the same files
/// under the same names, tiles of the same sizes and the same pictures.
@Suite struct StaticExportTests {
    static let vips = "/usr/bin/vips"

    /// A photo resized by vips to `width × height`, and its pyramid.
    static func source(width: Int, height: Int, in folder: String) throws -> (String, TilePyramid) {
        let path = folder + "/source.jpg"
        // Converted to sRGB and untagged: vips dzsave copies samples as they are, where the
        // package converts a tagged photo (rocket.jpg is Adobe RGB) to sRGB.
        try ExternalTools.run(
            vips,
            [
                "thumbnail", Fixtures.path("photos/rocket.jpg"), path + "[Q=95,strip]", "\(width)", "--height", "\(height)",
                "--size", "force", "--export-profile", "srgb"
            ])
        let pyramid = try TilePyramidBuilder.build(contentsOf: path, destination: rawTIFF(folder + "/pyramid.tif"))
        #expect(pyramid.geometry.width == width && pyramid.geometry.height == height)
        return (path, pyramid)
    }

    /// The files below `folder`, by their path relative to it, without vips's own properties file.
    static func files(below folder: String) throws -> Set<String> {
        let enumerator = try #require(FileManager.default.enumerator(atPath: folder))
        var found = Set<String>()
        while let name = enumerator.nextObject() as? String {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder + "/" + name, isDirectory: &isFolder), !isFolder.boolValue,
                !name.hasSuffix("vips-properties.xml")
            {
                found.insert(name)
            }
        }
        return found
    }

    /// The attribute `name` of a Deep Zoom descriptor.
    static func attribute(_ name: String, in descriptor: String) -> String? {
        guard let range = descriptor.range(of: "\(name)=\"") else { return nil }
        return String(descriptor[range.upperBound...].prefix { $0 != "\"" })
    }

    /// Both tiles decode to the same size and look alike: nearly the same at full resolution
    /// (only JPEG differs), alike at the reduced levels (each reduces in its own way).
    static func expectAlike(_ ours: String, _ theirs: String, fullResolution: Bool) throws {
        let a = try ImageDecoder.decode(contentsOf: ours), b = try ImageDecoder.decode(contentsOf: theirs)
        #expect(a.width == b.width && a.height == b.height, "\(ours)")
        guard a.width == b.width, a.height == b.height else { return }
        var squared = 0.0
        for y in 0..<a.height {
            for i in 0..<(a.width * 4) where i % 4 != 3 {
                let d =
                    Double((a.baseAddress + y * a.bytesPerRow + i).load(as: UInt8.self))
                    - Double((b.baseAddress + y * b.bytesPerRow + i).load(as: UInt8.self))
                squared += d * d
            }
        }
        let mse = squared / Double(a.width * a.height * 3)
        let psnr = mse == 0 ? Double.infinity : 10 * log10(255 * 255 / mse)
        #expect(psnr >= (fullResolution ? 34 : 26), "\(ours): \(psnr) dB")
    }

    /// Sizes with partial edge tiles, a side of exactly one tile, and regions that repeat across
    /// scale factors.
    @Test(arguments: [(1000, 601), (256, 600), (700, 300)])
    func deepZoomIsWhatVipsWrites(_ size: (Int, Int)) throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let (source, pyramid) = try Self.source(width: size.0, height: size.1, in: folder)
        let summary = try StaticTileExport.write(pyramid, layout: .dzi, into: folder + "/ours")
        try ExternalTools.run(
            Self.vips, ["dzsave", source, folder + "/vips/image", "--overlap", "0", "--tile-size", "256", "--suffix", ".jpg[Q=85]"])
        let ours = try Self.files(below: folder + "/ours/image_files"), theirs = try Self.files(below: folder + "/vips/image_files")
        #expect(ours == theirs)
        #expect(summary.tiles == ours.count)
        let descriptor = try String(contentsOfFile: folder + "/ours/image.dzi", encoding: .utf8)
        let vipsDescriptor = try String(contentsOfFile: folder + "/vips/image.dzi", encoding: .utf8)
        for name in ["Width", "Height", "TileSize", "Overlap"] {
            #expect(Self.attribute(name, in: descriptor) == Self.attribute(name, in: vipsDescriptor), "\(name)")
        }
        #expect(Self.attribute("Format", in: descriptor) == "jpg")
        let top = ours.compactMap { Int($0.split(separator: "/")[0]) }.max() ?? 0
        for name in ours.sorted() {
            try Self.expectAlike(
                folder + "/ours/image_files/" + name, folder + "/vips/image_files/" + name, fullResolution: name.hasPrefix("\(top)/"))
        }
    }

    @Test(arguments: [(1000, 601), (256, 600)])
    func iiifLevelZeroIsWhatVipsWrites(_ size: (Int, Int)) throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let (source, pyramid) = try Self.source(width: size.0, height: size.1, in: folder)
        _ = try StaticTileExport.write(pyramid, layout: .iiif, into: folder + "/ours", iiifID: "https://images.example/iiif/rocket")
        try FileManager.default.createDirectory(atPath: folder + "/vips", withIntermediateDirectories: true)
        try ExternalTools.run(
            Self.vips,
            ["dzsave", source, folder + "/vips/iiif", "--layout", "iiif3", "--overlap", "0", "--tile-size", "256", "--suffix", ".jpg[Q=85]"]
        )
        var ours = try Self.files(below: folder + "/ours/iiif"), theirs = try Self.files(below: folder + "/vips/iiif")
        #expect(ours.remove("info.json") != nil && theirs.remove("info.json") != nil)
        #expect(ours == theirs)
        for name in ours.sorted() {
            try Self.expectAlike(
                folder + "/ours/iiif/" + name, folder + "/vips/iiif/" + name,
                fullResolution: name.contains("/256,256/") && name.hasPrefix("0,0,256,256/"))
        }
        let info = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/ours/iiif/info.json")))
                as? [String: Any])
        #expect(info["id"] as? String == "https://images.example/iiif/rocket")
        #expect(info["type"] as? String == "ImageService3" && info["profile"] as? String == "level0")
        #expect(info["width"] as? Int == size.0 && info["height"] as? Int == size.1)
        let tiles = try #require((info["tiles"] as? [[String: Any]])?.first)
        #expect(tiles["width"] as? Int == 256)
        // Every scale factor a tile was written for, and only those.
        let factors = Set(
            ours.compactMap { path -> Int? in
                let parts = path.split(separator: "/")
                guard let region = parts.first?.split(separator: ",").compactMap({ Int($0) }),
                    let sized = parts.dropFirst().first?.split(separator: ",").compactMap({ Int($0) }),
                    region.count == 4, sized.count == 2
                else { return nil }
                return (region[2] + sized[0] - 1) / sized[0]
            })
        #expect(Set(tiles["scaleFactors"] as? [Int] ?? []) == factors)
    }

    /// An export never writes over an existing tree: the second one is refused and the first is
    /// left as it was.
    @Test func anExistingTreeIsRefused() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let (_, pyramid) = try Self.source(width: 300, height: 200, in: folder)
        let first = try StaticTileExport.write(pyramid, layout: .dzi, into: folder + "/out")
        let before = try Self.files(below: folder + "/out")
        #expect(throws: ImageCacheError.self) { try StaticTileExport.write(pyramid, layout: .dzi, into: folder + "/out") }
        #expect(try Self.files(below: folder + "/out") == before)
        #expect(before.count == first.tiles + 1)
    }
}
