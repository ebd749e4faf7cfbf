import FICCore
import FICTestSupport
import Foundation
import Testing
@testable import TiledImage

/// Reading the tiles of a pyramid while it is being built.
@Suite("reading during the build")
struct ReadDuringBuildTests {
    /// `jpeg` with an EXIF APP1 segment declaring `orientation` inserted after its SOI marker.
    private func withOrientation(_ jpeg: [UInt8], _ orientation: UInt8) -> [UInt8] {
        let tiff: [UInt8] = [
            0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8,  // big endian, IFD at 8
            0, 1,  // one entry
            0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, orientation, 0, 0,  // Orientation, SHORT, 1
            0, 0, 0, 0
        ]  // no next IFD
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let length = payload.count + 2
        return [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload + jpeg[2...]
    }

    private func expectNotWrittenYet(_ body: () throws -> Void, _ comment: Comment) {
        do {
            try body()
            Issue.record("the read was not refused: \(comment)")
        } catch let error as ImageCacheError {
            #expect(error.code == .notWrittenYet, comment)
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test(
        "fed chunk by chunk, completed rows of tiles only grow, each tile read mid-build equals the finished one, unwritten rows are refused"
    )
    func tilesReadMidBuildEqualTheFinishedOnes() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let jpeg = try Fixtures.bytes(atPath: Fixtures.makeJPEG(width: 1300, height: 1800, in: folder))
        let builder = try TilePyramidBuilder(destination: .temporary(folder: folder))
        let buffer = try TileBuffer()
        #expect(builder.geometry == nil)
        #expect(builder.completedTileRows.isEmpty)
        expectNotWrittenYet({ try builder.readTile(level: 0, column: 0, row: 0, into: buffer) }, "before the header")

        var seen: [Int] = []
        var midBuild: [TileKey: [UInt8]] = [:]
        var refusals = 0
        var partialSnapshots = 0
        var offset = 0
        while offset < jpeg.count {
            let end = min(jpeg.count, offset + 16 << 10)
            try builder.append(Array(jpeg[offset..<end]))
            offset = end
            let rows = builder.completedTileRows
            guard let geometry = builder.geometry else { continue }
            #expect(rows.count == geometry.levels.count)
            if !seen.isEmpty {
                for level in rows.indices {
                    #expect(rows[level] >= seen[level], "level \(level) went from \(seen[level]) to \(rows[level]) rows")
                }
            }
            seen = rows
            if rows[0] > 0 && rows[0] < geometry.levels[0].rows { partialSnapshots += 1 }
            for (level, info) in geometry.levels.enumerated() {
                #expect(rows[level] <= info.rows)
                for row in 0..<rows[level] {
                    for column in 0..<info.columns where midBuild[TileKey(level: level, column: column, row: row)] == nil {
                        try builder.readTile(level: level, column: column, row: row, into: buffer)
                        midBuild[TileKey(level: level, column: column, row: row)] = buffer.withUnsafeBytes { Array($0) }
                    }
                }
            }
            // The last row of tiles of full resolution completes only when the build is finished.
            let last = geometry.levels[0].rows - 1
            #expect(rows[0] <= last)
            expectNotWrittenYet({ try builder.readTile(level: 0, column: 0, row: last, into: buffer) }, "the last row before finish()")
            refusals += 1
        }
        #expect(partialSnapshots > 0, "some rows of tiles were complete while others were not")
        #expect(refusals > 0)
        let levelZeroMidBuild = midBuild.keys.filter { $0.level == 0 }.count
        #expect(levelZeroMidBuild >= 2 * 6, "full-resolution tiles read during the build: \(levelZeroMidBuild)")

        let pyramid = try builder.finish()
        #expect(builder.completedTileRows == pyramid.geometry.levels.map(\.rows))
        var compared = 0
        for (key, bytes) in midBuild {
            let finished = try pyramid.tile(level: key.level, column: key.column, row: key.row)
            #expect(finished == bytes, "tile \(key) differs from the finished pyramid's")
            compared += 1
        }
        #expect(compared == midBuild.count)
        // After finish() every tile reads through the builder too, equal to the pyramid's.
        try builder.readTile(level: 0, column: 0, row: pyramid.geometry.levels[0].rows - 1, into: buffer)
        #expect(buffer.withUnsafeBytes { Array($0) } == (try pyramid.tile(level: 0, column: 0, row: pyramid.geometry.levels[0].rows - 1)))
    }

    @Test("a cancelled build refuses reads, even of rows written before")
    func cancelledBuildRefusesReads() async throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let jpeg = try Fixtures.bytes(atPath: Fixtures.makeJPEG(width: 1300, height: 1800, in: folder))
        let builder = try TilePyramidBuilder(destination: .temporary(folder: folder))
        let buffer = try TileBuffer()
        // Three quarters of a baseline JPEG: over a thousand rows decoded and handed to the
        // writer, whose first row of tiles (256 rows) is then written however slowly the writer
        // thread runs; the last quarter never comes.
        try append(jpeg[..<(jpeg.count * 3 / 4)], to: builder, chunkSize: 16 << 10)
        try await waitUntil("the first row of tiles is written") { builder.completedTileRows(level: 0) > 0 }
        try builder.readTile(level: 0, column: 0, row: 0, into: buffer)
        builder.cancel()
        #expect(throws: ImageCacheError.self) { try builder.readTile(level: 0, column: 0, row: 0, into: buffer) }
        do {
            try builder.readTile(level: 0, column: 0, row: 0, into: buffer)
        } catch let error as ImageCacheError {
            #expect(error.code == .cancelled)
        }
    }

    @Test(
        "a rotated image (EXIF 6) reports nothing complete until the end, a progressive JPEG nothing before its final scan",
        arguments: ["rotated", "progressive"])
    func rotatedAndProgressiveCompleteOnlyAtTheEnd(_ kind: String) throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let plain = try Fixtures.bytes(atPath: Fixtures.makeJPEG(width: 1300, height: 1800, progressive: kind == "progressive", in: folder))
        let jpeg = kind == "rotated" ? withOrientation(plain, 6) : plain
        let builder = try TilePyramidBuilder(destination: .temporary(folder: folder))
        let buffer = try TileBuffer()
        // The end of the image (or the whole final scan) arrives with finish().
        let held = kind == "rotated" ? jpeg.count - 64 : try #require(JPEGFiles.scanOffsets(jpeg).last)
        try append(jpeg[..<held], to: builder, chunkSize: 16 << 10)
        // No wait is needed: the decoder hands rows to the writer thread in three batches of 256
        // rows and takes a batch back only once the writer has written it, so when `append`
        // returns every row decoded but the last three batches' worth (over a thousand of the
        // rotated image's) has been through the writer, which would have reported it by now.
        let geometry = try #require(builder.geometry)
        if kind == "rotated" { #expect(geometry.width == 1800 && geometry.height == 1300, "the upright size") }
        #expect(builder.completedTileRows == [Int](repeating: 0, count: geometry.levels.count))
        expectNotWrittenYet(
            { try builder.readTile(level: 0, column: 0, row: 0, into: buffer) }, "\(kind): nothing is upright and final yet")
        if kind == "rotated" {
            let upright = try TilePyramidBuilder(destination: .temporary(folder: folder))
            try append(plain[..<held], to: upright, chunkSize: 16 << 10)
            #expect(upright.completedTileRows(level: 0) > 0, "the same rows upright are reported by the time append returns")
            upright.cancel()
        }
        try builder.append(Array(jpeg[held...]))
        let pyramid = try builder.finish()
        #expect(builder.completedTileRows == pyramid.geometry.levels.map(\.rows))
        try builder.readTile(level: 0, column: 0, row: 0, into: buffer)
        #expect(buffer.withUnsafeBytes { Array($0) } == (try pyramid.tile(level: 0, column: 0, row: 0)))
    }
}

/// A tile of a level, as a dictionary key.
private struct TileKey: Hashable, CustomStringConvertible {
    var level: Int
    var column: Int
    var row: Int
    var description: String { "\(level)/\(column),\(row)" }
}
