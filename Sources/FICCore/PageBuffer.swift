import Glibc
import SystemPackage

/// Memory of its own, from `mmap`, returned to the system (`munmap`) when the buffer goes away.
///
/// Large buffers (decoded pixels, file bytes, decoder work memory) come from here rather than
/// from `malloc`, whose heuristics keep big freed blocks in a fragmented heap: a process that
/// decodes thousands of large images then stays at its peak. Pages are zero until written.
///
/// `@unchecked Sendable`: its fields never change, and the only thing the compiler cannot check
/// is the pointer. The bytes behind it are raw memory, ordered by whoever shares them (a lock, a
/// thread's join, a task's end), as any memory reached through a pointer.
package final class PageBuffer: @unchecked Sendable {
    /// The first byte (page-aligned).
    package let base: UnsafeMutableRawPointer
    /// Usable bytes.
    package let count: Int
    /// Mapped bytes (`count` rounded up to whole pages).
    package let mappedCount: Int

    /// Maps `count` bytes of zeroed memory.
    ///
    /// - Throws: ``ImageCacheError/Code/overMemoryBudget`` when the system has no memory to give.
    package init(count: Int) throws {
        precondition(count >= 0, "a buffer size is not negative")
        let mapped = max(systemPageSize, (count + systemPageSize - 1) / systemPageSize * systemPageSize)
        guard let p = mmap(nil, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), p != MAP_FAILED else {
            throw ImageCacheError(.overMemoryBudget, "the system refused \(mapped) bytes of memory", errno: lastErrno())
        }
        base = p
        self.count = count
        mappedCount = mapped
    }

    deinit {
        munmap(base, mappedCount)
    }

    /// Asks for 2 MiB pages where the system grants them on request (transparent huge pages in
    /// `madvise` mode): a buffer of many megabytes that is written once through then takes 512 times
    /// fewer page faults. Nothing changes where the system does not.
    package func adviseHugePages() {
        _ = madvise(base, mappedCount, MADV_HUGEPAGE)
    }

    /// Lets the system take the pages back now; they read as zeros afterwards.
    package func releasePages() {
        _ = madvise(base, mappedCount, MADV_DONTNEED)
    }
}
