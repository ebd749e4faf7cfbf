#if Tool
import FICCommandLine
import Foundation
import TiledImage

/// A pyramidal TIFF on disk for the viewer: its tiles decoded once into its table in the cache
/// folder (``TilePyramid/tileTable(directory:maximumTiles:logger:)``), where a region seen before,
/// in this run or the next, is shown without decoding.
final class PyramidTableSource: TableTileSource {
    let pyramid: TilePyramid
    let tiles: TileTable
    let name: String

    /// Opens the table of `pyramid` (named `name`) in `cacheFolder` (created if missing); each
    /// tile read is followed by a pause of `readDelayMilliseconds` (0 but in tests).
    ///
    /// - Throws: ``CLIError`` naming the folder and why.
    init(pyramid: TilePyramid, name: String, cacheFolder: String, readDelayMilliseconds: Int) throws {
        do {
            try FileManager.default.createDirectory(atPath: cacheFolder, withIntermediateDirectories: true)
            tiles = try pyramid.tileTable(
                directory: cacheFolder, logger: CacheOpener.quietLogger,
                readDelay: .milliseconds(min(max(0, readDelayMilliseconds), 10_000)))
        } catch {
            throw CLIError("cannot open the table of \(name)'s tiles in \(cacheFolder): \(error)")
        }
        self.pyramid = pyramid
        self.name = name
    }

    /// A tile is decoded as it is read: one read, one decode.
    var overlayFigures: String { "decoded \(tiles.cache.statistics.sourceFetches)" }
    var statistics: [String: StatValue] { [:] }

    func close() {
        tiles.close()
    }
}
#endif
