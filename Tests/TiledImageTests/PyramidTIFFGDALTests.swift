import FICTestSupport
import Foundation
import ImageCodec
import Testing
@testable import TiledImage

/// The package's pyramidal TIFFs as GDAL reads them (Debian's gdal-bin and python3-gdal):
/// `gdalinfo` finds the full image and each reduced level as an overview, without a warning or
/// an error. GDAL's cloud-optimised GeoTIFF validator finds every IFD before the tile data (what
/// a reader by ranges needs); what it still objects to is the order of the tiles themselves: a
/// COG stores the smallest overview's tiles first, while a pyramid built as the bytes arrive
/// writes tiles in the order they are finished (full resolution first).
@Suite struct PyramidTIFFGDALTests {
    typealias F = PyramidTIFFFixtures

    @Test(arguments: [PyramidTIFFCompression.jpeg, .deflate, .none])
    func gdalReadsThePackagesPyramids(compression: PyramidTIFFCompression) throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let pyramid = try F.source(width: 1500, height: 1100, alpha: compression == .deflate, in: folder)
        let path = folder + "/pyramid.tif"
        try F.write(try F.tiles(of: pyramid), geometry: pyramid.geometry, hasAlpha: pyramid.hasAlpha, compression: compression, to: path)
        let info = try F.output(of: "/usr/bin/gdalinfo", [path], folder: folder)
        #expect(!info.contains("Warning") && !info.contains("ERROR") && !info.contains("exit status"), "\(info)")
        #expect(info.contains("Size is 1500, 1100") && info.contains("Block=256x256"), "\(info)")
        let bands = compression == .deflate ? 4 : 3
        #expect(info.components(separatedBy: "Overviews: 750x550, 375x275, 188x138").count - 1 == bands, "\(info)")
        let named = compression == .jpeg ? "COMPRESSION=YCbCr JPEG" : compression == .deflate ? "COMPRESSION=DEFLATE" : nil
        #expect(named.map(info.contains) ?? !info.contains("COMPRESSION="), "\(info)")
        #expect(info.contains("ColorInterp=Alpha") == (compression == .deflate), "\(info)")

        let check = try F.output(
            of: "/usr/bin/python3", ["-m", "osgeo_utils.samples.validate_cloud_optimized_geotiff", "--full-check=yes", path],
            folder: folder)
        let objections = check.split(separator: "\n").filter { $0.hasPrefix(" - ") }
        #expect(!objections.isEmpty && objections.allSatisfy { $0.contains("offset of the first block") }, "\(check)")
    }
}
