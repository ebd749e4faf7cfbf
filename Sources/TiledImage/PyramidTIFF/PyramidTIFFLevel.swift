import ImageCodec

/// One level of a pyramidal TIFF as its IFD describes it, every field checked against the file.
public struct PyramidTIFFLevel: Sendable, Hashable {
    /// The level's index: 0 is full resolution.
    public let index: Int
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Tile width in pixels (a multiple of 16).
    public let tileWidth: Int
    /// Tile height in pixels (a multiple of 16).
    public let tileHeight: Int
    /// The Compression tag: 1 none, 7 JPEG, 8 (or 32946) deflate.
    public let compression: Int
    /// The PhotometricInterpretation tag: 1 grey, 2 RGB, 6 YCbCr.
    public let photometric: Int
    /// Samples per pixel (1…4, 8 bits each).
    public let samplesPerPixel: Int
    /// The ExtraSamples tag's values (1: associated alpha, 2: unassociated alpha).
    public let extraSamples: [Int]
    /// The Predictor tag: 1 none, 2 horizontal differencing.
    public let predictor: Int
    /// How the level's samples become pixels (as ImageCodec's TIFF decoder turns them).
    let samplePlan: TIFFSamplePlan
    /// The JPEGTables tag: quantisation and Huffman tables that abbreviated JPEG tiles leave out,
    /// to be spliced in before a tile's frame header. Nil when absent.
    public let jpegTables: [UInt8]?
    /// Each tile's file offset, row-major.
    public let tileOffsets: [Int]
    /// Each tile's stored byte count, row-major (0: a tile the file does not have).
    public let tileByteCounts: [Int]
    /// Where the level's IFD lies in the file.
    public let directoryOffset: Int

    /// Tiles across.
    public var columns: Int { (width + tileWidth - 1) / tileWidth }
    /// Tiles down.
    public var rows: Int { (height + tileHeight - 1) / tileHeight }

    /// Where tile (`column`, `row`) lies in the file and how many bytes it stores (0: a tile the
    /// file does not have); nil for a tile outside the level.
    public func storedRange(column: Int, row: Int) -> (offset: Int, count: Int)? {
        guard (0..<columns).contains(column), (0..<rows).contains(row) else { return nil }
        let index = row * columns + column
        return (tileOffsets[index], tileByteCounts[index])
    }
    /// Whether the level's pixels carry alpha: its first extra sample is alpha (associated or
    /// not), or it is RGB with a fourth sample and no ExtraSamples tag, as libtiff reads it.
    public var hasAlpha: Bool { samplePlan.layout.hasAlpha }
}
