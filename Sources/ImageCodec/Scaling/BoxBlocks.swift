/// The geometry and progress of shrinking rows by a whole factor, each output pixel the average
/// of a `factor × factor` block (fewer at the right and bottom edges): what ``BoxShrinker`` (on
/// converted pixels) and ``SampleBoxShrinker`` (on samples before conversion) share, so that the
/// two agree on every block's size.
struct BoxBlocks {
    /// The largest factor: sums of 255 × 255 × 255 still fit the 32-bit lanes of ``BoxShrinker``.
    static let maximumFactor = 255

    let factor: Int
    let sourceWidth: Int
    let sourceHeight: Int
    let outputWidth: Int
    let outputHeight: Int
    /// Source rows added to the block row being summed.
    private var rowsInBlock = 0
    /// The output row that block row becomes.
    private var outputRow = 0

    /// Blocks of `factor` (1 to ``maximumFactor``) over `sourceWidth × sourceHeight` pixels.
    init(sourceWidth: Int, sourceHeight: Int, factor: Int) {
        precondition(factor >= 1 && factor <= Self.maximumFactor && sourceWidth > 0 && sourceHeight > 0)
        self.factor = factor
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        outputWidth = (sourceWidth + factor - 1) / factor
        outputHeight = (sourceHeight + factor - 1) / factor
    }

    /// Counts one more source row; when it completes a block row (`factor` rows, or the image's
    /// last), returns the output row to write and how many source rows the block row has, and
    /// starts the next.
    mutating func rowAdded() -> (outputRow: Int, blockHeight: Int)? {
        rowsInBlock += 1
        guard rowsInBlock == factor || outputRow * factor + rowsInBlock == sourceHeight else { return nil }
        defer {
            outputRow += 1
            rowsInBlock = 0
        }
        return (outputRow, rowsInBlock)
    }

    /// The source pixels in a block of output `column` that is `blockHeight` rows high (the last
    /// column may be narrower).
    @inline(__always)
    func pixelCount(column: Int, blockHeight: Int) -> UInt64 {
        let width = column == outputWidth - 1 ? sourceWidth - (outputWidth - 1) * factor : factor
        return UInt64(width) * UInt64(blockHeight)
    }
}
