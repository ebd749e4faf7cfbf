import FICTestSupport
import Foundation
import ImageCodec
import Testing
@testable import TiledImage

/// A progressive JPEG's rows come out while its final scan is read, not after the whole file; a
/// file that sends a scan after the final one is refused rather than tiled wrongly.
@Suite struct ProgressiveOverlapTests {
    @Test(arguments: [0, 64 << 20])
    func rowsComeOutDuringTheFinalScan(coefficientMemoryBudget: Int) async throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let bytes = try Fixtures.bytes(atPath: Fixtures.makeJPEG(width: 1300, height: 2100, progressive: true, in: folder))
        let scans = JPEGFiles.scanOffsets(bytes)
        #expect(scans.count >= 8, "a progressive JPEG of several scans (\(scans.count))")
        let final = try #require(scans.last)
        // Everything but the second half of the final scan.
        let withheld = final + (bytes.count - final) / 2
        let options = TilePyramidOptions(coefficientMemoryBudget: coefficientMemoryBudget, residentCoefficientLimit: 1 << 20)
        let builder = try TilePyramidBuilder(destination: .temporary(folder: folder), options: options)
        try append(bytes[..<withheld], to: builder, chunkSize: 16 << 10)
        try await waitUntil("rows of tiles are complete before the final scan has arrived") {
            (builder.completedTileRows.first ?? 0) > 0
        }
        let rows = try #require(builder.geometry?.levels.first?.rows)
        #expect((builder.completedTileRows.first ?? 0) < rows, "the rows the final scan has not reached wait for it")
        try builder.append(Array(bytes[withheld...]))
        let pyramid = try builder.finish()
        if coefficientMemoryBudget == 0 {
            let statistics = try #require(pyramid.statistics)
            #expect(statistics.coefficientFileBytes > 0)
        }
        try expectPyramid(pyramid, matches: Bitmap(decoding: bytes))
    }

    @Test func aScanAfterTheFinalOneIsRefused() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let bytes = try Fixtures.bytes(atPath: Fixtures.makeJPEG(width: 700, height: 500, progressive: true, in: folder))
        let final = try #require(JPEGFiles.scanOffsets(bytes).last)
        #expect(Array(bytes.suffix(2)) == [0xFF, 0xD9])
        // The final scan twice: the second refines coefficients that were already complete.
        let doubled = Array(bytes[..<(bytes.count - 2)]) + Array(bytes[final..<(bytes.count - 2)]) + [0xFF, 0xD9]
        let error = try #require(throws: ImageCacheError.self) {
            _ = try buildPyramid(doubled, chunkSize: 4096, destination: rawTIFF(folder + "/p.tif"))
        }
        #expect(error.code == .corruptData)
        #expect(error.message.contains("already completed every coefficient"), "\(error.message)")
        expectNoPyramid(folder + "/p.tif")
        // The file as it was is fine.
        try expectPyramid(
            try buildPyramid(bytes, chunkSize: 4096, destination: .temporary(folder: folder)), matches: Bitmap(decoding: bytes))
    }

    /// Cut inside the final scan, when rows have already been tiled: still an error, and no pyramid.
    @Test func truncatedInTheFinalScanFails() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let bytes = try Fixtures.bytes(atPath: Fixtures.makeJPEG(width: 900, height: 1400, progressive: true, in: folder))
        let final = try #require(JPEGFiles.scanOffsets(bytes).last)
        let cut = final + (bytes.count - final) * 3 / 4
        let error = try #require(throws: ImageCacheError.self) {
            _ = try buildPyramid(
                Array(bytes[..<cut]), chunkSize: 50_000, destination: rawTIFF(folder + "/p.tif"),
                options: TilePyramidOptions(coefficientMemoryBudget: 0))
        }
        #expect(error.code == .truncated)
        expectNoPyramid(folder + "/p.tif")
    }
}
