/// Shrinks a stream of 32-bit pixel rows by a whole factor as they arrive: each output pixel is the
/// average of a `factor × factor` block (fewer at the right and bottom edges), rounded to nearest.
///
/// Only one row of sums is kept, so an image of any height passes through in memory proportional
/// to its width. Channels are averaged as stored; premultiplied alpha averages correctly.
struct BoxShrinker: ~Copyable {
    /// The largest factor: sums of 255 × 255 × 255 still fit the 32-bit lanes.
    static let maximumFactor = BoxBlocks.maximumFactor

    private var blocks: BoxBlocks
    /// Per output column, two words of two 32-bit lanes: (B, G) and (R, A).
    private let sums: UnsafeMutablePointer<UInt64>

    /// A shrinker of `sourceWidth × sourceHeight` pixels by `factor` (1 to ``maximumFactor``).
    init(sourceWidth: Int, sourceHeight: Int, factor: Int) {
        blocks = BoxBlocks(sourceWidth: sourceWidth, sourceHeight: sourceHeight, factor: factor)
        sums = .allocate(capacity: blocks.outputWidth * 2)
        sums.initialize(repeating: 0, count: blocks.outputWidth * 2)
    }

    deinit {
        sums.deallocate()
    }

    /// Spreads a BGRA pixel's bytes into four 16-bit lanes: B, R, G, A (from the low end).
    @inline(__always)
    private static func spread(_ p: UInt32) -> UInt64 {
        let v = UInt64(p)
        return (v & 0x00FF_00FF) | ((v & 0xFF00_FF00) << 24)
    }

    /// Adds the next source row (`sourceWidth` pixels); returns the index of the output row it
    /// completed, written to `output(row)`, or nil.
    mutating func add(_ row: UnsafePointer<UInt32>, output: (Int) -> UnsafeMutablePointer<UInt32>) -> Int? {
        let k = blocks.factor, sourceWidth = blocks.sourceWidth
        var x = 0
        for column in 0..<blocks.outputWidth {
            let end = min(x + k, sourceWidth)
            var lanes: UInt64 = 0  // 16-bit lanes: at most 255 pixels of 255
            while x < end {
                lanes &+= Self.spread(row[x])
                x += 1
            }
            // Written out rather than `&+=`: Swift 6.3 emits invalid IR for `&+=` through a pointer
            // subscript here when compiling for Thread Sanitizer.
            sums[2 * column] = sums[2 * column] &+ (lanes & 0x0000_FFFF_0000_FFFF)  // B, G
            sums[2 * column + 1] = sums[2 * column + 1] &+ ((lanes >> 16) & 0x0000_FFFF_0000_FFFF)  // R, A
        }
        guard let (outputRow, blockHeight) = blocks.rowAdded() else { return nil }
        emit(into: output(outputRow), blockHeight: blockHeight)
        return outputRow
    }

    /// Writes the averages of the block row just completed and clears the sums.
    private func emit(into out: UnsafeMutablePointer<UInt32>, blockHeight: Int) {
        for column in 0..<blocks.outputWidth {
            let count = blocks.pixelCount(column: column, blockHeight: blockHeight)
            let half = count / 2
            let low = sums[2 * column], high = sums[2 * column + 1]
            let b, g, r, a: UInt64
            if count & (count - 1) == 0 {
                // A whole block of a factor of 2, 4 or 8 (most shrinks): a shift, not four divisions.
                let shift = UInt64(count.trailingZeroBitCount)
                b = ((low & 0xFFFF_FFFF) + half) >> shift
                g = ((low >> 32) + half) >> shift
                r = ((high & 0xFFFF_FFFF) + half) >> shift
                a = ((high >> 32) + half) >> shift
            } else {
                b = ((low & 0xFFFF_FFFF) + half) / count
                g = ((low >> 32) + half) / count
                r = ((high & 0xFFFF_FFFF) + half) / count
                a = ((high >> 32) + half) / count
            }
            out[column] = UInt32(truncatingIfNeeded: b | g << 8 | r << 16 | a << 24)
            sums[2 * column] = 0
            sums[2 * column + 1] = 0
        }
    }
}
