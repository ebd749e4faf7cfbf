import FICTestSupport
import Foundation
import Testing
@testable import TiledImage

/// Remote tile descriptors: the ones `vips dzsave` and the package write, the IIIF 2 example of
/// the specification, and hostile ones.
@Suite struct TileServiceDescriptorTests {
    static let base = URL(string: "https://tiles.example/images/rocket/")!

    /// vips's trees: every tile file vips wrote is the URL the descriptor gives for it, and every
    /// URL the descriptor gives is a file vips wrote.
    @Test(arguments: [(1000, 601), (256, 600)])
    func urlsAreTheFilesVipsWrote(_ size: (Int, Int)) throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let (source, _) = try StaticExportTests.source(width: size.0, height: size.1, in: folder)
        try ExternalTools.run(
            StaticExportTests.vips, ["dzsave", source, folder + "/image", "--overlap", "0", "--tile-size", "256", "--suffix", ".jpg"])
        try ExternalTools.run(
            StaticExportTests.vips,
            [
                "dzsave", source, folder + "/iiif", "--layout", "iiif3", "--overlap", "0", "--tile-size", "256", "--id",
                String(Self.base.absoluteString.dropLast())
            ])  // vips adds "/iiif"

        let dzi = try TileServiceDescriptor.parse(
            try ExternalTools.bytes(atPath: folder + "/image.dzi"), from: Self.base.appendingPathComponent("image.dzi"))
        #expect(dzi.width == size.0 && dzi.height == size.1 && dzi.tileWidth == 256)
        #expect(
            Set(allURLs(dzi).map { relative($0, to: Self.base) })
                == Set(try StaticExportTests.files(below: folder + "/image_files").map { "image_files/" + $0 }))

        let iiif = try TileServiceDescriptor.parse(
            try ExternalTools.bytes(atPath: folder + "/iiif/info.json"), from: Self.base.appendingPathComponent("iiif/info.json"))
        #expect(iiif.service == .iiif(id: Self.base.appendingPathComponent("iiif"), version: 3))
        var written = try StaticExportTests.files(below: folder + "/iiif")
        written.remove("info.json")
        // vips announces fewer scale factors than it writes tiles for: every announced one is there.
        let offered = Set(allURLs(iiif).map { relative($0, to: Self.base.appendingPathComponent("iiif/")) })
        #expect(!offered.isEmpty && offered.isSubset(of: written))
    }

    /// The package's own IIIF tree reads back whole: every tile it wrote, and only those.
    @Test func theOwnIIIFTreeReadsBack() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let (_, pyramid) = try StaticExportTests.source(width: 1000, height: 601, in: folder)
        _ = try StaticTileExport.write(
            pyramid, layout: .iiif, into: folder + "/out", iiifID: Self.base.appendingPathComponent("iiif").absoluteString)
        let iiif = try TileServiceDescriptor.parse(try ExternalTools.bytes(atPath: folder + "/out/iiif/info.json"), from: Self.base)
        var written = try StaticExportTests.files(below: folder + "/out/iiif")
        written.remove("info.json")
        #expect(Set(allURLs(iiif).map { relative($0, to: Self.base.appendingPathComponent("iiif/")) }) == written)
    }

    /// The IIIF Image API 2.1 example (with `@id`, `@context` and the `w,` size form).
    @Test func iiifVersion2() throws {
        let json = """
            {"@context": "http://iiif.io/api/image/2/context.json", "@id": "http://www.example.org/image-service/abcd1234",
             "protocol": "http://iiif.io/api/image", "width": 6000, "height": 4000,
             "tiles": [{"width": 512, "scaleFactors": [1, 2, 4, 8, 16]}], "profile": ["http://iiif.io/api/image/2/level2.json"]}
            """
        let d = try TileServiceDescriptor.parse(
            Array(json.utf8), from: URL(string: "http://www.example.org/image-service/abcd1234/info.json")!)
        #expect(d.levels.count == 5 && d.tileHeight == 512)
        #expect(
            d.tileURL(level: 0, column: 11, row: 7).absoluteString
                == "http://www.example.org/image-service/abcd1234/5632,3584,368,416/368,/0/default.jpg")
        #expect(
            d.tileURL(level: 4, column: 0, row: 0).absoluteString
                == "http://www.example.org/image-service/abcd1234/0,0,6000,4000/375,/0/default.jpg")
    }

    /// Hostile descriptors are named refusals, never a crash, an overflow or an endless level list.
    @Test(arguments: [
        #"<Image TileSize="0" Overlap="0" Format="jpg"><Size Width="100" Height="100"/></Image>"#,
        #"<Image TileSize="1000000000" Overlap="0" Format="jpg"><Size Width="100" Height="100"/></Image>"#,
        #"<Image TileSize="256" Overlap="200" Format="jpg"><Size Width="100" Height="100"/></Image>"#,
        #"<Image TileSize="256" Overlap="0" Format="exe"><Size Width="100" Height="100"/></Image>"#,
        #"<Image TileSize="256" Overlap="0" Format="jpg"><Size Width="0" Height="100"/></Image>"#,
        #"<Image TileSize="256" Overlap="0" Format="jpg"><Size Width="99999999999999999999" Height="100"/></Image>"#,
        #"<Image TileSize="256" Overlap="0" Format="jpg"><Size Width="2000000" Height="100"/></Image>"#,
        #"<Image TileSize="256" Overlap="0" Format="jpg">"#,
        #"<Image TileSize="256"#,
        #"{"id": "https://x.example/i", "width": 100, "height": 100, "tiles": [{"width": 0, "scaleFactors": [1]}]}"#,
        #"{"id": "https://x.example/i", "width": 100, "height": 100, "tiles": [{"width": 1e300, "scaleFactors": [1]}]}"#,
        #"{"id": "https://x.example/i", "width": -5, "height": 100, "tiles": [{"width": 256, "scaleFactors": [1]}]}"#,
        #"{"id": "https://x.example/i", "width": 100, "height": 100, "tiles": [{"width": 256, "scaleFactors": [2, 4]}]}"#,
        #"{"id": "https://x.example/i", "width": 100, "height": 100}"#,
        #"{"id": "file:///etc/passwd", "width": 100, "height": 100, "tiles": [{"width": 256, "scaleFactors": [1]}]}"#,
        #"{"id": "javascript:alert(1)", "width": 100, "height": 100, "tiles": [{"width": 256, "scaleFactors": [1]}]}"#,
        #"{"width": 100, "height": 100, "tiles": [{"width": 256, "scaleFactors": [1]}]}"#,
        #"{"id": "https://x.example/i", "width": 100, "height": 100, "tiles": "#,
        #"[1, 2, 3]"#,
        "GIF89a",
        ""
    ])
    func hostileDescriptorsAreRefused(_ text: String) {
        #expect(throws: ImageCacheError.self) { try TileServiceDescriptor.parse(Array(text.utf8), from: Self.base) }
    }

    /// Scale factors far beyond the image (2^62) and a level count that would overflow: the levels
    /// stop at 1 × 1.
    @Test func absurdScaleFactorsStopAtOnePixel() throws {
        let factors = (0..<63).map { "\(1 << $0)" }.joined(separator: ",")
        let json = #"{"id": "https://x.example/i", "width": 300, "height": 200, "tiles": [{"width": 256, "scaleFactors": [\#(factors)]}]}"#
        let d = try TileServiceDescriptor.parse(Array(json.utf8), from: Self.base)
        #expect(d.levels.count == 10 && d.levels.last?.width == 1 && d.levels.last?.height == 1)
    }

    @Test func oversizedDescriptorsAreRefusedUnread() {
        let big = [UInt8](repeating: UInt8(ascii: " "), count: TileServiceDescriptor.maximumDescriptorBytes + 1)
        #expect(throws: ImageCacheError.self) { try TileServiceDescriptor.parse(big, from: Self.base) }
    }

    private func allURLs(_ d: TileServiceDescriptor) -> [URL] {
        d.levels.indices.flatMap { level in
            (0..<d.levels[level].rows).flatMap { row in (0..<d.levels[level].columns).map { d.tileURL(level: level, column: $0, row: row) }
            }
        }
    }

    private func relative(_ url: URL, to base: URL) -> String {
        String(url.absoluteString.dropFirst(base.absoluteString.count))
    }
}
