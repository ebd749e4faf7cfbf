#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An error from the storage engine, carrying its cause: what failed, on which file, and the errno.
public struct ImageTableError: Error, Sendable, CustomStringConvertible {
    /// The kinds of failure.
    public enum Kind: String, Sendable, Hashable {
        /// A system call failed; ``ImageTableError/errno`` says why.
        case io
        /// The disk is full (`ENOSPC`) or the file system refused to grow the table.
        case noSpace
        /// Every slot of a table at its maximum count is held by an image in use or being written,
        /// so nothing can be evicted. The insert did not happen; nothing else changed.
        case tableFull
        /// Another process (or another table object) has the table file open.
        case inUse
        /// The table was closed.
        case closed
        /// The configuration cannot describe a table (for example a zero size).
        case invalidConfiguration
    }

    /// What went wrong.
    public var kind: Kind
    /// A sentence saying what went wrong and, where it helps, what to do.
    public var message: String
    /// The file involved, if any.
    public var path: String?
    /// The `errno` of the failing system call, if any.
    public var errno: Int32?

    /// Creates an error.
    public init(_ kind: Kind, _ message: String, path: String? = nil, errno: Int32? = nil) {
        self.kind = kind
        self.message = message
        self.path = path
        self.errno = errno
    }

    /// A one-line description with the file and the system error.
    public var description: String {
        var s = message
        if let path { s += " (\(path))" }
        if let errno { s += ": " + String(cString: strerror(errno)) + " [errno \(errno)]" }
        return s
    }

    static func system(_ call: String, path: String?, errno e: Int32) -> ImageTableError {
        if e == ENOSPC || e == EDQUOT {
            return ImageTableError(.noSpace, "\(call) failed: the disk is full; free some space or lower the format's maximum count", path: path, errno: e)
        }
        return ImageTableError(.io, "\(call) failed", path: path, errno: e)
    }
}
