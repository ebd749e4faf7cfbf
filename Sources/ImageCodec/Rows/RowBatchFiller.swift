/// Fills a sink's batches one row at a time, for decoders that produce rows singly: takes a batch
/// when a row is wanted and none is open, hands it over when it is full, and the last, partly
/// filled one at the end. The one place this bookkeeping is done.
struct RowBatchFiller {
    private let sink: any RowSink
    private var batch: RowBatch?
    /// The colour step the rows still need (``RowBatch/pendingColor``), given to every batch
    /// handed over; nil when they are converted already.
    var pendingColor: RowColorStep?

    /// A filler of `sink`'s batches.
    init(_ sink: any RowSink) {
        self.sink = sink
    }

    /// Memory for the next row (a batch is taken from the sink if none is open; this may wait
    /// for the sink to free one).
    mutating func nextRow() throws -> UnsafeMutableRawPointer {
        let current = try batch ?? sink.acquireBatch()
        batch = current
        return current.row(current.count)
    }

    /// The row from ``nextRow()`` is written: it counts, and a full batch goes to the sink.
    mutating func rowWritten() throws {
        guard let current = batch else { return }
        current.count += 1
        if current.count == current.capacity {
            batch = nil
            current.pendingColor = pendingColor
            try sink.submit(current)
        }
    }

    /// Hands over the last batch, if it holds rows.
    mutating func flush() throws {
        if let current = batch, current.count > 0 {
            batch = nil
            current.pendingColor = pendingColor
            try sink.submit(current)
        }
    }
}
