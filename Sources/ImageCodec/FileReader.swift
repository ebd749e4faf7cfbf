import Glibc

/// Reads whole files with POSIX calls, reporting failures as ``ImageCacheError/Code/io``
/// errors that carry the path and `errno`.
enum FileReader {
    /// The contents of the regular file at `path`.
    static func readAll(path: String) throws -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure("open", path: path) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw failure("stat", path: path) }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            let isDirectory = (status.st_mode & S_IFMT) == S_IFDIR
            throw ImageCacheError(.io,
                isDirectory ? "The path is a directory, not an image file." : "The path is not a regular file.",
                path: path, errno: isDirectory ? EISDIR : EINVAL
            )
        }
        var bytes = [UInt8]()
        bytes.reserveCapacity(Int(status.st_size))
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure("read", path: path)
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return bytes
    }

    private static func failure(_ call: String, path: String) -> ImageCacheError {
        let code = errno
        let reason = String(cString: strerror(code))
        return ImageCacheError(.io, "Could not \(call) the image file: \(reason).", path: path, errno: code)
    }
}
