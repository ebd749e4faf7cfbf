import FICCore
import Glibc
import SystemPackage

/// Where a pyramidal TIFF's bytes come from: a file, memory, or the ranges of a remote file fetched
/// so far (``PyramidTIFFRanges``). Readers ask for few, large ranges (the first 64 KiB, then what
/// the IFDs need beyond it, then one range per tile).
public protocol PyramidTIFFByteSource: Sendable {
    /// The total size in bytes.
    var size: Int { get }
    /// The `count` bytes at `offset` (the caller keeps `offset + count <= size`).
    func read(offset: Int, count: Int) throws -> [UInt8]
}

/// A pyramidal TIFF in memory.
public struct PyramidTIFFMemorySource: PyramidTIFFByteSource {
    /// The file's bytes.
    public let bytes: [UInt8]

    /// A source over `bytes`.
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The number of bytes.
    public var size: Int { bytes.count }

    /// A copy of the range; `.truncated` when it passes the end.
    public func read(offset: Int, count: Int) throws -> [UInt8] {
        guard offset >= 0, count >= 0, offset <= bytes.count, count <= bytes.count - offset else {
            throw ImageCacheError(.truncated, "bytes \(offset)+\(count) lie past the end of the \(bytes.count)-byte pyramidal TIFF")
        }
        return Array(bytes[offset..<(offset + count)])
    }
}

/// A pyramidal TIFF in a file, read with `pread`. Closes the file when released.
public final class PyramidTIFFFileSource: PyramidTIFFByteSource {
    /// The file's path.
    public let path: String
    /// The file's size when opened.
    public let size: Int
    private let file: FileDescriptor

    /// Opens the file at `path`.
    ///
    /// - Throws: the `.system` error of `open` or `fstat`; `.unsafePath` for what is not a
    ///   regular file.
    public convenience init(path: String) throws {
        try self.init(file: FileDescriptor.open(atPath: path, .readOnly), path: path)
    }

    /// Takes over `file`, already open at `path` (a folder's `openFile`, which follows no link),
    /// and closes it when released (or at once when this throws).
    ///
    /// - Throws: the `.system` error of `fstat`; `.unsafePath` for what is not a regular file.
    package init(file: FileDescriptor, path: String) throws {
        self.path = path
        self.file = file
        do {
            let status = try file.status(path: path)
            guard status.isRegularFile else {
                throw ImageCacheError(.unsafePath, "a pyramidal TIFF must be a regular file", path: path)
            }
            size = Int(status.st_size)
        } catch {
            file.closeQuietly()
            throw error
        }
    }

    /// The file's status now (its change time and inode tell one file from the next).
    package func status() throws -> Glibc.stat { try file.status(path: path) }

    /// Takes a `flock` lock on the file, held until the source is released; see
    /// ``FileDescriptor/lock(_:wait:path:)``.
    package func lock(_ kind: FileDescriptor.LockKind, wait: Bool) throws -> Bool {
        try file.lock(kind, wait: wait, path: path)
    }

    deinit { file.closeQuietly() }

    /// The range's bytes; `.truncated` when the file ends first (it was cut after opening).
    public func read(offset: Int, count: Int) throws -> [UInt8] {
        guard offset >= 0, count >= 0 else {
            throw ImageCacheError(.invalidArgument, "cannot read \(count) bytes at \(offset)", path: path)
        }
        var done = 0
        let bytes = try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            done = try file.readAll(into: UnsafeMutableRawBufferPointer(buffer), at: offset, path: path)
            initialized = done
        }
        guard done == count else {
            throw ImageCacheError(.truncated, "the pyramidal TIFF ends at \(offset + done), before byte \(offset + count)", path: path)
        }
        return bytes
    }
}
