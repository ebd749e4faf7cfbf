#if canImport(FoundationEssentials)
import FoundationEssentials  // ContiguousBytes
#else
import Foundation
#endif

/// Encoded image bytes in memory of their own: pages mapped for them when large (never a growing
/// heap array), recycled through the decoders' bounded pool, immutable once filled.
///
/// ``init(contentsOf:maximumByteCount:)`` reads a file with one `pread`, which keeps a process that
/// ingests thousands of photos flat in memory. The bytes are a private copy, so a file truncated or
/// rewritten while it is decoded cannot crash the process (as a shared mapping of it could, with
/// `SIGBUS`).
///
/// `@unchecked Sendable` for the buffer's pointer alone: the bytes are written before the object
/// is handed out and never again.
public final class ImageBytes: ContiguousBytes, @unchecked Sendable {
    /// The largest file ``init(contentsOf:maximumByteCount:)`` reads by default: 1 GiB.
    public static let defaultMaximumByteCount = 1 << 30

    /// The path the bytes were read from, or nil for copied bytes.
    public let path: String?
    /// How many bytes there are.
    public let count: Int
    private let storage: LargeBufferPool.Storage

    /// Reads the regular file at `path`.
    ///
    /// - Throws: `ImageCacheError.Code.io` (with `path` and `errno`) when the file cannot be
    ///   opened or read, or is not a regular file; `ImageCacheError.Code.overMemoryBudget` when it
    ///   is larger than `maximumByteCount` or the system refuses the memory.
    public init(contentsOf path: String, maximumByteCount: Int = ImageBytes.defaultMaximumByteCount) throws {
        let file = try ImageFile(path: path)
        guard file.size <= maximumByteCount else {
            throw ImageCacheError(
                .overMemoryBudget,
                "The image file is \(file.size) bytes, over the limit of \(maximumByteCount) bytes for one file; it was not read.",
                path: path
            )
        }
        let storage = try LargeBufferPool.allocate(byteCount: file.size, zeroed: false)
        let read = try file.read(into: UnsafeMutableRawBufferPointer(start: storage.base, count: file.size), at: 0)
        self.path = path
        self.count = read  // fewer when the file shrank meanwhile
        self.storage = storage
    }

    /// Copies `bytes`.
    ///
    /// - Throws: `ImageCacheError.Code.overMemoryBudget` when the system refuses the memory.
    public init(copying bytes: some ContiguousBytes) throws {
        let count = bytes.withUnsafeBytes { $0.count }
        let storage = try LargeBufferPool.allocate(byteCount: count, zeroed: false)
        bytes.withUnsafeBytes { source in
            if let base = source.baseAddress { storage.base.copyMemory(from: base, byteCount: source.count) }
        }
        self.path = nil
        self.count = count
        self.storage = storage
    }

    /// Takes over `count` bytes of `storage` (nil when there are none).
    init(storage: LargeBufferPool.Storage?, count: Int) throws {
        self.storage = try storage ?? LargeBufferPool.allocate(byteCount: 0, zeroed: false)
        self.path = nil
        self.count = count
    }

    /// Calls `body` with the bytes.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: storage.base, count: count))
    }
}
