/// Bytes appended piece by piece into memory from ``LargeBufferPool`` (mapped pages once large),
/// doubling when full: a growing buffer that never lives in `malloc`'s heap.
final class GrowableBytes {
    private var storage: LargeBufferPool.Storage?
    /// Bytes appended so far.
    private(set) var count = 0

    /// An empty buffer; with `reserving`, its first allocation holds that many bytes.
    init(reserving capacity: Int = 0) throws {
        if capacity > 0 { storage = try LargeBufferPool.allocate(byteCount: capacity, zeroed: false) }
    }

    /// Appends `bytes`.
    ///
    /// - Throws: ``ImageCacheError/Code/overMemoryBudget`` when the system refuses the memory.
    func append(_ bytes: UnsafeRawBufferPointer) throws {
        guard !bytes.isEmpty else { return }
        let (needed, overflow) = count.addingReportingOverflow(bytes.count)
        guard !overflow else { throw ImageCacheError(.overMemoryBudget, "Too many bytes to buffer.") }
        if needed > storage?.count ?? 0 {
            let capacity = max(needed, min(2 * (storage?.count ?? 0), Int.max / 2), 64 << 10)
            let grown = try LargeBufferPool.allocate(byteCount: capacity, zeroed: false)
            if let storage, count > 0 { grown.base.copyMemory(from: storage.base, byteCount: count) }
            storage = grown
        }
        storage!.base.advanced(by: count).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        count = needed
    }

    /// Hands over the memory and the count of bytes in it, leaving the buffer empty.
    func takeStorage() -> (storage: LargeBufferPool.Storage?, count: Int) {
        defer { (storage, count) = (nil, 0) }
        return (storage, count)
    }

    /// Calls `body` with the bytes appended so far.
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: storage?.base, count: count))
    }
}
