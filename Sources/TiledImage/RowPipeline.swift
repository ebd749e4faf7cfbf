import FICCore
import ImageCodec

/// What a decoder knows once it has read the header.
struct SourceHeader {
    /// The container format.
    var format: ImageFileFormat
    /// Stored width (before orientation).
    var width: Int
    /// Stored height.
    var height: Int
    /// The EXIF orientation; rows arrive in stored orientation.
    var orientation: ImageOrientation
    /// Whether rows carry alpha (premultiplied) rather than 255.
    var hasAlpha: Bool
}

/// Receives the rows of a decoder, top to bottom in stored orientation, 4 bytes a pixel
/// (BGRX, or BGRA premultiplied when the header says alpha).
protocol RowSink: AnyObject {
    /// The header: the sink checks limits and prepares the pyramid.
    func begin(_ header: SourceHeader) throws
    /// An empty batch to decode rows into (may wait for the writer to free one).
    func acquireBatch() throws -> RowBatch
    /// Hands over a batch holding `batch.count` rows.
    func submit(_ batch: RowBatch) throws
}

/// A decoder fed chunk by chunk.
protocol RowSource: AnyObject {
    /// Feeds the next chunk; rows it completes go to the sink.
    func append(_ bytes: UnsafeRawBufferPointer) throws
    /// The input has ended: decode the rest, or fail if the image is incomplete.
    func finish() throws
}

/// Contiguous rows of one image, decoded into by one thread and consumed by another.
final class RowBatch: @unchecked Sendable {
    private let memory: PageBuffer
    /// Rows it can hold.
    let capacity: Int
    /// Bytes between rows.
    let bytesPerRow: Int
    /// Rows it holds.
    var count = 0

    init(capacity: Int, bytesPerRow: Int) throws {
        memory = try PageBuffer(count: capacity * bytesPerRow)
        self.capacity = capacity
        self.bytesPerRow = bytesPerRow
    }

    /// The first byte of row `index`.
    func row(_ index: Int) -> UnsafeMutableRawPointer { memory.base + index * bytesPerRow }
}

/// Something that consumes batches on the pipeline's thread.
protocol RowConsumer: AnyObject {
    /// Takes the rows of `batch`.
    func consume(_ batch: RowBatch) throws
}

/// Hands batches of rows from the decoding thread to a writer thread, with a fixed number of
/// batches in flight: decoding and writing the pyramid overlap on two cores, and memory stays
/// bounded (the decoder waits when every batch is full).
final class RowPipeline: @unchecked Sendable {
    private struct State {
        var free: [RowBatch] = []
        var queued: [RowBatch] = []
        var closed = false
        var cancelled = false
        var failure: ImageCacheError?
    }

    private let lock = ConditionLock()
    private var state = State()
    private let consumer: RowConsumer
    private var thread: WorkerThread?

    /// Starts the writer thread; `batches` batches of `rowsPerBatch` rows.
    init(consumer: RowConsumer, rowsPerBatch: Int, bytesPerRow: Int, batches: Int = 3) throws {
        self.consumer = consumer
        for _ in 0..<batches { state.free.append(try RowBatch(capacity: rowsPerBatch, bytesPerRow: bytesPerRow)) }
        thread = try WorkerThread { [self] in self.run() }
    }

    private func run() {
        while true {
            var next: RowBatch?
            lock.withLock {
                while state.queued.isEmpty && !state.closed && !state.cancelled { lock.wait() }
                if !state.cancelled && state.failure == nil, !state.queued.isEmpty { next = state.queued.removeFirst() }
            }
            guard let batch = next else { return }
            var failure: ImageCacheError?
            do { try consumer.consume(batch) } catch { failure = ImageCacheError.adopting(error) }
            lock.withLock {
                batch.count = 0
                state.free.append(batch)
                if let failure, state.failure == nil { state.failure = failure }
                lock.broadcast()
            }
            if failure != nil { return }
        }
    }

    /// An empty batch; waits while every batch is in use. Throws the writer's error, if any.
    func acquire() throws -> RowBatch {
        try lock.withLock { () throws -> RowBatch in
            while state.free.isEmpty && state.failure == nil && !state.cancelled { lock.wait() }
            if let failure = state.failure { throw failure }
            if state.cancelled { throw ImageCacheError(.cancelled, "the pyramid build was cancelled") }
            return state.free.removeLast()
        }
    }

    /// Queues a filled batch for the writer.
    func submit(_ batch: RowBatch) throws {
        try lock.withLock { () throws in
            if let failure = state.failure { throw failure }
            state.queued.append(batch)
            lock.broadcast()
        }
    }

    /// Waits for the writer to take every queued batch, stops it, and throws its error, if any.
    func close() throws {
        lock.withLock {
            state.closed = true
            lock.broadcast()
        }
        thread?.join()
        thread = nil
        if let failure = lock.withLock({ state.failure }) { throw failure }
    }

    /// Stops the writer without waiting for queued batches.
    func cancel() {
        lock.withLock {
            state.cancelled = true
            lock.broadcast()
        }
        thread?.join()
        thread = nil
    }

    deinit {
        cancel()
    }
}
