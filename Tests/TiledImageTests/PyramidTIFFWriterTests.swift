import FICTestSupport
import Foundation
import ImageCodec
import Testing
@testable import TiledImage

/// Pyramidal TIFFs written from pyramids of awkward sizes, with and without alpha, in each
/// compression: libtiff's tools read them without a word, vips reads every level as the source
/// tiles (exactly, or at 40 dB for JPEG), and the reader finds every tile where it was written.
@Suite struct PyramidTIFFWriterTests {
    typealias F = PyramidTIFFFixtures

    static func compressions(alpha: Bool) -> [PyramidTIFFCompression] {
        alpha ? [.deflate, .none] : [.jpeg, .deflate, .none]
    }

    @Test(arguments: [(1, 1), (257, 255), (1300, 900)], [false, true])
    func writtenPyramidsAreReadByLibtiffVipsAndTheReader(size: (Int, Int), alpha: Bool) throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let pyramid = try F.source(width: size.0, height: size.1, alpha: alpha, in: folder)
        let tiles = try F.tiles(of: pyramid)
        for compression in Self.compressions(alpha: alpha) {
            let path = folder + "/compression-\(compression.tagValue).tif"
            let layout = try F.write(tiles, geometry: pyramid.geometry, hasAlpha: alpha, compression: compression, to: path)
            #expect(!layout.isBigTIFF)
            let label = "\(size.0)×\(size.1)\(alpha ? " alpha" : "") \(compression)"

            // libtiff's tools: nothing on standard error, or in what they print, that is a
            // warning or an error; tiff2rgba decodes every tile of every level through libtiff's
            // codecs (its JPEG codec checks the tiles' sampling factors against the tags).
            // `tiffinfo -D` cannot print YCbCr tiles with subsampling, and says so for vips's
            // own JPEG pyramids too: that line is not about the file.
            let notAboutTheFile = "Cannot display data: th * rowsize > tilesize"
            for (tool, arguments) in [
                ("/usr/bin/tiffinfo", ["-D", path]), ("/usr/bin/tiffdump", [path]), ("/usr/bin/tiff2rgba", [path, folder + "/rgba.tif"])
            ] {
                let said = try F.output(of: tool, arguments, folder: folder).replacingOccurrences(of: notAboutTheFile, with: "")
                #expect(
                    !said.lowercased().contains("warning") && !said.lowercased().contains("error") && !said.contains("Cannot")
                        && !said.contains("exit status"),
                    "\(label): \(tool) said \(said)")
            }

            // The reader: the layout's levels, every tile where it was appended, the header region first.
            let reader = try PyramidTIFFReader(path: path)
            #expect(reader.levels.count == pyramid.geometry.levels.count, "\(label)")
            let firstTile = reader.levels.flatMap(\.tileOffsets).min()!
            #expect(firstTile == layout.header.count, "\(label): the first tile follows the header region")
            for (level, info) in zip(pyramid.geometry.levels, reader.levels) {
                #expect(info.width == level.width && info.height == level.height && info.tileWidth == 256 && info.tileHeight == 256)
                #expect(info.directoryOffset < firstTile && info.samplesPerPixel == (alpha ? 4 : 3))
                #expect(info.hasAlpha == alpha && info.compression == compression.tagValue && info.jpegTables == nil)
                var decoded: [[UInt8]] = []
                for index in 0..<level.tileCount {
                    let (column, row) = (index % level.columns, index / level.columns)
                    let stored = try reader.tileBytes(level: level.index, column: column, row: row)
                    let expected = try tiles[level.index][index].withUnsafeBytes {
                        try PyramidTIFFTileEncoder.encode(
                            $0, valid: level.validSize(column: column, row: row), compression: compression, hasAlpha: alpha)
                    }
                    #expect(stored == expected, "\(label): tile \(index) of level \(level.index) as written")
                    decoded.append(try reader.decodeTile(level: level.index, column: column, row: row))
                }
                let source = F.bitmap(tiles, level: level),
                    ours = F.bitmap(tiles.replacing(level: level.index, with: decoded), level: level)
                let theirs = try F.vipsPage(path, page: level.index, folder: folder)
                if compression.isJPEG {
                    // 4:2:0 halves the chroma: the luma is held to 40 dB, the colour samples to 30.
                    let (a, b) = (F.lumaPSNR(ours, source), F.lumaPSNR(theirs, source))
                    let (c, d) = (F.psnr(ours, source), F.psnr(theirs, source))
                    print("\(label) level \(level.index): PSNR Y \(a) dB, RGB \(c) dB decoded here; Y \(b) dB, RGB \(d) dB by vips")
                    #expect(a >= 40 && b >= 40 && c >= 30 && d >= 30, "\(label) level \(level.index): PSNR Y \(a), \(b), RGB \(c), \(d)")
                } else {
                    #expect(ours == source, "\(label) level \(level.index) decoded here")
                    // vips hands alpha over unpremultiplied; premultiplied again it may differ by one.
                    #expect(theirs.maximumDifference(to: source) <= (alpha ? 1 : 0), "\(label) level \(level.index) read by vips")
                }
            }
        }
    }
}

extension Array where Element == [[UInt8]] {
    /// A copy with level `level`'s tiles replaced.
    func replacing(level: Int, with tiles: [[UInt8]]) -> [[[UInt8]]] {
        var copy = self
        copy[level] = tiles
        return copy
    }
}
