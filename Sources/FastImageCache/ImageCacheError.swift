/// The one error type of the cache: what went wrong, and the cause — format, file, errno and
/// the underlying error of the storage engine, the decoder or the provider.
public struct ImageCacheError: Error, Sendable, CustomStringConvertible {
    /// The kinds of failure.
    public enum Kind: String, Sendable, Hashable {
        /// A format definition (or a namespace) is invalid.
        case invalidFormat
        /// No format of that name is configured.
        case unknownFormat
        /// Reading or writing a cache file failed.
        case storage
        /// The disk is full.
        case noSpace
        /// Every slot of the format's table holds an image in use; nothing could be evicted.
        case tableFull
        /// Another process or cache object has the cache open.
        case inUse
        /// There is no provider, the entity has no source URL, or the provider failed.
        case sourceUnavailable
        /// The source image could not be decoded (corrupt, truncated, unsupported, too large).
        case decodingFailed
        /// The entity's draw method failed, or the canvas could not be made.
        case drawingFailed
        /// The request was cancelled.
        case cancelled
        /// The cache was closed.
        case closed
    }

    /// What went wrong.
    public var kind: Kind
    /// A sentence saying what went wrong and what to do.
    public var message: String
    /// The format involved, if any.
    public var format: String?
    /// The file involved, if any.
    public var file: String?
    /// The `errno` of a failed system call, if any.
    public var errno: Int32?
    /// The error that caused this one (an ``ImageTableError``, an ``ImageDecodingError``, a provider's error).
    public var underlying: (any Error)?

    /// Creates an error.
    public init(_ kind: Kind, _ message: String, format: String? = nil, file: String? = nil, errno: Int32? = nil, underlying: (any Error)? = nil) {
        self.kind = kind
        self.message = message
        self.format = format
        self.file = file
        self.errno = errno
        self.underlying = underlying
    }

    /// A one-line description including the cause.
    public var description: String {
        var s = message
        if let format { s = "format '\(format)': " + s }
        if let underlying { s += ": \(underlying)" } else {
            if let file { s += " (\(file))" }
            if let errno { s += " [errno \(errno)]" }
        }
        return s
    }

    /// Wraps a storage engine error.
    static func storage(_ error: ImageTableError, format: String?) -> ImageCacheError {
        let kind: Kind
        switch error.kind {
        case .noSpace: kind = .noSpace
        case .tableFull: kind = .tableFull
        case .inUse: kind = .inUse
        case .closed: kind = .closed
        case .io, .invalidConfiguration: kind = .storage
        }
        return ImageCacheError(kind, "the image table failed", format: format, file: error.path, errno: error.errno, underlying: error)
    }

    /// Wraps any error thrown while making an image.
    static func wrap(_ error: any Error, format: String?, kind: Kind) -> ImageCacheError {
        if var e = error as? ImageCacheError {
            if e.format == nil { e.format = format }
            return e
        }
        if let e = error as? ImageTableError { return storage(e, format: format) }
        if let e = error as? ImageDecodingError {
            return ImageCacheError(.decodingFailed, "the source image could not be decoded", format: format, file: e.path, errno: e.errno, underlying: e)
        }
        if error is CancellationError { return ImageCacheError(.cancelled, "the request was cancelled", format: format) }
        return ImageCacheError(kind, kind == .drawingFailed ? "drawing the image failed" : "the source image is unavailable", format: format, underlying: error)
    }
}
