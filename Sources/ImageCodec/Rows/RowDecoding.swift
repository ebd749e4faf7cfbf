import FICCore

/// What a decoder knows once it has read the header.
package struct SourceHeader: Sendable {
    /// The container format.
    package var format: ImageFileFormat
    /// Stored width (before orientation).
    package var width: Int
    /// Stored height.
    package var height: Int
    /// The EXIF orientation; rows arrive in stored orientation.
    package var orientation: ImageOrientation
    /// Whether rows carry alpha (premultiplied) rather than 255.
    package var hasAlpha: Bool
    /// A JPEG source's quantisation, when an encoder of 4:2:0 tiles can reuse it (nil otherwise).
    package var jpegQuantization: JPEGQuantization? = nil
}

/// Receives the rows of a decoder, top to bottom in stored orientation, at full size, 4 bytes a
/// pixel in sRGB (BGRX, or BGRA premultiplied when the header says alpha).
package protocol RowSink: AnyObject {
    /// Whether the sink converts rows' colours itself, on a thread of its own
    /// (``RowBatch/applyPendingColor()``): a decoder may then hand over rows still in the file's
    /// colours, with the conversion attached, instead of converting them on the decoding thread.
    var convertsColor: Bool { get }
    /// The header: the sink checks limits and prepares the pyramid.
    func begin(_ header: SourceHeader) throws
    /// An empty batch to decode rows into (may wait for the writer to free one).
    func acquireBatch() throws -> RowBatch
    /// Hands over a batch holding `batch.count` rows.
    func submit(_ batch: RowBatch) throws
}

extension RowSink {
    /// Rows come converted: most sinks read them as they are handed over.
    package var convertsColor: Bool { false }
}

/// A decoder fed the bytes of an image chunk by chunk as they arrive, which hands its rows to a
/// ``RowSink`` as it decodes them: the one way the package streams rows out of any format
/// (``ImageFormatDecoder/makeRowDecoder(sink:options:)``).
package protocol RowDecoder: AnyObject {
    /// Feeds the next chunk; rows it completes go to the sink.
    func append(_ bytes: UnsafeRawBufferPointer) throws
    /// The input has ended: decode the rest, or fail if the image is incomplete.
    func finish() throws
    /// Stops decoding for good (a failed or cancelled build); waits for a decoder thread, if any.
    func stop()
    /// What the decode kept outside memory, for the build's statistics.
    var statistics: RowDecoderStatistics { get }
}

extension RowDecoder {
    /// Nothing kept outside memory.
    package var statistics: RowDecoderStatistics { RowDecoderStatistics() }
}

/// What a row decoder kept outside memory: a progressive JPEG's coefficients in a file.
package struct RowDecoderStatistics: Sendable, Hashable {
    /// Bytes of coefficients kept in the file.
    package var coefficientFileBytes = 0
    /// The most bytes of the coefficient file its pager thread held mapped at once.
    package var coefficientPagerPeakBytes = 0
    /// Bytes of the coefficient file freed behind the final output pass, before the file was closed.
    package var coefficientBytesFreedEarly = 0
    /// Recoverable damage decoded past (for the caller's logger).
    package var warnings: [String] = []

    /// No bytes anywhere.
    package init() {}
}

/// Contiguous rows of one image, decoded into by one thread and consumed by another. It passes
/// between them through the sink's locked state, which orders the rows' bytes (raw memory, like
/// any ``PageBuffer``'s); its count and colour step are under a lock of their own, so the batch
/// is `Sendable` without a promise about who holds it.
package final class RowBatch: Sendable {
    private let memory: PageBuffer
    /// Rows it can hold.
    package let capacity: Int
    /// Bytes between rows.
    package let bytesPerRow: Int

    private struct Fill {
        var count = 0
        var pendingColor: RowColorStep?
    }

    /// Taken once or twice a row at most: nothing next to decoding the row.
    private let fill = LockedBox(Fill())

    /// Rows it holds.
    package var count: Int {
        get { fill.withLockedValue { $0.count } }
        set { fill.withLockedValue { $0.count = newValue } }
    }

    /// The colour step its rows still need, for a sink that ``RowSink/convertsColor``.
    package var pendingColor: RowColorStep? {
        get { fill.withLockedValue { $0.pendingColor } }
        set { fill.withLockedValue { $0.pendingColor = newValue } }
    }

    /// A batch of `capacity` rows of `bytesPerRow` bytes, in memory of its own.
    package init(capacity: Int, bytesPerRow: Int) throws {
        memory = try PageBuffer(count: capacity * bytesPerRow)
        self.capacity = capacity
        self.bytesPerRow = bytesPerRow
    }

    /// The first byte of row `index`.
    package func row(_ index: Int) -> UnsafeMutableRawPointer { memory.base + index * bytesPerRow }

    /// Converts the rows' colours if the decoder left that to the sink; then they are sRGB.
    package func applyPendingColor() {
        let (step, count) = fill.withLockedValue { f in
            defer { f.pendingColor = nil }
            return (f.pendingColor, f.count)
        }
        guard let step else { return }
        for index in 0..<count { step.convert(row(index)) }
    }
}
