import CFICCore

/// Stores and loads whose order other threads and processes (and a process killed between two of
/// them) can rely on. Plain stores to mapped memory may be reordered or merged by the compiler;
/// a protocol that makes a record visible only after the bytes it describes needs these instead.
/// Swift's own atomics cannot live at an address in a mapping shared between processes, so these
/// are CFICCore's inline C. Every offset is 8-byte aligned; values are little-endian in memory.
extension UnsafeMutableRawPointer {
    /// Stores `value` (little-endian) at `offset`, which must be 8-byte aligned, after every
    /// earlier load and store of this thread: a reader that sees it sees everything before it.
    @inlinable @inline(__always)
    package func storeRelease(_ value: UInt64, toByteOffset offset: Int) {
        fic_store_release_u64(self + offset, value.littleEndian)
    }

    /// Stores `value` at `offset` atomically, unordered.
    @inlinable @inline(__always)
    package func storeRelaxed(_ value: UInt64, toByteOffset offset: Int) {
        fic_store_relaxed_u64(self + offset, value.littleEndian)
    }

    /// Stores `value` at `offset` sequentially consistently (a store-then-load handshake's store).
    @inlinable @inline(__always)
    package func storeSequentiallyConsistent(_ value: UInt64, toByteOffset offset: Int) {
        fic_store_seq_cst_u64(self + offset, value.littleEndian)
    }

    /// Sets the bits of `mask` in the value at `offset`, sequentially consistently; returns the value before.
    @inlinable @inline(__always) @discardableResult
    package func fetchOr(_ mask: UInt64, atByteOffset offset: Int) -> UInt64 {
        UInt64(littleEndian: fic_fetch_or_u64(self + offset, mask.littleEndian))
    }

    /// Keeps only the bits of `mask` in the value at `offset`, sequentially consistently; returns the value before.
    @inlinable @inline(__always) @discardableResult
    package func fetchAnd(_ mask: UInt64, atByteOffset offset: Int) -> UInt64 {
        UInt64(littleEndian: fic_fetch_and_u64(self + offset, mask.littleEndian))
    }

    /// Adds `value` to the value at `offset` (wrapping), sequentially consistently; returns the
    /// value before. Little-endian memory on a little-endian machine only, as every target is.
    @inlinable @inline(__always) @discardableResult
    package func fetchAdd(_ value: UInt64, atByteOffset offset: Int) -> UInt64 {
        fic_fetch_add_u64(self + offset, value)
    }

    /// Replaces the value at `offset` by `value`, sequentially consistently; returns the value before.
    @inlinable @inline(__always) @discardableResult
    package func exchange(_ value: UInt64, atByteOffset offset: Int) -> UInt64 {
        UInt64(littleEndian: fic_exchange_u64(self + offset, value.littleEndian))
    }

    /// Replaces the value at `offset` by `desired` if it is `expected`, sequentially consistently.
    /// Returns whether it did, and the value found.
    @inlinable @inline(__always)
    package func compareExchange(expected: UInt64, desired: UInt64, atByteOffset offset: Int) -> (exchanged: Bool, found: UInt64) {
        var found = expected.littleEndian
        let exchanged = fic_compare_exchange_u64(self + offset, &found, desired.littleEndian) != 0
        return (exchanged, UInt64(littleEndian: found))
    }
}

extension UnsafeRawPointer {
    /// Loads the little-endian value at `offset` (8-byte aligned) with acquire ordering.
    @inlinable @inline(__always)
    package func loadAcquire(fromByteOffset offset: Int) -> UInt64 {
        UInt64(littleEndian: fic_load_acquire_u64(self + offset))
    }

    /// Loads the value at `offset` atomically, unordered: how a seqlock's reader copies bytes a
    /// writer may be changing (a plain copy of them would be a data race).
    @inlinable @inline(__always)
    package func loadRelaxed(fromByteOffset offset: Int) -> UInt64 {
        UInt64(littleEndian: fic_load_relaxed_u64(self + offset))
    }

    /// Loads the value at `offset` sequentially consistently (a store-then-load handshake's load).
    @inlinable @inline(__always)
    package func loadSequentiallyConsistent(fromByteOffset offset: Int) -> UInt64 {
        UInt64(littleEndian: fic_load_seq_cst_u64(self + offset))
    }
}

/// Orders this thread's stores: every store before the call is visible before any store after it.
@inlinable @inline(__always)
package func releaseFence() {
    fic_release_fence()
}

/// Orders this thread's loads: loads after the call see at least what the release stores read
/// before it published (between a seqlock reader's copy and its second look at the version).
@inlinable @inline(__always)
package func acquireFence() {
    fic_acquire_fence()
}

/// A full fence: no load or store moves across it in either direction.
@inlinable @inline(__always)
package func sequentiallyConsistentFence() {
    fic_seq_cst_fence()
}
