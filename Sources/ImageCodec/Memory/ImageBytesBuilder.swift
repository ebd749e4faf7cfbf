/// Gathers encoded image bytes that arrive in pieces (a download) into memory of their own, as
/// ``ImageBytes`` does for a file: pages mapped from the decoders' bounded pool once large, never a
/// growing heap array, so that a process which downloads thousands of photos stays flat in memory.
///
/// Not thread-safe: one task appends, then calls ``finish()`` once.
public final class ImageBytesBuilder {
    private let buffer: GrowableBytes

    /// An empty builder. With `expectedCount` (a download's announced length), the first
    /// allocation holds that many bytes, so that a body of that length is never copied to grow.
    ///
    /// - Throws: `ImageCacheError.Code.overMemoryBudget` when the system refuses the memory.
    public init(expectedCount: Int? = nil) throws {
        buffer = try GrowableBytes(reserving: max(0, expectedCount ?? 0))
    }

    /// Bytes appended so far.
    public var count: Int { buffer.count }

    /// Appends `bytes`.
    ///
    /// - Throws: `ImageCacheError.Code.overMemoryBudget` when the system refuses the memory.
    public func append(_ bytes: UnsafeRawBufferPointer) throws {
        try buffer.append(bytes)
    }

    /// Appends `bytes`.
    ///
    /// - Throws: `ImageCacheError.Code.overMemoryBudget` when the system refuses the memory.
    public func append(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try buffer.append($0) }
    }

    /// The bytes appended, without a copy; the builder is empty afterwards.
    ///
    /// - Throws: `ImageCacheError.Code.overMemoryBudget` when nothing was appended and the system
    ///   refuses even the smallest buffer.
    public func finish() throws -> ImageBytes {
        let (storage, count) = buffer.takeStorage()
        return try ImageBytes(storage: storage, count: count)
    }
}
