#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A shared, writable mapping of a range of a file, unmapped when the last reference goes away.
///
/// Images handed to callers keep the store — and so its regions — alive, which is why a region is
/// never unmapped while a caller can still read it.
final class MappedRegion {
    let base: UnsafeMutableRawPointer
    let length: Int
    let fileOffset: Int

    init(fd: Int32, offset: Int, length: Int, path: String) throws {
        guard let p = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off_t(offset)), p != MAP_FAILED else {
            throw ImageTableError.system("mmap", path: path, errno: errno)
        }
        base = p
        self.length = length
        fileOffset = offset
    }

    /// Writes dirty pages back to the file.
    func sync(wait: Bool) -> Int32 {
        msync(base, length, wait ? MS_SYNC : MS_ASYNC) == 0 ? 0 : errno
    }

    /// Drops the region's pages from this process's resident set; the file keeps the data.
    func releaseResidentPages() {
        _ = madvise(base, length, MADV_DONTNEED)
    }

    deinit {
        munmap(base, length)
    }
}
