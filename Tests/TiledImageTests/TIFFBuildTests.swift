import FICHarness
import FICTestSupport
import Foundation
import ImageCodec
import Testing
@testable import TiledImage

/// Builds whose destination is one pyramidal TIFF: the tiles are compressed while the bytes
/// arrive, the file appears only once complete, and it holds what a build of raw tiles (throwaway) of the same
/// image holds (JPEG within 40 dB of luma, deflate exactly).
@Suite(.serialized)
struct TIFFBuildTests {
    @Test func aJPEGBecomesAJPEGTiledTIFFWhileItsBytesArrive() async throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let source = try Fixtures.makeJPEG(width: 2000, height: 1500, in: folder)
        let bytes = try Fixtures.bytes(atPath: source)
        let path = folder + "/photo.tif"
        let builder = try TilePyramidBuilder(destination: .tiff(path))
        // Two thirds of the bytes: the first rows of tiles are on disk, and compressed into the
        // TIFF before the rest arrives.
        try append(bytes[..<(bytes.count * 2 / 3)], to: builder, chunkSize: 16_384)
        try await waitUntil("tiles are compressed while the bytes arrive") { builder.storedTileCount > 0 }
        #expect(!FileManager.default.fileExists(atPath: path), "the TIFF has no name until it is complete")
        try append(bytes[(bytes.count * 2 / 3)...], to: builder, chunkSize: 16_384)
        let pyramid = try builder.finish()
        #expect(pyramid.path == path && pyramid.sourceFormat == .jpeg && pyramid.statistics != nil)
        #expect(builder.storedTileCount == pyramid.geometry.tileCount)

