/// Memory for bitmaps and file bytes that never depends on `malloc`'s heuristics.
///
/// Buffers of ``minimumPageBufferBytes`` or more are `mmap`ed ``PageBuffer``s, returned to the
/// system with `munmap` when no longer pooled; smaller ones come from `malloc`, which never maps
/// them on its own, so they cannot raise glibc's dynamic mmap threshold and fragment its heap with
/// multi-megabyte blocks. Up to ``maximumPooledCount`` freed page buffers (at most
/// ``maximumPooledBytes`` together) are kept for reuse: touching fresh pages costs about half as much
/// again as decoding a JPEG into them. The pool is bounded, so the process's peak does not grow with
/// the number of images decoded.
enum LargeBufferPool {
    /// Buffers this large or larger are page buffers; smaller ones come from `malloc`.
    static let minimumPageBufferBytes = 64 << 10
    /// The most freed page buffers kept.
    static let maximumPooledCount = 4
    /// The most bytes of freed page buffers kept.
    static let maximumPooledBytes = 16 << 20
    /// The alignment of every buffer.
    static let alignment = 64
    /// Buffers this large ask for huge pages (full-size bitmaps of large photos).
    static let hugePageBytes = 4 << 20

    /// The freed page buffers, oldest first.
    private static let pool = LockedBox<[PageBuffer]>([])

    /// Memory of at least `byteCount` bytes, 64-byte aligned, zero-filled when `zeroed`.
    ///
    /// - Throws: ``ImageCacheError/Code/overMemoryBudget`` when the system refuses the memory.
    static func allocate(byteCount: Int, zeroed: Bool) throws -> Storage {
        precondition(byteCount >= 0, "a buffer size is not negative")
        let count = max(byteCount, 1)
        AllocationProbe.current?.record(count)
        guard count >= minimumPageBufferBytes else {
            let pointer = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: alignment)
            if zeroed { pointer.initializeMemory(as: UInt8.self, repeating: 0, count: count) }
            return Storage(base: pointer, count: count, pages: nil)
        }
        let reused = pool.withLockedValue { buffers -> PageBuffer? in
            // Reuse a buffer that fits without wasting more than a quarter of it.
            guard let index = buffers.lastIndex(where: { $0.count >= count && $0.count - count <= $0.count / 4 }) else {
                return nil
            }
            return buffers.remove(at: index)
        }
        if let reused {
            if zeroed { reused.base.initializeMemory(as: UInt8.self, repeating: 0, count: count) }
            return Storage(base: reused.base, count: count, pages: reused)
        }
        let pages = try PageBuffer(count: count)  // fresh pages are zero
        if count >= hugePageBytes { pages.adviseHugePages() }
        return Storage(base: pages.base, count: count, pages: pages)
    }

    /// Like ``allocate(byteCount:zeroed:)``, but falls back to `malloc` when the system refuses to
    /// map pages (`malloc` then traps if it has no memory either). For callers that cannot throw.
    static func allocateOrFallBack(byteCount: Int, zeroed: Bool) -> Storage {
        if let storage = try? allocate(byteCount: byteCount, zeroed: zeroed) { return storage }
        let count = max(byteCount, 1)
        let pointer = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: alignment)
        if zeroed { pointer.initializeMemory(as: UInt8.self, repeating: 0, count: count) }
        return Storage(base: pointer, count: count, pages: nil)
    }

    /// Takes back a page buffer, keeping it when the pool has room.
    fileprivate static func recycle(_ pages: PageBuffer) {
        pool.withLockedValue { buffers in
            buffers.append(pages)
            var total = buffers.reduce(0) { $0 + $1.count }
            while buffers.count > maximumPooledCount || total > maximumPooledBytes {
                total -= buffers.removeFirst().count  // unmapped once this reference is gone
            }
        }
    }

    /// Bytes held by freed buffers waiting for reuse.
    static var pooledBytes: Int {
        pool.withLockedValue { $0.reduce(0) { $0 + $1.count } }
    }

    /// One buffer: `count` bytes at `base`, owned until the storage goes away. `@unchecked
    /// Sendable` for the pointer alone (its fields never change); the owner orders the bytes.
    final class Storage: @unchecked Sendable {
        /// The first byte (64-byte aligned).
        let base: UnsafeMutableRawPointer
        /// Usable bytes.
        let count: Int
        /// The page buffer behind `base`, or nil for `malloc`ed memory.
        private let pages: PageBuffer?

        fileprivate init(base: UnsafeMutableRawPointer, count: Int, pages: PageBuffer?) {
            self.base = base
            self.count = count
            self.pages = pages
        }

        deinit {
            if let pages {
                LargeBufferPool.recycle(pages)
            } else {
                base.deallocate()
            }
        }
    }
}
