import Glibc
import SystemPackage

/// An image file opened for reading with FICCore's descriptor calls; every failure is an
/// ``ImageCacheError/Code/io`` error carrying the path and `errno`.
package struct ImageFile: ~Copyable {
    /// The path it was opened with.
    let path: String
    /// Its size when it was opened.
    let size: Int
    private let descriptor: FileDescriptor

    /// Opens the regular file at `path`.
    init(path: String) throws {
        (descriptor, size) = try Self.open(path: path)
        self.path = path
    }

    /// Opens the regular file at `path` for reading: the one way the package's decoders and
    /// pyramid builder open an image file by its path. A FIFO or a device is refused without
    /// blocking (the open does not wait for a writer), a folder with its own message. The caller
    /// closes the descriptor; `size` is the file's when it was opened.
    package static func open(path: String) throws -> (descriptor: FileDescriptor, size: Int) {
        let descriptor: FileDescriptor
        do {
            // O_NONBLOCK keeps a FIFO or a device from blocking the open; it is refused below.
            descriptor = try FileDescriptor.open(atPath: path, .readOnly, options: [.nonBlocking])
        } catch {
            throw Self.failure("open", path: path, errno: (error as? ImageCacheError)?.errno ?? .ioError)
        }
        let status: Glibc.stat
        do {
            status = try descriptor.status(path: path)
        } catch {
            descriptor.closeQuietly()
            throw error
        }
        guard status.isRegularFile else {
            descriptor.closeQuietly()
            throw ImageCacheError(
                .io,
                status.isDirectory ? "The path is a directory, not an image file." : "The path is not a regular file.",
                path: path, errno: status.isDirectory ? .isDirectory : .invalidArgument
            )
        }
        descriptor.clearNonBlocking()
        return (descriptor, Int(status.st_size))
    }

    deinit {
        descriptor.closeQuietly()
    }

    /// Reads up to `buffer.count` bytes from `offset`; fewer only where the file ends.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws -> Int {
        do {
            return try descriptor.readAll(into: buffer, at: offset, path: path)
        } catch {
            throw Self.failure("read", path: path, errno: (error as? ImageCacheError)?.errno ?? .ioError)
        }
    }

    private static func failure(_ call: String, path: String, errno code: Errno) -> ImageCacheError {
        ImageCacheError(.io, "Could not \(call) the image file: \(ImageCacheError.reason(code)).", path: path, errno: code)
    }
}
