import Glibc
import SystemPackage

/// An image file opened for reading with FICCore's descriptor calls; every failure is an
/// ``ImageCacheError/Code/io`` error carrying the path and `errno`.
struct ImageFile: ~Copyable {
    /// The path it was opened with.
    let path: String
    /// Its size when it was opened.
    let size: Int
    private let descriptor: FileDescriptor

    /// Opens the regular file at `path`.
    init(path: String) throws {
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.open(atPath: path, .readOnly)
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
            throw ImageCacheError(.io,
                status.isDirectory ? "The path is a directory, not an image file." : "The path is not a regular file.",
                path: path, errno: status.isDirectory ? .isDirectory : .invalidArgument
            )
        }
        self.path = path
        self.size = Int(status.st_size)
        self.descriptor = descriptor
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
