import FICCore

/// Bytes handed from the thread that receives a stream to a decoder thread that pulls them (the
/// PNG row decoder reads through a callback). The producer waits while more than `limit` bytes
/// are buffered, so memory stays bounded; the consumer takes whatever is there, waiting only when
/// nothing is.
package final class ByteChannel: Sendable {
    private struct State {
        var buffer: [UInt8] = []
        var start = 0
        var ended = false
        var cancelled = false
        var drained = false

        var available: Int { buffer.count - start }
    }

    private let state = ConditionBox(State())
    private let limit: Int

    /// A channel that makes its producer wait while more than `limit` bytes are buffered.
    package init(limit: Int = 4 << 20) {
        self.limit = limit
    }

    /// Adds bytes; waits while the consumer is behind. Returns false when the consumer stopped.
    package func push(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let limit = self.limit
        let open = state.withLockedValue(waitingUntil: { $0.cancelled || $0.drained || $0.available <= limit }) { state in
            !state.cancelled
        }
        guard open else { return false }
        state.update { state in
            if state.drained || state.cancelled { return }  // the image is complete: later bytes are ignored
            if state.start > 0 && state.start >= state.buffer.count / 2 {
                state.buffer.removeFirst(state.start)
                state.start = 0
            }
            state.buffer.append(contentsOf: bytes)
        }
        return true
    }

    /// No more bytes will come.
    package func end() {
        state.update { $0.ended = true }
    }

    /// The consumer has read all it needs: later pushes are accepted and dropped.
    package func stopReading() {
        state.update { state in
            state.drained = true
            state.buffer = []
            state.start = 0
        }
    }

    /// The consumer stops: pending and later pushes return false, reads throw.
    package func cancel() {
        state.update { $0.cancelled = true }
    }

    /// Copies up to `destination.count` bytes, waiting only while none are buffered; returns how
    /// many, 0 once the stream has ended and everything was read.
    ///
    /// - Throws: `.cancelled` when the channel was cancelled.
    package func read(into destination: UnsafeMutableRawBufferPointer) throws -> Int {
        let limit = self.limit
        let (count, producerMayWait) = try state.withLockedValue(
            waitingUntil: { $0.cancelled || $0.ended || $0.available > 0 }
        ) { (state) throws -> (Int, Bool) in
            guard !state.cancelled else { throw ImageCacheError(.cancelled, "the pyramid build was cancelled") }
            let full = state.available > limit
            let n = min(destination.count, state.available)
            guard n > 0 else { return (0, false) }
            let start = state.start
            state.buffer.withUnsafeBytes { raw in
                destination.copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[start..<(start + n)]))
            }
            state.start += n
            return (n, full)
        }
        // A producer waits for room only while more than the limit is buffered: wake it.
        if producerMayWait { state.update { _ in } }
        return count
    }
}
