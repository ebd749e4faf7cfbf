import FICCore
import Glibc
import SystemPackage

/// One strip of a level (a row of tiles) in memory, written to its file by the ``StripWriter``.
final class Strip: @unchecked Sendable {
    let buffer: PageBuffer
    /// Whether a write of it is queued or running (guarded by the writer's lock).
    fileprivate var inFlight = false

    init(bytes: Int) throws {
        buffer = try PageBuffer(count: bytes)
    }
}

/// Writes strips on a thread of its own, so that the disk works while the next strips are being
/// filled: with direct writes the disk, not the processor, sets the pace of a big pyramid, and
/// this overlaps the two. Each level keeps two strips and alternates between them.
final class StripWriter: @unchecked Sendable {
    private struct Job {
        let strip: Strip
        let file: FileDescriptor
        let length: Int
        let offset: Int
        let path: String
    }

    private let lock = ConditionLock()
    private var queue: [Job] = []
    private var stopping = false
    private var failure: ImageCacheError?
    private var thread: WorkerThread?

    init() throws {
        thread = try WorkerThread { [self] in self.run() }
    }

    deinit {
        stop()
    }

    private func run() {
        while true {
            var next: Job?
            lock.withLock {
                while queue.isEmpty && !stopping { lock.wait() }
                if !queue.isEmpty { next = queue.first }
            }
            guard let job = next else { return }
            var error: ImageCacheError?
            do {
                try job.file.writeAll(UnsafeRawBufferPointer(start: job.strip.buffer.base, count: job.length), at: job.offset, path: job.path)
            } catch let e {
                error = ImageCacheError.adopting(e)
            }
            lock.withLock {
                queue.removeFirst()
                job.strip.inFlight = false
                if let error, failure == nil { failure = error }
                lock.broadcast()
            }
        }
    }

    /// Queues `length` bytes of `strip` for `file` at `offset`.
    func write(_ strip: Strip, length: Int, to file: FileDescriptor, at offset: Int, path: String) throws {
        try lock.withLock { () throws in
            if let failure { throw failure }
            strip.inFlight = true
            queue.append(Job(strip: strip, file: file, length: length, offset: offset, path: path))
            lock.broadcast()
        }
    }

    /// Waits until `strip` may be written into again.
    func waitUntilFree(_ strip: Strip) throws {
        try lock.withLock { () throws in
            while strip.inFlight && failure == nil { lock.wait() }
            if let failure { throw failure }
        }
    }

    /// Waits for every queued write; throws the first failure.
    func drain() throws {
        try lock.withLock { () throws in
            while !queue.isEmpty && failure == nil { lock.wait() }
            if let failure { throw failure }
        }
    }

    /// Stops the thread after the queued writes.
    func stop() {
        lock.withLock {
            stopping = true
            lock.broadcast()
        }
        thread?.join()
        thread = nil
    }
}
