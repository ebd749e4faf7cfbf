/// Shrinks rows of opaque samples in one of ``SamplePipeline``'s layouts (1 to 4 channels of 8 or
/// 16 bits, no alpha) by a whole factor as they arrive, each output sample the average of a
/// `factor × factor` block (fewer at the right and bottom edges), rounded to nearest — what
/// ``BoxShrinker`` does to converted pixels, done before the conversion, so that
/// ``SamplePipeline`` (and its colour transform) converts one pixel of every `factor²` instead of
/// all of them. Samples with alpha are not shrunk this way: unpremultiplied colours must not be
/// averaged.
///
/// Only one row of sums is kept: memory proportional to the width, whatever the height.
struct SampleBoxShrinker: ~Copyable {
    /// The largest factor (as ``BoxShrinker``).
    static let maximumFactor = BoxBlocks.maximumFactor

    private var blocks: BoxBlocks
    /// Samples in a pixel.
    let channels: Int
    /// Whether samples are 16 bits (else 8).
    let wide: Bool
    /// Per output sample, the sum of its block so far.
    private let sums: UnsafeMutablePointer<UInt64>

    /// A shrinker of `sourceWidth × sourceHeight` pixels of `layout` (opaque) by `factor`.
    init(sourceWidth: Int, sourceHeight: Int, factor: Int, layout: SamplePipeline.Layout) {
        precondition(!layout.hasAlpha, "samples with alpha are shrunk after premultiplying")
        blocks = BoxBlocks(sourceWidth: sourceWidth, sourceHeight: sourceHeight, factor: factor)
        switch layout {
        case .gray16, .rgb16: wide = true
        default: wide = false
        }
        channels = layout.bytesPerPixel / (wide ? 2 : 1)
        sums = .allocate(capacity: blocks.outputWidth * channels)
        sums.initialize(repeating: 0, count: blocks.outputWidth * channels)
    }

    deinit {
        sums.deallocate()
    }

    /// Adds the next source row (`sourceWidth` pixels); returns the index of the output row it
    /// completed, written to `output(row)` in the same layout, or nil.
    mutating func add(_ row: UnsafeRawPointer, output: (Int) -> UnsafeMutableRawPointer) -> Int? {
        if wide {
            accumulate(row.assumingMemoryBound(to: UInt16.self))
        } else {
            accumulate(row.assumingMemoryBound(to: UInt8.self))
        }
        guard let (outputRow, blockHeight) = blocks.rowAdded() else { return nil }
        emit(into: output(outputRow), blockHeight: blockHeight)
        return outputRow
    }

    /// Adds a row's blocks to the sums, with the common channel counts written out.
    private func accumulate<Sample: FixedWidthInteger & UnsignedInteger>(_ s: UnsafePointer<Sample>) {
        let k = blocks.factor, n = channels, sourceWidth = blocks.sourceWidth
        var x = 0
        for column in 0..<blocks.outputWidth {
            let end = min(x + k, sourceWidth)
            let out = sums + column * n
            switch n {
            case 1:
                var a: UInt64 = 0
                while x < end { a &+= UInt64(s[x]); x += 1 }
                out[0] &+= a
            case 3:
                var a: UInt64 = 0, b: UInt64 = 0, c: UInt64 = 0
                while x < end {
                    a &+= UInt64(s[3 * x]); b &+= UInt64(s[3 * x + 1]); c &+= UInt64(s[3 * x + 2])
                    x += 1
                }
                out[0] &+= a; out[1] &+= b; out[2] &+= c
            default:
                while x < end {
                    for i in 0..<n { out[i] &+= UInt64(s[n * x + i]) }
                    x += 1
                }
            }
        }
    }

    /// Writes the averages of the block row just completed and clears the sums.
    private func emit(into out: UnsafeMutableRawPointer, blockHeight: Int) {
        let n = channels
        for column in 0..<blocks.outputWidth {
            let count = blocks.pixelCount(column: column, blockHeight: blockHeight)
            for i in 0..<n {
                let value = (sums[column * n + i] + count / 2) / count
                if wide {
                    out.storeBytes(of: UInt16(truncatingIfNeeded: value), toByteOffset: (column * n + i) * 2, as: UInt16.self)
                } else {
                    out.storeBytes(of: UInt8(truncatingIfNeeded: value), toByteOffset: column * n + i, as: UInt8.self)
                }
                sums[column * n + i] = 0
            }
        }
    }
}
