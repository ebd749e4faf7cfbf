import CFICCore
import Glibc
import SystemPackage

/// A shared mapping of a range of a file, unmapped when the last reference goes away.
///
/// Whoever reads memory of a region keeps the region alive; that is what makes a region safe to
/// hand out: it is never unmapped while a reader can still reach it.
///
/// `@unchecked Sendable`: its fields never change, and the only thing the compiler cannot check
/// is the pointer to the mapping, whose bytes the table's own lock and records order.
package final class MappedRegion: @unchecked Sendable {
    /// The first mapped byte.
    package let base: UnsafeMutableRawPointer
    /// Mapped bytes.
    package let length: Int
    /// Where the range starts in the file.
    package let fileOffset: Int
    /// Whether the mapping may be written.
    package let isWritable: Bool

    /// Maps `length` bytes of `descriptor` from `offset`, which must be a multiple of the page size.
    package init(descriptor: FileDescriptor, offset: Int, length: Int, writable: Bool, path: String?) throws {
        precondition(offset % systemPageSize == 0 && length > 0, "mapped ranges start on a page and are not empty")
        let protection = writable ? PROT_READ | PROT_WRITE : PROT_READ
        guard let p = mmap(nil, length, protection, MAP_SHARED, descriptor.rawValue, off_t(offset)), p != MAP_FAILED else {
            throw ImageCacheError.system("mmap", path: path, errno: lastErrno())
        }
        base = p
        self.length = length
        fileOffset = offset
        isWritable = writable
    }

    deinit {
        munmap(base, length)
    }

    /// Writes dirty pages back to the file (`msync`); when `wait`, returns once they are on the
    /// disk, otherwise once the writes have started.
    package func synchronize(wait: Bool, path: String?) throws {
        _ = try retryingSystemCall("msync", path: path) { msync(base, length, wait ? MS_SYNC : MS_ASYNC) }
    }

    /// Drops the region's pages from this process's resident set; the file keeps the data.
    package func releaseResidentPages() {
        _ = madvise(base, length, MADV_DONTNEED)
    }

    /// Drops the pages of `[start, start + count)` (`start` page-aligned, inside the region; the
    /// range is cut at the region's end) from this process's resident set; the file keeps the
    /// data and the next read maps it again.
    package func releaseResidentPages(_ start: UnsafeRawPointer, count: Int) {
        let first = UnsafeRawPointer(base)
        precondition(start >= first && start < first + length, "the released range starts in the region")
        _ = madvise(UnsafeMutableRawPointer(mutating: start), min(count, first + length - start), MADV_DONTNEED)
    }

    /// Replaces the pages of `[start, start + count)` (page-aligned, inside the region) with
    /// private, anonymous copies of their current contents, atomically for readers: afterwards
    /// the bytes at those addresses are the same but no longer change when the file does.
    ///
    /// - Returns: false when the system refused (out of memory); the range is then unchanged.
    package func detach(_ start: UnsafeMutableRawPointer, count: Int) -> Bool {
        precondition(start >= base && start + count <= base + length, "the detached range lies in the region")
        guard let copy = mmap(nil, count, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), copy != MAP_FAILED else {
            return false
        }
        copy.copyMemory(from: start, byteCount: count)
        if !isWritable { _ = mprotect(copy, count, PROT_READ) }
        // mremap moves the copy's pages over the shared ones in one step, so a reader sees the
        // same bytes throughout.
        guard fic_mremap_fixed(copy, count, start) == 0 else {
            munmap(copy, count)
            return false
        }
        return true
    }
}