        let reference = try buildPyramid(bytes, chunkSize: 1 << 20, destination: .temporary(folder: folder))
        #expect(pyramid.geometry == reference.geometry)
        for level in reference.geometry.levels {
            let expected = try Bitmap(level: level.index, of: reference)
            let ours = try Bitmap(level: level.index, of: pyramid)
            let psnr = PyramidTIFFFixtures.lumaPSNR(ours, expected)
            #expect(psnr >= 40, "level \(level.index): \(psnr) dB from the build of raw tiles")
            // vips reads the same pixels from the file (its JPEG decoder, libjpeg, is ours too).
            let vips = try PyramidTIFFFixtures.vipsPage(path, page: level.index, folder: folder)
            #expect(PyramidTIFFFixtures.psnr(vips, ours) >= 50, "level \(level.index) as vips reads it")
        }
        var status = stat()
        #expect(stat(path, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o644 & ~currentUmask(), "a TIFF is made to be read by other tools")
        // Far smaller than the raw tiles: 2000 × 1500 is 3.2 MiB of BGRA at full resolution alone.
        #expect(Int(status.st_size) < reference.geometry.byteCount / 4)
        let reopened = try TilePyramid.open(at: path)
        #expect(try reopened.tile(level: 0, column: 3, row: 2) == pyramid.tile(level: 0, column: 3, row: 2))
    }

    /// Once the pyramid and its builder are released, no descriptor of the build is left: not the
    /// TIFF's (which would keep a lock a store took on it), not the unnamed level files' (whose
    /// disk would stay taken until the process ends).
    @Test func aFinishedBuildKeepsNoDescriptor() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let source = try Fixtures.makeJPEG(width: 900, height: 700, in: folder)
        func openInFolder() -> [String] {
            let links = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            return links.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0) }
                .filter { $0.hasPrefix(folder + "/") }
        }
        do {
            let pyramid = try TilePyramidBuilder.build(contentsOf: source, destination: .tiff(folder + "/p.tif"))
            #expect(try pyramid.tile(level: 0, column: 0, row: 0).count == PyramidGeometry.tileBytes)
            // (Its descriptor is the one the TIFF was written through, unnamed when opened.)
            #expect(openInFolder().count == 1, "the pyramid reads its file alone: \(openInFolder())")
        }
        #expect(openInFolder().isEmpty, "left open: \(openInFolder())")
    }

    @Test func anImageWithAlphaIsStoredLosslessly() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let reference = try PyramidTIFFFixtures.source(width: 700, height: 530, alpha: true, in: folder)
        let path = folder + "/alpha.tif"
        let pyramid = try TilePyramidBuilder.build(contentsOf: folder + "/700x530a.png", destination: .tiff(path))
        #expect(pyramid.hasAlpha)
        let reader = try PyramidTIFFReader(source: PyramidTIFFFileSource(path: path))
        #expect(reader.levels.allSatisfy { $0.compression == TIFFTag.Compression.adobeDeflate && $0.hasAlpha })
        #expect(try PyramidTIFFFixtures.tiles(of: pyramid) == PyramidTIFFFixtures.tiles(of: reference))
    }

    @Test func rawAndDeflateTilesAreTheFolderBuildsExactly() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let bytes = try Fixtures.bytes("photos/coffee.jpg")
        let reference = try buildPyramid(bytes, chunkSize: 1 << 20, destination: .temporary(folder: folder))
        for compression in [PyramidTIFFCompression.none, .deflate] {
            let pyramid = try buildPyramid(bytes, chunkSize: 4096, destination: .tiff(folder + "/coffee.tif", compression: compression))
            #expect(try PyramidTIFFFixtures.tiles(of: pyramid) == PyramidTIFFFixtures.tiles(of: reference), "\(compression)")
        }
    }

    @Test func anUprightedImageIsStoredUpright() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let name = "jpeg/orientation/chelsea-orientation-6.jpg"
        let pyramid = try TilePyramidBuilder.build(contentsOf: Fixtures.path(name), destination: .tiff(folder + "/six.tif"))
        let expected = try Bitmap(decoding: Fixtures.bytes(name))
        let top = try Bitmap(level: 0, of: pyramid)
        #expect(top.width == expected.width && top.height == expected.height)
        #expect(PyramidTIFFFixtures.lumaPSNR(top, expected) >= 40)
    }

    /// A build that fails or is cancelled leaves the folder as it was: a file already at the
    /// path keeps its bytes, and no hidden or half-written file remains.
    @Test func aFailedBuildLeavesTheFolderAsItWas() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let source = try Fixtures.makeJPEG(width: 1200, height: 900, in: folder)
        let bytes = try Fixtures.bytes(atPath: source)
        let path = folder + "/photo.tif"
        let before = Array("an earlier file, not the package's".utf8)
        try Data(before).write(to: URL(fileURLWithPath: path))
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()

        let truncated = try TilePyramidBuilder(destination: .tiff(path))
        try append(bytes[..<(bytes.count / 2)], to: truncated, chunkSize: 8192)
        #expect(throws: ImageCacheError.self) { try truncated.finish() }

        let cancelled = try TilePyramidBuilder(destination: .tiff(path))
        try append(bytes[..<(bytes.count * 3 / 4)], to: cancelled, chunkSize: 8192)
        cancelled.cancel()
        #expect(throws: ImageCacheError.self) { try cancelled.finish() }

        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == names)
        #expect(try Fixtures.bytes(atPath: path) == before)
    }

    /// A link planted at the TIFF's path is replaced, never written through: the file it names
    /// keeps its bytes.
    @Test func aLinkAtThePathIsReplacedNotFollowed() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let elsewhere = folder + "/elsewhere.bin"
        let before = Array("someone else's file".utf8)
        try Data(before).write(to: URL(fileURLWithPath: elsewhere))
        let path = folder + "/photo.tif"
        #expect(symlink(elsewhere, path) == 0)
        _ = try TilePyramidBuilder.build(contentsOf: Fixtures.path("photos/chelsea.jpg"), destination: .tiff(path))
        #expect(try Fixtures.bytes(atPath: elsewhere) == before)
        var status = stat()
        #expect(lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG)
        #expect(try TilePyramid.open(at: path).geometry.width == 451)
    }

    @Test func jpegTilesForAnImageWithAlphaAreRefusedWithAReason() throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        _ = try PyramidTIFFFixtures.source(width: 300, height: 200, alpha: true, in: folder)
        let error = #expect(throws: ImageCacheError.self) {
            try TilePyramidBuilder.build(contentsOf: folder + "/300x200a.png", destination: .tiff(folder + "/a.tif", compression: .jpeg))
        }
        #expect(error?.message.contains("no alpha") == true)
        #expect(!FileManager.default.fileExists(atPath: folder + "/a.tif"))
    }

    /// The process's umask, from `/proc` (setting it to read it would race other tests' files).
    private func currentUmask() -> mode_t {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("Umask:") }
        return line.flatMap { mode_t($0.dropFirst(6).trimmingCharacters(in: .whitespaces), radix: 8) } ?? 0o022
    }
}
