/// Shrinks a stream of 32-bit pixel rows by a whole factor as they arrive: each output pixel is the
/// average of a `factor × factor` block (fewer at the right and bottom edges), rounded to nearest.
///
/// Only one row of sums is kept, so an image of any height passes through in memory proportional
/// to its width. Channels are averaged as stored; premultiplied alpha averages correctly.
struct BoxShrinker: ~Copyable {
    /// The largest factor: sums of 255 × 255 × 255 still fit the 32-bit lanes.
    static let maximumFactor = 255

    let factor: Int
    let sourceWidth: Int
    let sourceHeight: Int
    let outputWidth: Int
    let outputHeight: Int
    /// Per output column, two words of two 32-bit lanes: (B, G) and (R, A).
    private let sums: UnsafeMutablePointer<UInt64>
    private var rowsInBlock = 0
    private var outputRow = 0

    /// A shrinker of `sourceWidth × sourceHeight` pixels by `factor` (1 to ``maximumFactor``).
    init(sourceWidth: Int, sourceHeight: Int, factor: Int) {
        precondition(factor >= 1 && factor <= Self.maximumFactor && sourceWidth > 0 && sourceHeight > 0)
        self.factor = factor
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        outputWidth = (sourceWidth + factor - 1) / factor
        outputHeight = (sourceHeight + factor - 1) / factor
        sums = .allocate(capacity: outputWidth * 2)
        sums.initialize(repeating: 0, count: outputWidth * 2)
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
        let k = factor
        var x = 0
        for column in 0..<outputWidth {
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
        rowsInBlock += 1
        let lastRow = outputRow * k + rowsInBlock == sourceHeight
        guard rowsInBlock == k || lastRow else { return nil }
        emit(into: output(outputRow))
        let finished = outputRow
        outputRow += 1
        rowsInBlock = 0
        return finished
    }

    /// Writes the averages of the current block row and clears the sums.
    private func emit(into out: UnsafeMutablePointer<UInt32>) {
        let blockHeight = UInt64(rowsInBlock)
        let fullCount = UInt64(factor) * blockHeight
        let lastWidth = sourceWidth - (outputWidth - 1) * factor
        for column in 0..<outputWidth {
            let count = column == outputWidth - 1 ? UInt64(lastWidth) * blockHeight : fullCount
            let half = count / 2
            let low = sums[2 * column], high = sums[2 * column + 1]
            let b = ((low & 0xFFFF_FFFF) + half) / count
            let g = ((low >> 32) + half) / count
            let r = ((high & 0xFFFF_FFFF) + half) / count
            let a = ((high >> 32) + half) / count
            out[column] = UInt32(truncatingIfNeeded: b | g << 8 | r << 16 | a << 24)
            sums[2 * column] = 0
            sums[2 * column + 1] = 0
        }
    }
}
