import FICCore
import Glibc
import SystemPackage

/// Thin wrappers over the POSIX calls the engine needs, turning failures into ``ImageCacheError``.
enum SystemFile {
    static let pageSize: Int = Int(sysconf(Int32(_SC_PAGESIZE)))

    static func open(_ path: String, flags: Int32, mode: mode_t = 0o644) throws -> Int32 {
        while true {
            let fd = Glibc.open(path, flags | O_CLOEXEC, mode)
            if fd >= 0 { return fd }
            if errno == EINTR { continue }
            throw ImageCacheError.system("open", path: path, errno: errno)
        }
    }

    static func size(_ fd: Int32, path: String) throws -> Int {
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw ImageCacheError.system("fstat", path: path, errno: errno) }
        return Int(st.st_size)
    }

    /// Bytes the file occupies on disk.
    static func allocatedBytes(_ fd: Int32) -> Int {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return 0 }
        return Int(st.st_blocks) * 512
    }

    /// Reserves disk blocks for `[offset, offset+length)` so that later writes through a mapping
    /// cannot fail with SIGBUS on a full disk. Extends the file when needed.
    static func allocate(_ fd: Int32, offset: Int, length: Int, path: String) throws {
        let rc = posix_fallocate(fd, off_t(offset), off_t(length))
        if rc == 0 { return }
        if rc == EOPNOTSUPP || rc == EINVAL {
            // File systems without fallocate: write zeros, so a full disk is reported now
            // rather than as SIGBUS when the mapping is written later.
            let zeros = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
            defer { zeros.deallocate() }
            zeros.initializeMemory(as: UInt8.self, repeating: 0)
            var done = 0
            while done < length {
                let n = min(zeros.count, length - done)
                try pwrite(fd, UnsafeRawBufferPointer(rebasing: zeros[0..<n]), offset: offset + done, path: path)
                done += n
            }
            return
        }
        throw ImageCacheError.system("posix_fallocate", path: path, errno: rc)
    }

    static func truncate(_ fd: Int32, to length: Int, path: String) throws {
        guard ftruncate(fd, off_t(length)) == 0 else { throw ImageCacheError.system("ftruncate", path: path, errno: errno) }
    }

    static func pread(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, offset: Int, path: String) throws -> Int {
        var done = 0
        while done < buffer.count {
            let n = Glibc.pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
            if n < 0 {
                if errno == EINTR { continue }
                throw ImageCacheError.system("pread", path: path, errno: errno)
            }
            if n == 0 { break }
            done += n
        }
        return done
    }

    static func pwrite(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, offset: Int, path: String) throws {
        var done = 0
        while done < buffer.count {
            let n = Glibc.pwrite(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
            if n < 0 {
                if errno == EINTR { continue }
                throw ImageCacheError.system("pwrite", path: path, errno: errno)
            }
            done += n
        }
    }

    static func sync(_ fd: Int32, path: String) throws {
        guard fsync(fd) == 0 else { throw ImageCacheError.system("fsync", path: path, errno: errno) }
    }

    /// Takes an exclusive, non-blocking advisory lock on the open file.
    static func lockExclusive(_ fd: Int32, path: String) throws {
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            if errno == EINTR { continue }
            if errno == EWOULDBLOCK {
                throw ImageCacheError(.inUse, "the table is open in another process or cache object; close it first", path: path, errno: errno)
            }
            throw ImageCacheError.system("flock", path: path, errno: errno)
        }
    }

    static func rename(_ from: String, _ to: String) throws {
        guard Glibc.rename(from, to) == 0 else { throw ImageCacheError.system("rename", path: to, errno: errno) }
    }

    static func syncDirectory(of path: String) {
        let dir: String
        if let slash = path.lastIndex(of: "/") { dir = slash == path.startIndex ? "/" : String(path[..<slash]) } else { dir = "." }
        let fd = Glibc.open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            _ = fsync(fd)
            Glibc.close(fd)
        }
    }
}
