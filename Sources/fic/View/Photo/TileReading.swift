#if Tool
import TiledImage

/// Where the viewer's tiles come from: a finished pyramid, or a builder still at work, whose
/// unwritten rows of tiles are refused with `.notWrittenYet` (asked again once more are written).
protocol TileReading: Sendable {
    /// Reads tile (`column`, `row`) of `level` into `buffer`.
    func readTile(level: Int, column: Int, row: Int, into buffer: TileBuffer) throws
}

extension TilePyramid: TileReading {}
extension TilePyramidBuilder: TileReading {}
#endif
