import FICCore

/// Bytes handed from the thread that receives a stream to a decoder thread that pulls them
/// (libspng reads through a callback). The producer waits while more than `limit` bytes are
/// buffered and the consumer does not need them, so memory stays bounded.
final class ByteChannel: @unchecked Sendable {
    private let lock = ConditionLock()
    private var buffer: [UInt8] = []
    private var start = 0
    private var ended = false
    private var cancelled = false
    private var drained = false
    private var wanted = 0
    private let limit: Int

    init(limit: Int = 4 << 20) {
        self.limit = limit
    }

    /// Adds bytes; waits while the consumer is behind. Returns false when the consumer stopped.
    func push(_ bytes: UnsafeRawBufferPointer) -> Bool {
        lock.withLock {
            while !cancelled && buffer.count - start > limit && wanted <= buffer.count - start { lock.wait() }
            guard !cancelled else { return false }
            if drained { return true }  // the image is complete: later bytes are ignored
            if start > 0 && start >= buffer.count / 2 {
                buffer.removeFirst(start)
                start = 0
            }
            buffer.append(contentsOf: bytes)
            lock.broadcast()
            return true
        }
    }

    /// No more bytes will come.
    func end() {
        lock.withLock {
            ended = true
            lock.broadcast()
        }
    }

    /// The consumer has read all it needs: later pushes are accepted and dropped.
    func stopReading() {
        lock.withLock {
            drained = true
            buffer = []
            start = 0
            lock.broadcast()
        }
    }

    /// The consumer stops: pending and later pushes return false.
    func cancel() {
        lock.withLock {
            cancelled = true
            lock.broadcast()
        }
    }

    /// Fills `destination` completely, waiting for bytes; false when the stream ended first.
    func read(into destination: UnsafeMutableRawBufferPointer) -> Bool {
        lock.withLock {
            wanted = destination.count
            lock.broadcast()
            while !cancelled && !ended && buffer.count - start < destination.count { lock.wait() }
            wanted = 0
            guard !cancelled, buffer.count - start >= destination.count else { return false }
            buffer.withUnsafeBytes { raw in
                destination.copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[start..<(start + destination.count)]))
            }
            start += destination.count
            lock.broadcast()
            return true
        }
    }
}
