import FICTestSupport
import FastImageCache
import Foundation
import ImageCodec
import Testing
import TiledImage
@testable import ImageLoader

/// Pyramidal TIFFs read over HTTP by ranges from the tests' nginx: the header and IFDs in a few
/// ranges, then one range per tile asked for, each tile the file's own decode; a new table on the
/// same folder (a restart) has them without a request. Servers that ignore `Range`, files that are
/// not tiled pyramids: errors, never a download of the whole file.
@Suite(
    .enabled(
        if: NginxServer.isRunning || ProcessInfo.processInfo.environment["FIC_REQUIRE_TEST_SERVER"] == "1",
        "nginx is not running: scripts/test-server start"))
struct RemotePyramidTIFFTests {
    /// Publishes `make(path)`'s TIFF under nginx's root; returns the published folder and the file.
    static func publish(_ make: (String) throws -> Void, server: NginxServer) throws -> (folder: String, path: String) {
        let folder = "t-\(UUID().uuidString)"
        let local = (server.root as NSString).appendingPathComponent(folder)
        try FileManager.default.createDirectory(atPath: local, withIntermediateDirectories: true)
        let path = local + "/image.tif"
        try make(path)
        return (folder, path)
    }

    /// Every tile of the coarser levels and a row of full resolution, fetched by range, equals the
    /// file's own decode; the requests are the header's ranges and one a tile.
    @Test(arguments: ["fic", "vips"])
    func tilesAreTheFilesTilesFetchedByRange(_ maker: String) async throws {
        let server = try #require(NginxServer.shared)
        let (folder, path) = try Self.publish(
            { path in
                if maker == "fic" {
                    _ = try TilePyramidBuilder.build(contentsOf: testFile("photos/retina.jpg").path, destination: .tiff(path))
                } else {
                    try ExternalTools.run(
                        "/usr/bin/vips",
                        ["tiffsave", testFile("photos/retina.jpg").path, path, "--tile", "--pyramid", "--compression", "jpeg"])
                }
            }, server: server)
        defer { server.unpublish(folder) }
        let dir = TemporaryDirectory()
        defer { dir.cleanup() }
        let url = server.url(folder + "/image.tif")
        let local = try PyramidTIFFReader(path: path)
        let loader = OriginalsLoader(configuration: testLoaderConfiguration(), originals: nil)
        let remote = try await RemotePyramidTIFF.open(url, loader: loader, directory: dir.child("tiles"))
        let headerRequests = loader.statistics.downloads, headerBytes = loader.statistics.bytesDownloaded
        let fileBytes = try Data(contentsOf: URL(fileURLWithPath: path)).count
        #expect(remote.levels.count == local.levels.count && remote.size == fileBytes)
        #expect(headerRequests >= 1 && headerRequests <= (maker == "fic" ? 1 : local.levels.count + 1), "\(headerRequests) header ranges")
        var asked: [(Int, Int, Int)] = []
        for level in local.levels.indices {
            let info = local.levels[level]
            for index in 0..<(level == 0 ? info.columns : info.columns * info.rows) {
                let (column, row) = (index % info.columns, index / info.columns)
                let tile = try await remote.tiles.tile(level: level, column: column, row: row)
                let expected = try local.decodeTile(level: level, column: column, row: row)
                let (width, height) = (
                    min(info.tileWidth, info.width - column * info.tileWidth), min(info.tileHeight, info.height - row * info.tileHeight)
                )
                let same = tile.withUnsafeBytes { raw in
                    (0..<height).allSatisfy { y in
                        raw[(y * tile.bytesPerRow)..<(y * tile.bytesPerRow + width * 4)].elementsEqual(
                            expected[(y * info.tileWidth * 4)..<(y * info.tileWidth * 4 + width * 4)])
                    }
                }
                #expect(same, "\(maker): level \(level) tile \(column),\(row)")
                asked.append((level, column, row))
            }
        }
        #expect(loader.statistics.downloads == headerRequests + asked.count, "one range a tile")
        let tileBytes = asked.reduce(0) { sum, tile in
            let info = local.levels[tile.0]
            return sum + info.tileByteCounts[tile.2 * info.columns + tile.1]
        }
        #expect(loader.statistics.bytesDownloaded == headerBytes + tileBytes, "each tile's range is its stored bytes, no more")
        remote.close()

        // A restart: the tiles are in the table; only the header is asked for again.
        let again = OriginalsLoader(configuration: testLoaderConfiguration(), originals: nil)
        let reopened = try await RemotePyramidTIFF.open(url, loader: again, directory: dir.child("tiles"))
        for (level, column, row) in asked {
            #expect(reopened.tiles.cachedTile(level: level, column: column, row: row) != nil, "level \(level) tile \(column),\(row)")
        }
        #expect(again.statistics.downloads == headerRequests)
        reopened.close()
    }

    @Test func aServerThatIgnoresRangeAndFilesThatAreNotPyramidsAreRefused() async throws {
        let server = try #require(NginxServer.shared)
        let dir = TemporaryDirectory()
        defer { dir.cleanup() }
        // A terabyte answered 200 to a Range request: refused at its head, its body never read on.
        let faults = try await FaultServer.start()
        let loader = OriginalsLoader(configuration: testLoaderConfiguration(), originals: nil)
        await #expect {
            _ = try await RemotePyramidTIFF.open(faults.url("/huge/1000000000000"), loader: loader, directory: dir.child("tiles"))
        } throws: { error in
            (error as? ImageCacheError)?.code == .network && "\(error)".contains("ignores Range")
        }
        #expect(loader.statistics.bytesDownloaded == 0)
        await faults.stop()

        // A JPEG, and a TIFF of strips: not tiled pyramids.
        let (folder, path) = try Self.publish(
            { try FileManager.default.copyItem(atPath: testFile("photos/chelsea.jpg").path, toPath: $0) }, server: server)
        defer { server.unpublish(folder) }
        await #expect(throws: ImageCacheError.self) {
            _ = try await RemotePyramidTIFF.open(server.url(folder + "/image.tif"), loader: loader, directory: dir.child("tiles"))
        }
        try FileManager.default.removeItem(atPath: path)
        try ExternalTools.run("/usr/bin/vips", ["tiffsave", testFile("photos/chelsea.jpg").path, path])
        await #expect(throws: ImageCacheError.self) {
            _ = try await RemotePyramidTIFF.open(server.url(folder + "/image.tif"), loader: loader, directory: dir.child("tiles"))
        }
        #expect(loader.statistics.bytesDownloaded < 200_000, "\(loader.statistics.bytesDownloaded) bytes: the headers only")
    }
}
