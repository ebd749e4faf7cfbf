import FICTestSupport
import Foundation
import ImageCodec
import Testing
@testable import TiledImage

/// The reader on pyramidal TIFFs made by vips (abbreviated JPEG tiles with JPEGTables, deflate
/// with prediction, BigTIFF) and by libtiff's tiffcp (big-endian, BigTIFF): every level vips
/// sees, decoded to the same pixels.
@Suite struct PyramidTIFFReaderTests {
    typealias F = PyramidTIFFFixtures

    @Test(arguments: [
        ("jpeg", ["--compression", "jpeg"]), ("deflate", ["--compression", "deflate"]), ("none", ["--compression", "none"]),
        ("deflate-bigtiff", ["--compression", "deflate", "--bigtiff"])
    ])
    func vipsPyramidsAreRead(name: String, options: [String]) throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let path = folder + "/\(name).tif"
        try ExternalTools.run(
            F.vips,
            ["tiffsave", Fixtures.path("photos/retina.jpg"), path, "--tile", "--tile-width", "256", "--tile-height", "256", "--pyramid"]
                + options)
        try expectReadLikeVips(path, jpeg: name == "jpeg", folder: folder)
        let reader = try PyramidTIFFReader(path: path)
        #expect(reader.isBigTIFF == name.hasSuffix("bigtiff") && reader.isLittleEndian)
        #expect((reader.levels[0].jpegTables != nil) == (name == "jpeg"))
    }

    /// libtiff's tiffcp rewrites a vips pyramid big-endian, and as BigTIFF.
    @Test(arguments: [["-B"], ["-B", "-8"], ["-8"]])
    func tiffcpCopiesAreRead(options: [String]) throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        try ExternalTools.run(
            F.vips,
            [
                "tiffsave", Fixtures.path("photos/hubble.jpg"), folder + "/v.tif", "--tile", "--tile-width", "256", "--tile-height", "256",
                "--pyramid", "--compression", "deflate"
            ])
        try ExternalTools.run("/usr/bin/tiffcp", options + [folder + "/v.tif", folder + "/c.tif"])
        let reader = try PyramidTIFFReader(path: folder + "/c.tif")
        #expect(reader.isLittleEndian == !options.contains("-B") && reader.isBigTIFF == options.contains("-8"))
        try expectReadLikeVips(folder + "/c.tif", jpeg: false, folder: folder)
    }

    /// Every level vips finds, decoded here as vips decodes it.
    func expectReadLikeVips(_ path: String, jpeg: Bool, folder: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let reader = try PyramidTIFFReader(path: path)
        #expect(reader.levels.count == (try F.vipsPageCount(path, folder: folder)), sourceLocation: sourceLocation)
        for level in reader.levels.indices {
            let ours = try F.decodedLevel(reader, level: level), theirs = try F.vipsPage(path, page: level, folder: folder)
            #expect(ours.width == theirs.width && ours.height == theirs.height, sourceLocation: sourceLocation)
            if jpeg {
                let psnr = F.psnr(ours, theirs)
                print("\(path) level \(level): PSNR \(psnr) dB against vips' decode")
                #expect(psnr >= 45, "level \(level)", sourceLocation: sourceLocation)
            } else {
                #expect(ours == theirs, "level \(level)", sourceLocation: sourceLocation)
            }
        }
    }
}

/// A byte source that counts its reads.
final class CountingSource: PyramidTIFFByteSource, @unchecked Sendable {
    let inner: PyramidTIFFMemorySource
    private(set) var reads: [(offset: Int, count: Int)] = []
    init(_ bytes: [UInt8]) { inner = PyramidTIFFMemorySource(bytes) }
    var size: Int { inner.size }
    func read(offset: Int, count: Int) throws -> [UInt8] {
        reads.append((offset, count))
        return try inner.read(offset: offset, count: count)
    }
}

extension PyramidTIFFReaderTests {
    /// The reader of a file this package writes finds every tile in its first read (64 KiB),
    /// or in one more when the arrays pass it (a 20000² pyramid has 8,000 tiles).
    @Test func ourFilesNeedOnlyTheFirstBytes() throws {
        let small = CountingSource(
            try PyramidTIFFLayout(geometry: PyramidGeometry(width: 3000, height: 2000), compression: .jpeg, hasAlpha: false).header)
        _ = try PyramidTIFFReader(source: small)
        #expect(small.reads.count == 1)
        let layout = try PyramidTIFFLayout(geometry: PyramidGeometry(width: 20_000, height: 20_000), compression: .jpeg, hasAlpha: false)
        #expect(layout.header.count > 64 << 10)
        let large = CountingSource(layout.header)
        _ = try PyramidTIFFReader(source: large)
        #expect(large.reads.count == 2, "\(large.reads)")
    }
}
