import CImageCodecSupport

/// Which Huffman tables a JPEG is encoded with.
package enum JPEGHuffmanCoding: Sendable {
    /// The standard tables (JPEG's Annex K), made for quality 75 or so: no extra work.
    case standard
    /// Tables made for this image (libjpeg's `optimize_coding`): 5–15 % fewer bytes at quality
    /// 90–95, for a second pass over its coefficients (two to three times the encode's time).
    case optimized
    /// Tables made for another image like it (``JPEGHuffmanTables``): nearly the optimised size at
    /// the standard tables' cost.
    case tables(JPEGHuffmanTables)
}

/// Huffman tables taken from a JPEG whose own tables were optimised for it, to encode images like
/// it (the next tiles of the same row of a photograph): every symbol JPEG can code keeps a code,
/// those the example used the shortest (`fic_jpeg_huffman_from_jpeg`).
package struct JPEGHuffmanTables: @unchecked Sendable {
    /// The four tables (a plain C value: copied, never shared).
    let tables: fic_jpeg_huffman

    /// The tables for images like `jpeg`, a 4:2:0 YCbCr JPEG encoded with ``JPEGHuffmanCoding/optimized``;
    /// nil when it does not hold the four tables.
    package init?(derivedFrom jpeg: [UInt8]) {
        var tables = fic_jpeg_huffman()
        guard jpeg.withUnsafeBufferPointer({ fic_jpeg_huffman_from_jpeg($0.baseAddress, $0.count, &tables) }) == 0 else { return nil }
        self.tables = tables
    }
}
