import ImageCodec

/// The Huffman tables one tile-compressing thread carries from tile to tile. The first JPEG tile
/// it compresses in a row of a level is optimised (tables made for it: a second pass over its
/// coefficients), and the tables it got are then those of its next tiles in that row, whose
/// content is like it: on photographs nearly all of the optimisation's saving (14.7 % of the
/// standard tables' bytes where optimising every tile saved 15.8 %, 256 × 256 tiles at quality 95)
/// for the standard tables' time. One per thread: not thread-safe.
final class TileHuffmanMemory {
    /// Per level: the row the tables were learnt in, and the tables.
    private var learnt: [Int: (row: Int, tables: JPEGHuffmanTables)] = [:]

    /// The coding of a tile in `row` of `level`: the tables learnt in that row, or optimised.
    func coding(level: Int, row: Int) -> JPEGHuffmanCoding {
        if let known = learnt[level], known.row == row { return .tables(known.tables) }
        return .optimized
    }

    /// Learns the tables of `jpeg`, a tile of `row` of `level` compressed ``JPEGHuffmanCoding/optimized``.
    func learn(level: Int, row: Int, from jpeg: [UInt8]) {
        if let tables = JPEGHuffmanTables(derivedFrom: jpeg) { learnt[level] = (row, tables) }
    }
}
