/// Shrinks a stream of 32-bit pixel rows to an exact size as they arrive: each output pixel is the
/// average of the source area it covers, fractional edge pixels weighted by how much of them it
/// covers (a box filter of the scale's width, the right filter for shrinking). Exact integer
/// weights; results rounded to nearest. Channels are averaged as stored, so premultiplied alpha
/// averages correctly.
///
/// Memory is a few rows of the output width, whatever the source height. Used after DCT scaling or
/// a whole-factor shrink, so that a decode ends at exactly the size the caller needs (drawing it
/// into the largest format is then a copy, not another resampling).
package struct AreaResampler: ~Copyable {
    /// The largest source side: 255 × the width of a row still fits a 32-bit lane.
    static let maximumSourceSide = (1 << 24) - 1

    let sourceWidth: Int, sourceHeight: Int
    let outputWidth: Int, outputHeight: Int

    /// Per output column: first and last source pixel, and their weights (inner pixels weigh `outputWidth`).
    private let columns: UnsafeMutablePointer<(first: Int32, last: Int32, firstWeight: UInt32, lastWeight: UInt32)>
    /// The current source row summed horizontally: per output column, (B, G) and (R, A) in 32-bit lanes.
    private let horizontal: UnsafeMutablePointer<UInt64>
    /// Vertical sums of the output row being made and of the next one: 4 channels per column each.
    private var current: UnsafeMutablePointer<UInt64>
    private var next: UnsafeMutablePointer<UInt64>
    private var sourceRow = 0
    private var outputRow = 0
    /// `sourceWidth × sourceHeight`: the total weight of every output pixel.
    private let total: UInt64
    /// `ceil(2^64 / total)`: dividing by `total` is a multiplication by it (exact below 2^28).
    private let reciprocal: UInt64

    /// A resampler from `sourceWidth × sourceHeight` to `outputWidth × outputHeight` (each output
    /// side positive and at most the source's).
    package init(sourceWidth: Int, sourceHeight: Int, outputWidth: Int, outputHeight: Int) {
        precondition(outputWidth > 0 && outputHeight > 0 && outputWidth <= sourceWidth && outputHeight <= sourceHeight)
        precondition(sourceWidth <= Self.maximumSourceSide && sourceHeight <= Self.maximumSourceSide)
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.outputWidth = outputWidth
        self.outputHeight = outputHeight
        total = UInt64(sourceWidth) * UInt64(sourceHeight)
        reciprocal = total == 1 ? UInt64.max : UInt64.max / total + 1
        columns = .allocate(capacity: outputWidth)
        // Source pixel i spans [i·Wo, (i+1)·Wo); output column j spans [j·Wi, (j+1)·Wi).
        let wi = sourceWidth, wo = outputWidth
        for j in 0..<wo {
            let start = j * wi, end = (j + 1) * wi
            let first = start / wo, last = (end - 1) / wo
            let firstWeight = first == last ? wi : (first + 1) * wo - start
            let lastWeight = first == last ? 0 : end - last * wo
            columns[j] = (Int32(first), Int32(last), UInt32(firstWeight), UInt32(lastWeight))
        }
        horizontal = .allocate(capacity: 2 * wo)
        current = .allocate(capacity: 4 * wo)
        current.initialize(repeating: 0, count: 4 * wo)
        next = .allocate(capacity: 4 * wo)
        next.initialize(repeating: 0, count: 4 * wo)
    }

    deinit {
        columns.deallocate()
        horizontal.deallocate()
        current.deallocate()
        next.deallocate()
    }

    /// A pixel's channels in two words of two 32-bit lanes: (B, G) and (R, A).
    @inline(__always)
    private static func lanes(_ p: UInt32) -> (UInt64, UInt64) {
        let v = UInt64(p)
        return ((v & 0xFF) | (v & 0xFF00) << 24, (v >> 16 & 0xFF) | (v >> 24) << 32)
    }

    /// Adds the next source row (`sourceWidth` pixels), writing each output row it completes to
    /// `output(row)`.
    package mutating func add(_ row: UnsafePointer<UInt32>, output: (Int) -> UnsafeMutablePointer<UInt32>) {
        precondition(sourceRow < sourceHeight, "more rows than the source has")
        let wo = UInt64(outputWidth)
        for j in 0..<outputWidth {
            let c = columns[j]
            var (low, high) = Self.lanes(row[Int(c.first)])
            low &*= UInt64(c.firstWeight)
            high &*= UInt64(c.firstWeight)
            var i = Int(c.first) + 1
            let last = Int(c.last)
            while i < last {
                let (l, h) = Self.lanes(row[i])
                low &+= l &* wo
                high &+= h &* wo
                i += 1
            }
            if last > Int(c.first) {
                let (l, h) = Self.lanes(row[last])
                low &+= l &* UInt64(c.lastWeight)
                high &+= h &* UInt64(c.lastWeight)
            }
            horizontal[2 * j] = low
            horizontal[2 * j + 1] = high
        }
        // Source row r spans [r·Ho, (r+1)·Ho); output row k spans [k·Hi, (k+1)·Hi).
        let ho = outputHeight, hi = sourceHeight
        let start = sourceRow * ho, end = start + ho
        let boundary = (outputRow + 1) * hi
        let inCurrent = UInt64(min(end, boundary) - start)
        let inNext = UInt64(max(0, end - boundary))
        accumulate(into: current, weight: inCurrent)
        if inNext > 0 { accumulate(into: next, weight: inNext) }
        sourceRow += 1
        if end >= boundary {
            emit(into: output(outputRow))
            outputRow += 1
            swap(&current, &next)
        }
    }

    private func accumulate(into sums: UnsafeMutablePointer<UInt64>, weight: UInt64) {
        for j in 0..<outputWidth {
            let low = horizontal[2 * j], high = horizontal[2 * j + 1]
            sums[4 * j] &+= (low & 0xFFFF_FFFF) &* weight
            sums[4 * j + 1] &+= (low >> 32) &* weight
            sums[4 * j + 2] &+= (high & 0xFFFF_FFFF) &* weight
            sums[4 * j + 3] &+= (high >> 32) &* weight
        }
    }

    /// Writes the averages of the finished output row and clears its sums.
    private func emit(into out: UnsafeMutablePointer<UInt32>) {
        let half = total / 2
        // For x ≤ 256·total, the high word of x · ceil(2^64 / total) is floor(x / total) while
        // total² < 2^56; larger totals (sources beyond 2^28 pixels) divide.
        let exact = total < 1 << 28
        for j in 0..<outputWidth {
            var pixel: UInt32 = 0
            for c in 0..<4 {
                let x = current[4 * j + c] &+ half
                let q = exact ? (total == 1 ? x : x.multipliedFullWidth(by: reciprocal).high) : x / total
                pixel |= UInt32(truncatingIfNeeded: min(q, 255)) << (8 * c)
            }
            out[j] = pixel
            current[4 * j] = 0
            current[4 * j + 1] = 0
            current[4 * j + 2] = 0
            current[4 * j + 3] = 0
        }
    }
}
