#if Tool
import FICCommandLine
import ArgumentParser
import Foundation
import TiledImage

/// `fic tile-get PYRAMID --level L --column C --row R --out FILE.png`: one tile of a tiled
/// pyramidal TIFF (made by `fic tile`, vips or any other tool).
struct TileGetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tile-get",
        abstract: "Write one tile of a pyramid (made by `fic tile`, or a tiled pyramidal TIFF) as a PNG (level 0 is full resolution).",
        discussion:
            "Edge tiles are written at their real size, without padding. Exit status: 0 when written, 1 when the pyramid or tile cannot be read, 2 on usage errors."
    )

    @Argument(help: ArgumentHelp("A tiled pyramidal TIFF file.", valueName: "pyramid"))
    var directory: String

    @Option(help: "The zoom level: 0 is full resolution, each next level half the size.")
    var level: Int = 0

    @Option(help: "The tile's column, from 0 at the left.")
    var column: Int

    @Option(help: "The tile's row, from 0 at the top.")
    var row: Int

    @Option(name: .long, help: ArgumentHelp("The PNG file to write.", valueName: "file.png"))
    var out: String

    func run() throws {
        let pyramid: TilePyramid
        let tile: [UInt8]
        do {
            pyramid = try TilePyramid.open(at: Paths.absolute(directory))
            tile = try pyramid.tile(level: level, column: column, row: row)
        } catch {
            throw CLIError("cannot read the tile: \(error)")
        }
        let size = pyramid.geometry.levels[level].validSize(column: column, row: row)
        do {
            try tile.withUnsafeBytes { raw in
                try PNGEncoder.write(
                    pixels: raw.baseAddress!, width: size.width, height: size.height,
                    bytesPerRow: PyramidGeometry.tileRowStride, format: pyramid.hasAlpha ? .bgra32Premultiplied : .bgrx32,
                    to: Paths.absolute(out))
            }
        } catch {
            throw CLIError("cannot write \(out): \(error)")
        }
        print("wrote \(out): tile (\(column), \(row)) of level \(level), \(size.width)×\(size.height) px")
    }
}
#endif
