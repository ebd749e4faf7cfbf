import CFICCore
import SystemPackage

/// Writes in flight together (Linux's io_uring, see CFICCore's `fic_writes`): many writes are
/// handed over with one call and written while the caller fills its next buffer; a buffer's
/// memory is reused only after ``wait(forTag:)`` for its tag. Where the system refuses io_uring
/// the writes are synchronous. The tile pyramids write their bands through it.
///
/// Not thread-safe, and needs no lock: one thread uses it at a time (a pyramid build's writer
/// thread, then the builder's thread after that thread has been joined).
package final class WritesInFlight {
    private let writes: OpaquePointer
    /// Named in errors (a folder, or nil for unnamed files).
    private let path: String?

    /// Room for `capacity` writes in flight, tagged `0..<tags`.
    package init(capacity: Int, tags: Int, path: String?) throws {
        guard capacity > 0, tags > 0, capacity <= Int(UInt32.max), tags <= Int(UInt32.max),
            let writes = fic_writes_create(UInt32(capacity), UInt32(tags))
        else {
            throw ImageCacheError(.overMemoryBudget, "could not set up the tile writes: out of memory")
        }
        self.writes = writes
        self.path = path
    }

    deinit {
        fic_writes_destroy(writes)  // waits for every write in flight
    }

    /// Whether the writes go through io_uring (false: synchronous writes).
    package var isAsynchronous: Bool { fic_writes_is_asynchronous(writes) != 0 }

    /// Queues `count` writes of `length` bytes: write `i` takes `buffer + i × bufferStride` to `file`
    /// at `offset + i × fileStride`. `buffer` must stay untouched until ``wait(forTag:)`` for `tag`.
    package func submit(
        _ buffer: UnsafeRawPointer, length: Int, bufferStride: Int, count: Int,
        to file: FileDescriptor, offset: Int, fileStride: Int, tag: Int
    ) throws {
        guard count > 0 else { return }
        try check(
            fic_writes_submit(
                writes, file.rawValue, buffer.assumingMemoryBound(to: UInt8.self), length, bufferStride,
                UInt32(count), Int64(offset), Int64(fileStride), UInt32(tag)))
    }

    /// Waits until no write tagged `tag` is in flight.
    package func wait(forTag tag: Int) throws {
        try check(fic_writes_wait(writes, UInt32(tag)))
    }

    /// Waits until every write has completed.
    package func waitAll() throws {
        try check(fic_writes_wait_all(writes))
    }

    /// The error for a C call's result: 0, or the `errno` of the first failed write.
    private func check(_ rc: Int32) throws {
        if rc != 0 { throw ImageCacheError.system("writing tiles", path: path, errno: Errno(rawValue: rc)) }
    }
}
