import Glibc
import SystemPackage

/// The one error type of the package: what went wrong, the file or URL it concerns, the `errno`
/// of the failed system call, and the error that caused it.
///
/// Compare ``code`` with the static codes of ``Code``; new codes may be added in later versions,
/// so a `switch` over codes needs a `default` case.
///
/// ```swift
/// do { try cache.setImage(photo, for: entity, format: "thumb") }
/// catch let error as ImageCacheError where error.code == .tableFull { … }
/// ```
public struct ImageCacheError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure an error is. An open set of named values, compared with `==`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's name, as printed.
        public let name: String

        package init(_ name: String) { self.name = name }

        /// The code's name.
        public var description: String { name }

        // MARK: Files and the system

        /// A system call failed; ``ImageCacheError/errno`` says why.
        public static let io = Code("io")
        /// The disk (or quota) is full.
        public static let noSpace = Code("noSpace")
        /// The file system is read-only, or the file may not be written; reading still works.
        public static let readOnly = Code("readOnly")
        /// A path is a symbolic link, or is not the kind of file expected, and was not followed.
        public static let unsafePath = Code("unsafePath")

        // MARK: The storage engine

        /// Every slot of a table at its maximum count holds an image in use or being written.
        public static let tableFull = Code("tableFull")
        /// Another process (or another cache or table object) has the cache or table open.
        public static let inUse = Code("inUse")
        /// The cache or table was closed.
        public static let closed = Code("closed")
        /// A table geometry or format cannot be stored (a zero or absurd size, too many slots).
        public static let invalidConfiguration = Code("invalidConfiguration")
        /// Another process has the table open with another definition of its format; the
        /// message names each difference. Nothing is rebuilt under the processes using it.
        public static let formatConflict = Code("formatConflict")

        // MARK: The cache

        /// A format definition or a namespace is invalid.
        public static let invalidFormat = Code("invalidFormat")
        /// No format of that name is configured.
        public static let unknownFormat = Code("unknownFormat")
        /// There is no provider, the entity has no source URL, or the provider failed.
        public static let sourceUnavailable = Code("sourceUnavailable")
        /// The source image could not be decoded; ``ImageCacheError/underlying`` says why.
        public static let decodingFailed = Code("decodingFailed")
        /// Drawing the image failed (the entity's draw method, or cairo); nothing was stored.
        public static let drawingFailed = Code("drawingFailed")
        /// The request was cancelled.
        public static let cancelled = Code("cancelled")

        // MARK: Decoding

        /// The input has no bytes at all.
        public static let emptyInput = Code("emptyInput")
        /// The bytes are not an image of a format the package decodes (JPEG, PNG, WebP, HEIC, AVIF, JPEG XL, GIF, TIFF), or use a feature that cannot be decoded.
        public static let unsupportedFormat = Code("unsupportedFormat")
        /// The data ends before the image does (for example an incomplete download).
        public static let truncated = Code("truncated")
        /// The data is damaged (bad checksums, invalid entropy-coded data, inconsistent headers).
        public static let corruptData = Code("corruptData")
        /// The image is larger than the configured pixel limit or than memory can address.
        public static let dimensionsTooLarge = Code("dimensionsTooLarge")
        /// Decoding would need more memory than the configured budget allows.
        public static let overMemoryBudget = Code("overMemoryBudget")
        /// The caller passed an invalid argument.
        public static let invalidArgument = Code("invalidArgument")
        /// A shared library a feature loads when first used (the viewer's SDL2) is missing or
        /// lacks a function; the message names it.
        public static let libraryUnavailable = Code("libraryUnavailable")
    }

    /// What kind of failure this is.
    public var code: Code
    /// A sentence saying what went wrong and, where it helps, what to do.
    public var message: String
    /// The file (or URL) involved, if any.
    public var path: String?
    /// The `errno` of the failed system call, if any, typed: compare it with `Errno`'s named
    /// values (`error.errno == .noSuchFileOrDirectory`).
    public var errno: Errno?
    /// The cache format involved, if any.
    public var format: String?
    /// The error that caused this one, if any.
    public var underlying: (any Error)?

    /// Creates an error.
    public init(
        _ code: Code, _ message: String, path: String? = nil, errno: Errno? = nil, format: String? = nil, underlying: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.path = path
        self.errno = errno
        self.format = format
        self.underlying = underlying
    }

    /// One line: the format, the message, the file, the system's reason with its `errno`, and the
    /// cause. A file or `errno` that the cause already shows is not repeated.
    public var description: String {
        var s = ""
        if let format { s += "format '\(format)': " }
        s += message
        let inner = underlying as? ImageCacheError
        if let path, inner?.path != path { s += " (\(path))" }
        if let errno, inner?.errno != errno { s += ": \(Self.reason(errno)) [errno \(errno.rawValue)]" }
        if let underlying { s += ": \(underlying)" }
        return s
    }

    /// The system's text for `errno` (`strerror`).
    package static func reason(_ errno: Errno) -> String {
        String(cString: strerror(errno.rawValue))
    }

    /// The error for a failed system call `call` on `path`: `.noSpace` for a full disk or quota,
    /// `.readOnly` for a read-only file system or a refused write, `.unsafePath` for a link met
    /// where none may be followed, `.io` otherwise.
    ///
    /// This is the one place where an `errno` becomes a code and a message: FICCore's wrappers of
    /// system calls (and of the C helpers that make them) all report through it.
    package static func system(_ call: String, path: String?, errno e: Errno) -> ImageCacheError {
        switch e {
        case .noSpace, .diskQuotaExceeded:
            return ImageCacheError(
                .noSpace, "\(call) failed: the disk is full; free some space or lower the maximum counts", path: path, errno: e)
        case .readOnlyFileSystem:
            return ImageCacheError(.readOnly, "\(call) failed: the file system is read-only", path: path, errno: e)
        case .tooManySymbolicLinkLevels:
            return ImageCacheError(.unsafePath, "\(call) refused: the path is a symbolic link, which is not followed", path: path, errno: e)
        default:
            return ImageCacheError(.io, "\(call) failed", path: path, errno: e)
        }
    }

    /// A copy naming `path` and `format` where they are not set yet.
    package func adding(path: String? = nil, format: String? = nil) -> ImageCacheError {
        var copy = self
        if copy.path == nil { copy.path = path }
        if copy.format == nil { copy.format = format }
        return copy
    }
}

extension ImageCacheError {
    /// `error` as an ``ImageCacheError``: itself when it is one, otherwise an `.io` error caused by it.
    package static func adopting(_ error: any Error) -> ImageCacheError {
        (error as? ImageCacheError) ?? ImageCacheError(.io, "an unexpected error occurred", underlying: error)
    }
}
