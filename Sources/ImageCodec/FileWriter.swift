import Glibc

/// Writes whole files with POSIX calls, reporting failures as ``ImageCacheError/Code/io``
/// errors that carry the path and `errno`.
enum FileWriter {
    /// Creates or truncates the file at `path` and writes `bytes` to it.
    static func write(_ bytes: [UInt8], to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw failure("create", path: path) }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                Glibc.write(descriptor, buffer.baseAddress! + written, buffer.count - written)
            }
            if count < 0 {
                if errno == EINTR { continue }
                let error = failure("write", path: path)
                close(descriptor)
                throw error
            }
            written += count
        }
        guard close(descriptor) == 0 else { throw failure("close", path: path) }
    }

    private static func failure(_ call: String, path: String) -> ImageCacheError {
        let code = errno
        return ImageCacheError(.io, "Could not \(call) the file: \(String(cString: strerror(code))).", path: path, errno: .init(rawValue: code))
    }
}
