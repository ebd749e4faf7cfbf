import FICCore
import ImageCodec

/// Something that consumes batches on the pipeline's thread.
protocol RowConsumer: AnyObject {
    /// Takes the rows of `batch`.
    func consume(_ batch: RowBatch) throws
}

/// Hands batches of rows from the decoding thread to a writer thread, with a fixed number of
/// batches in flight: decoding and writing the pyramid overlap on two cores, and memory stays
/// bounded (the decoder waits when every batch is full).
final class RowPipeline: Sendable {
    private struct State {
        var free: [RowBatch] = []
        var queued: [RowBatch] = []
        var closed = false
        var cancelled = false
        var failure: ImageCacheError?
    }

    private let state: ConditionBox<State>
    private let thread: WorkerThread

    /// Starts the writer thread, which hands every batch to `consumer`; `batches` batches of
    /// `rowsPerBatch` rows. The caller does not touch `consumer` again until ``close()`` or
    /// ``cancel()`` has returned.
    init(consumer: RowConsumer, rowsPerBatch: Int, bytesPerRow: Int, batches: Int = 3) throws {
        var initial = State()
        for _ in 0..<batches { initial.free.append(try RowBatch(capacity: rowsPerBatch, bytesPerRow: bytesPerRow)) }
        let state = ConditionBox(initial)
        self.state = state
        let handed = HandedOver(value: consumer)
        thread = try WorkerThread { Self.run(state, handed.value) }
    }

    deinit {
        cancel()
    }

    /// The writer thread: takes queued batches until closed (after the queue is empty), cancelled or failed.
    private static func run(_ state: ConditionBox<State>, _ consumer: RowConsumer) {
        while true {
            let next = state.withLockedValue(waitingUntil: { !$0.queued.isEmpty || $0.closed || $0.cancelled }) { state -> RowBatch? in
                guard !state.cancelled, state.failure == nil, !state.queued.isEmpty else { return nil }
                return state.queued.removeFirst()
            }
            guard let batch = next else { return }
            var failure: ImageCacheError?
            // A colour step the decoder left to this thread (the two cores share the work).
            batch.applyPendingColor()
            do { try consumer.consume(batch) } catch { failure = ImageCacheError.adopting(error) }
            batch.count = 0
            state.update { state in
                state.free.append(batch)
                if let failure, state.failure == nil { state.failure = failure }
            }
            if failure != nil { return }
        }
    }

    /// An empty batch; waits while every batch is in use. Throws the writer's error, if any.
    func acquire() throws -> RowBatch {
        try state.withLockedValue(waitingUntil: { !$0.free.isEmpty || $0.failure != nil || $0.cancelled }) { (state) throws -> RowBatch in
            if let failure = state.failure { throw failure }
            if state.cancelled { throw ImageCacheError(.cancelled, "the pyramid build was cancelled") }
            return state.free.removeLast()
        }
    }

    /// Queues a filled batch for the writer.
    func submit(_ batch: RowBatch) throws {
        // A colour step left to the writer is made here instead when the writer is behind (a
        // batch already waits for it): this thread would otherwise only wait for a free batch
        // next. So the two threads share the conversion as their loads fall, whatever the format
        // and its compression.
        if batch.pendingColor != nil, state.withLockedValue({ !$0.queued.isEmpty }) {
            batch.applyPendingColor()
        }
        try state.update { (state) throws in
            if let failure = state.failure { throw failure }
            state.queued.append(batch)
        }
    }

    /// Waits for the writer to take every queued batch, stops it, and throws its error, if any.
    func close() throws {
        state.update { $0.closed = true }
        thread.join()
        if let failure = state.withLockedValue({ $0.failure }) { throw failure }
    }

    /// Stops the writer without waiting for queued batches.
    func cancel() {
        state.update { $0.cancelled = true }
        thread.join()
    }
}
