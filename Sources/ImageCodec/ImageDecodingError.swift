/// Why an image could not be decoded.
///
/// ``message`` is written for people: it says what was found and what to do about it.
public struct ImageDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The category of a decoding failure.
    public enum Kind: String, Sendable, Hashable, CaseIterable, Codable {
        /// The input has no bytes at all.
        case emptyInput
        /// The bytes are not a JPEG, PNG or WebP image (or use a feature this package cannot decode).
        case unsupportedFormat
        /// The data ends before the image does.
        case truncated
        /// The data is damaged (bad checksums, invalid entropy-coded data, inconsistent headers).
        case corruptData
        /// The image is larger than ``DecodingOptions/maximumPixelCount`` or than memory can address.
        case dimensionsTooLarge
        /// Decoding would need more memory than the configured budget allows.
        case overMemoryBudget
        /// The file could not be read.
        case io
        /// The caller passed an invalid argument.
        case invalidArgument
    }

    /// The category of the failure.
    public var kind: Kind
    /// What was found and what to do about it.
    public var message: String
    /// The file being decoded, when decoding from a file.
    public var path: String?
    /// The `errno` of a failed system call, for ``Kind-swift.enum/io`` errors.
    public var errno: Int32?

    /// Creates an error.
    public init(kind: Kind, message: String, path: String? = nil, errno: Int32? = nil) {
        self.kind = kind
        self.message = message
        self.path = path
        self.errno = errno
    }

    /// `"<kind>: <message> (<path>, errno <n>)"`.
    public var description: String {
        var text = "\(kind.rawValue): \(message)"
        switch (path, errno) {
        case let (path?, code?): text += " (\(path), errno \(code))"
        case let (path?, nil): text += " (\(path))"
        case let (nil, code?): text += " (errno \(code))"
        case (nil, nil): break
        }
        return text
    }

    /// A copy naming `path` (unless a path is already set).
    func at(path: String) -> ImageDecodingError {
        var copy = self
        if copy.path == nil { copy.path = path }
        return copy
    }
}
