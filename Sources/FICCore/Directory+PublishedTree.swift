import Glibc
import SystemPackage

/// Files and folders meant to be served by others (a web server, a CDN upload): readable by
/// everyone as the umask allows (0644 files, 0755 folders), each created new, written in bulk
/// without a sync per entry; the caller syncs what it needs once at the end.
extension Directory {
    /// Makes the new folder `name` (0755 before the umask) and opens it, never through a link.
    ///
    /// - Throws: ``ImageCacheError`` with `EEXIST` when `name` exists (nothing of someone else's
    ///   is written into), or what `mkdirat` and `openat` report.
    package func makePublishedFolder(_ name: String) throws -> Directory {
        try Self.checkName(name)
        _ = try retryingSystemCall("mkdir", path: child(name)) { mkdirat(descriptor.rawValue, name, 0o755) }
        return try subdirectory(name, create: false)
    }

    /// Creates the new regular file `name` (0644 before the umask) holding `bytes`, never through a
    /// link and never over an existing file.
    ///
    /// - Throws: ``ImageCacheError`` with `EEXIST` when `name` exists, or the write's error.
    package func writePublishedFile(_ name: String, _ bytes: [UInt8]) throws {
        try Self.checkName(name)
        let raw = try retryingSystemCall("open", path: child(name)) {
            openat(descriptor.rawValue, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        }
        let file = FileDescriptor(rawValue: raw)
        defer { file.closeQuietly() }
        try bytes.withUnsafeBytes { try file.writeAll($0, at: 0, path: child(name)) }
    }
}
