import FICTestSupport
import FastImageCache
import Foundation
import ImageCodec
import Testing
@testable import ImageLoader

/// Remote tiled images from the tests' nginx, serving trees `vips dzsave` made: tiles are the
/// files' pixels, fetched once, and still there for a new process's cache.
@Suite(
    .enabled(
        if: NginxServer.isRunning || ProcessInfo.processInfo.environment["FIC_REQUIRE_TEST_SERVER"] == "1",
        "nginx is not running: scripts/test-server start"))
struct RemoteTiledImageTests {
    /// A vips tree of a 1000 × 601 photo, published under nginx's root; returns its served name and
    /// the local folder the tiles were written to.
    static func publishTree(_ layout: [String], name: String, server: NginxServer) throws -> String {
        let published = "t-\(UUID().uuidString)"
        let folder = (server.root as NSString).appendingPathComponent(published)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let source = folder + "/source.jpg"
        try ExternalTools.run(
            "/usr/bin/vips",
            [
                "thumbnail", testFile("photos/rocket.jpg").path, source + "[Q=95,strip]", "1000", "--height", "601", "--size", "force",
                "--export-profile", "srgb"
            ])
        try ExternalTools.run("/usr/bin/vips", ["dzsave", source, folder + "/" + name] + layout)
        return published
    }

    /// Every pixel of every tile of the finest two levels equals the decode of vips's file; a new
    /// cache on the same folder (a restart) has them all, and asks the server for none.
    @Test func deepZoomTilesAreTheFilesAndStayForTheNextRun() async throws {
        let server = try #require(NginxServer.shared)
        let published = try Self.publishTree(["--overlap", "1", "--tile-size", "254", "--suffix", ".jpg"], name: "image", server: server)
        defer { server.unpublish(published) }
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let url = server.url(published + "/image.dzi")
        let files = (server.root as NSString).appendingPathComponent(published) + "/image_files"

        let loader = OriginalsLoader(configuration: testLoaderConfiguration(), originals: nil)
        let image = try await RemoteTiledImage.open(url, loader: loader, directory: dir.child("tiles"))
        #expect(image.descriptor.width == 1000 && image.descriptor.height == 601 && image.overlap == 1)
        var fetched: [(Int, Int, Int)] = []
        for level in 0..<2 {
            let grid = image.descriptor.levels[level]
            for row in 0..<grid.rows {
                for column in 0..<grid.columns {
                    let tile = try await image.tile(level: level, column: column, row: row)
                    let number = 10 - level  // Deep Zoom counts from 1 × 1: 1000 px is 10 halvings
                    let reference = try ImageDecoder.decode(contentsOf: files + "/\(number)/\(column)_\(row).jpg")
                    let size = try #require(image.tileSize(level: level, column: column, row: row))
                    #expect(size.width == reference.width && size.height == reference.height, "level \(level) tile (\(column), \(row))")
                    #expect(Self.maximumDifference(tile, reference) <= 1, "level \(level) tile (\(column), \(row))")
                    fetched.append((level, column, row))
                }
            }
        }
        let downloads = loader.statistics.downloads
        #expect(downloads == fetched.count + 1, "one request per tile, and the descriptor")
        // The same tile again: from the table, no request.
        _ = try await image.tile(level: 0, column: 0, row: 0)
        #expect(loader.statistics.downloads == downloads)
        image.close()

        // A new process would open a new cache on the same folder: every tile is there at once.
        let again = OriginalsLoader(configuration: testLoaderConfiguration(), originals: nil)
        let reopened = try await RemoteTiledImage.open(url, loader: again, directory: dir.child("tiles"))
        for (level, column, row) in fetched {
            #expect(reopened.cachedTile(level: level, column: column, row: row) != nil, "level \(level) tile (\(column), \(row))")
        }
        #expect(again.statistics.downloads == 1, "only the descriptor")
        #expect(reopened.cache.statistics.sourceDecodes == 0)
        reopened.close()
    }

    /// A IIIF level-0 tree: the full-resolution tiles are vips's files.
    @Test func iiifTilesAreTheFiles() async throws {
        let server = try #require(NginxServer.shared)
        let published = "t-\(UUID().uuidString)"
        let folder = (server.root as NSString).appendingPathComponent(published)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { server.unpublish(published) }
        let source = folder + "/source.jpg"
        try ExternalTools.run(
            "/usr/bin/vips",
            [
                "thumbnail", testFile("photos/rocket.jpg").path, source + "[Q=95,strip]", "700", "--height", "300", "--size", "force",
                "--export-profile", "srgb"
            ])
        let id = server.url(published).absoluteString
        try ExternalTools.run(
            "/usr/bin/vips", ["dzsave", source, folder + "/iiif", "--layout", "iiif3", "--overlap", "0", "--tile-size", "256", "--id", id])
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let image = try await RemoteTiledImage.open(
            server.url(published + "/iiif/info.json"), loader: OriginalsLoader(configuration: testLoaderConfiguration(), originals: nil),
            directory: dir.child("tiles"))
        let grid = image.descriptor.levels[0]
        for row in 0..<grid.rows {
            for column in 0..<grid.columns {
                let tile = try await image.tile(level: 0, column: column, row: row)
                let relative = String(image.descriptor.tileURL(level: 0, column: column, row: row).absoluteString.dropFirst(id.count))
                let reference = try ImageDecoder.decode(contentsOf: folder + relative)
                #expect(Self.maximumDifference(tile, reference) <= 1, "\(relative)")
            }
        }
        image.close()
    }

    /// A tile outside the grid, and a server answering 404 for a tile, are named errors.
    @Test func missingTilesAreErrors() async throws {
        let server = try #require(NginxServer.shared)
        let published = try Self.publishTree(["--overlap", "0", "--suffix", ".jpg"], name: "image", server: server)
        defer { server.unpublish(published) }
        let dir = TemporaryDirectory(); defer { dir.cleanup() }
        let image = try await RemoteTiledImage.open(
            server.url(published + "/image.dzi"), loader: OriginalsLoader(configuration: testLoaderConfiguration(), originals: nil),
            directory: dir.child("tiles"))
        await #expect(throws: ImageCacheError.self) { try await image.tile(level: 0, column: 99, row: 0) }
        try FileManager.default.removeItem(atPath: (server.root as NSString).appendingPathComponent(published) + "/image_files")
        await #expect(throws: ImageCacheError.self) { try await image.tile(level: 0, column: 0, row: 0) }
        #expect(image.cachedTile(level: 0, column: 0, row: 0) == nil)
        image.close()
    }

    /// The largest difference of a B, G, R or A sample between the tile's top-left pixels and `reference`.
    static func maximumDifference(_ tile: CachedImage, _ reference: DecodedImage) -> Int {
        tile.withUnsafeBytes { bytes in
            var largest = 0
            for y in 0..<reference.height {
                for i in 0..<(reference.width * 4) {
                    let a = Int(bytes[y * tile.bytesPerRow + i])
                    let b = Int((reference.baseAddress + y * reference.bytesPerRow + i).load(as: UInt8.self))
                    largest = max(largest, abs(a - b))
                }
            }
            return largest
        }
    }
}
