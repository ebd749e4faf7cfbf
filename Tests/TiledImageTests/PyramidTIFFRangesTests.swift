import FICCore
import FICTestSupport
import Foundation
import Testing
@testable import TiledImage

/// The IFDs of a pyramidal TIFF read by ranges (from memory here; ImageLoader's
/// `RemotePyramidTIFF` fetches them over HTTP): the same levels as the whole file gives, in few
/// ranges; hostile files (IFDs that loop or point past the end, absurd counts,
/// bytes flipped anywhere in the header) are errors, never a crash, never more than the header's
/// bound fetched.
@Suite struct PyramidTIFFRangesTests {
    /// A vips pyramid of the rocket (128-pixel tiles, its IFDs spread through the file).
    static func vipsPyramid() throws -> [UInt8] {
        let folder = try ExternalTools.makeFolder("pyramid-tiff-ranges")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try ExternalTools.run(
            "/usr/bin/vips",
            ["tiffsave", Fixtures.path("photos/rocket.jpg"), folder + "/p.tif", "--tile", "--pyramid", "--compression", "jpeg"])
        return Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/p.tif")))
    }

    /// Reads the header of `bytes` through ranges, counting them.
    static func header(_ bytes: [UInt8]) async throws -> (PyramidTIFFReader, fetches: Int, fetched: Int) {
        var first = PyramidTIFFRanges(size: bytes.count)
        first.add(offset: 0, bytes: Array(bytes.prefix(PyramidTIFFRanges.windowBytes)))
        let counter = LockedBox((fetches: 0, bytes: 0))
        let reader = try await PyramidTIFFReader.read(first) { offset, count in
            counter.withLockedValue {
                $0.fetches += 1
                $0.bytes += count
            }
            return Array(bytes[offset..<(offset + count)])
        }
        let (fetches, fetched) = counter.withLockedValue { ($0.fetches, $0.bytes) }
        return (reader, fetches, fetched)
    }

    @Test func theLevelsAreTheWholeFilesInFewRanges() async throws {
        let bytes = try Self.vipsPyramid()
        let whole = try PyramidTIFFReader(source: PyramidTIFFMemorySource(bytes))
        let (reader, fetches, _) = try await Self.header(bytes)
        #expect(reader.levels.count == whole.levels.count && reader.levels.count >= 3)
        for (a, b) in zip(reader.levels, whole.levels) {
            #expect(a.width == b.width && a.height == b.height && a.tileOffsets == b.tileOffsets && a.tileByteCounts == b.tileByteCounts)
        }
        #expect(fetches <= whole.levels.count, "\(fetches) ranges beyond the first for \(whole.levels.count) IFDs")
    }

    @Test func hostileHeadersAreErrorsWithinTheBound() async throws {
        let bytes = try Self.vipsPyramid()
        let whole = try PyramidTIFFReader(source: PyramidTIFFMemorySource(bytes))
        // The first IFD's offset pointing past the end, and at the header itself (a loop).
        for offset in [UInt32(bytes.count + 8), 0, 8] {
            var hostile = bytes
            withUnsafeBytes(of: offset.littleEndian) { hostile.replaceSubrange(4..<8, with: $0) }
            await #expect(throws: ImageCacheError.self) { _ = try await Self.header(hostile) }
        }
        // Bytes flipped in the IFDs and the header, from a seed printed for a replay.
        let seed = UInt64(ProcessInfo.processInfo.environment["FIC_FUZZ_SEED"] ?? "") ?? UInt64.random(in: 1...UInt64.max)
        print("PyramidTIFFRangesTests seed \(seed) (FIC_FUZZ_SEED=\(seed) replays it)")
        var state = seed
        func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
        let targets = [0..<64] + whole.levels.map { $0.directoryOffset..<min(bytes.count, $0.directoryOffset + 256) }
        var errors = 0
        for _ in 0..<400 {
            var hostile = bytes
            for _ in 0..<(1 + Int(next() % 4)) {
                let range = targets[Int(next() % UInt64(targets.count))]
                hostile[range.lowerBound + Int(next() % UInt64(range.count))] = UInt8(truncatingIfNeeded: next())
            }
            do {
                let (_, _, fetched) = try await Self.header(hostile)
                #expect(fetched <= PyramidTIFFRanges.maximumBytes)
            } catch is ImageCacheError {
                errors += 1
            }
        }
        print("PyramidTIFFRangesTests: \(errors) of 400 mutated headers refused, the others read")
    }
}
