import CImageCodecSupport
import CSpng

/// One libspng decoder reading a PNG held in memory or streamed from a file, with CRC checks on,
/// image and chunk size limits set, and its large buffers (rows, zlib's window) in mapped pages.
///
/// Not thread-safe; one owner drives it.
final class PNGContext {
    /// Largest single chunk accepted, and the most memory ancillary chunks (text, ICC, EXIF) may keep.
    static let chunkSizeLimit = 64 << 20
    static let chunkCacheLimit = 64 << 20

    let pointer: OpaquePointer
    /// The stream behind a streamed context (kept alive while libspng reads from it).
    private let stream: PNGStream?

    /// A context over `bytes`, which must outlive it.
    init(bytes: UnsafeRawBufferPointer, maximumPixelCount: Int, strict: Bool) throws {
        pointer = try Self.makeContext()
        stream = nil
        do {
            try configure(maximumPixelCount: maximumPixelCount, strict: strict)
            try PNGContext.check(spng_set_png_buffer(pointer, bytes.baseAddress, bytes.count))
        } catch {
            spng_ctx_free(pointer)
            throw error
        }
    }

    /// A context reading `stream`.
    init(stream: PNGStream, maximumPixelCount: Int, strict: Bool) throws {
        pointer = try Self.makeContext()
        self.stream = stream
        do {
            try configure(maximumPixelCount: maximumPixelCount, strict: strict)
            let user = Unmanaged.passUnretained(stream).toOpaque()
            try PNGContext.check(
                spng_set_png_stream(
                    pointer,
                    { _, user, destination, length in
                        guard let user, let destination else { return Int32(SPNG_IO_ERROR.rawValue) }
                        let stream = Unmanaged<PNGStream>.fromOpaque(user).takeUnretainedValue()
                        return stream.read(into: UnsafeMutableRawBufferPointer(start: destination, count: length))
                    }, user))
        } catch {
            spng_ctx_free(pointer)
            throw error
        }
    }

    deinit {
        spng_ctx_free(pointer)
    }

    private static func makeContext() throws -> OpaquePointer {
        var allocator = spng_alloc(
            malloc_fn: fic_mapped_malloc, realloc_fn: fic_mapped_realloc,
            calloc_fn: fic_mapped_calloc, free_fn: fic_mapped_free
        )
        guard let pointer = spng_ctx_new2(&allocator, 0) else {
            throw ImageCacheError(.overMemoryBudget, "Could not allocate a PNG decoder: out of memory.")
        }
        return pointer
    }

    private func configure(maximumPixelCount: Int, strict: Bool) throws {
        let critical = Int32(SPNG_CRC_ERROR.rawValue)
        let ancillary = Int32(strict ? SPNG_CRC_ERROR.rawValue : SPNG_CRC_DISCARD.rawValue)
        let side = UInt32(clamping: min(max(maximumPixelCount, 1), Int(Int32.max)))
        try Self.check(spng_set_crc_action(pointer, critical, ancillary))
        try Self.check(spng_set_image_limits(pointer, side, side))
        try Self.check(spng_set_chunk_limits(pointer, Self.chunkSizeLimit, Self.chunkCacheLimit))
    }

    /// Throws the ``ImageCacheError`` for an spng result code other than 0.
    static func check(_ code: Int32) throws {
        guard code != 0 else { return }
        let text = String(cString: spng_strerror(code))
        let quoted = "libspng: “\(text)”"
        switch code {
        case SPNG_IO_EOF.rawValue, SPNG_IO_ERROR.rawValue, Int32(SPNG_EOF.rawValue), Int32(SPNG_EIDAT_TOO_SHORT.rawValue):
            throw ImageCacheError(
                .truncated, "The PNG data ends before the image does (\(quoted)). The file was cut short; download or copy it again.")
        case Int32(SPNG_EUSER_WIDTH.rawValue), Int32(SPNG_EUSER_HEIGHT.rawValue), Int32(SPNG_EOVERFLOW.rawValue):
            throw ImageCacheError(
                .dimensionsTooLarge,
                "The PNG is larger than the configured limit (\(quoted)); it was refused before decoding. Raise DecodingOptions.maximumPixelCount if such images are expected."
            )
        case Int32(SPNG_EMEM.rawValue), Int32(SPNG_ECHUNK_LIMITS.rawValue):
            throw ImageCacheError(.overMemoryBudget, "Decoding the PNG needs more memory than allowed (\(quoted)).")
        case Int32(SPNG_ESIGNATURE.rawValue):
            throw ImageCacheError(.unsupportedFormat, "The data is not a PNG (\(quoted)).")
        case Int32(SPNG_EINVAL.rawValue), Int32(SPNG_EBUFSIZ.rawValue):
            throw ImageCacheError(.invalidArgument, "Invalid PNG decoding request (\(quoted)).")
        default:
            throw ImageCacheError(
                .corruptData,
                "The PNG data is corrupt (\(quoted)). Re-export the image; only damaged ancillary chunks are skipped, unless strict checking is asked for."
            )
        }
    }
}
