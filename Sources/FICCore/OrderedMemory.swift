import CFICCore

/// Stores and loads whose order other threads and processes (and a process killed between two of
/// them) can rely on. Plain stores to mapped memory may be reordered or merged by the compiler;
/// a protocol that makes a record visible only after the bytes it describes needs these instead.
extension UnsafeMutableRawPointer {
    /// Stores `value` (little-endian) at `offset`, which must be 8-byte aligned, after every
    /// earlier load and store of this thread: a reader that sees it sees everything before it.
    @inline(__always)
    package func storeRelease(_ value: UInt64, toByteOffset offset: Int) {
        fic_store_release_u64(self + offset, value.littleEndian)
    }
}

extension UnsafeRawPointer {
    /// Loads the little-endian value at `offset` (8-byte aligned) with acquire ordering.
    @inline(__always)
    package func loadAcquire(fromByteOffset offset: Int) -> UInt64 {
        UInt64(littleEndian: fic_load_acquire_u64(self + offset))
    }
}

/// Orders this thread's stores: every store before the call is visible before any store after it.
@inline(__always)
package func releaseFence() {
    fic_release_fence()
}
