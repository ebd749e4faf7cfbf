import Glibc

extension Directory {
    /// Sets the folder's own modification time to now (`futimens`), so that it records when the
    /// folder was last used; the folder's contents are not touched.
    package func setModificationTimeToNow() throws {
        _ = try retryingSystemCall("futimens", path: path) { futimens(descriptor.rawValue, nil) }
    }

    /// Sets the modification time of `name` in this folder to now (`utimensat`, not through a
    /// link), so that it records when the file was last used. Best effort: a file that is missing
    /// or may not be touched keeps its time, and the caller goes on.
    package func touch(_ name: String) {
        _ = utimensat(descriptor.rawValue, name, nil, AT_SYMLINK_NOFOLLOW)
    }
}

extension Glibc.stat {
    /// The last modification time, in nanoseconds since 1970.
    package var modificationNanoseconds: Int64 { Int64(st_mtim.tv_sec) &* 1_000_000_000 &+ Int64(st_mtim.tv_nsec) }
    /// The last status change time, in nanoseconds since 1970.
    package var statusChangeNanoseconds: Int64 { Int64(st_ctim.tv_sec) &* 1_000_000_000 &+ Int64(st_ctim.tv_nsec) }
    /// The bytes the file occupies on disk (`st_blocks` counts 512-byte units whatever the block size).
    package var diskBytes: Int { Int(st_blocks) &* 512 }
}
