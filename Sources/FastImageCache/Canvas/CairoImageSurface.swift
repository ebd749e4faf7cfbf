import CCairo

/// A cairo image surface over caller-owned memory, created without copying the pixels.
///
/// The memory must stay valid, and at least `bytesPerRow × height` bytes long, for the lifetime
/// of this object and of any cairo object that still references ``surface``. Deinitialization
/// destroys the surface, not the memory.
///
/// Formats map to cairo as `PixelFormat.bgra32Premultiplied` → `ARGB32`, `PixelFormat.bgrx32`
/// → `RGB24` and `PixelFormat.rgb565` → `RGB16_565`. `PixelFormat.gray8` is rejected: cairo's
/// only 8-bit format, `A8`, is alpha coverage, not luminance (``ImageCanvas`` draws gray8 bitmaps
/// through a scratch buffer instead).
public final class CairoImageSurface {
    /// The `cairo_surface_t*`, valid for the lifetime of this object.
    public let surface: OpaquePointer
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Distance in bytes between the starts of two rows.
    public let bytesPerRow: Int
    /// The layout of the pixels.
    public let format: PixelFormat
    /// The first byte of the pixels.
    let pixels: UnsafeMutableRawPointer
    /// An object kept alive for as long as the surface exists (the owner of the pixels, if any).
    private let owner: AnyObject?
    /// Whether deinit deallocates ``pixels`` (scratch buffers allocated by ``init(ownedScratchWidth:height:format:)``).
    private let ownsPixels: Bool

    /// Wraps `pixels` in a cairo image surface. `owner`, if given, is kept alive as long as the
    /// surface (for example the ``CachedImage`` whose mapped pixels these are).
    ///
    /// - Throws: `ImageCacheError` when the format is `PixelFormat.gray8`, the size is not positive,
    ///   `bytesPerRow` is below `cairo_format_stride_for_width` or not a multiple of 4, `pixels` is
    ///   misaligned for the format, or cairo fails to create the surface.
    public init(
        pixels: UnsafeMutableRawPointer, width: Int, height: Int, bytesPerRow: Int, format: PixelFormat,
        owner: AnyObject? = nil
    ) throws {
        let cairoFormat = try Self.cairoFormat(for: format)
        try Self.validate(
            pixels: pixels, width: width, height: height, bytesPerRow: bytesPerRow,
            format: format, cairoFormat: cairoFormat)
        self.surface = try Self.makeSurface(
            pixels: pixels, width: width, height: height, bytesPerRow: bytesPerRow, cairoFormat: cairoFormat)
        self.pixels = pixels
        self.width = width
        self.height = height
        self.bytesPerRow = bytesPerRow
        self.format = format
        self.owner = owner
        self.ownsPixels = false
    }

    /// Allocates zero-filled, 64-byte-aligned pixels at cairo's minimum stride and wraps them; the
    /// surface owns that memory and frees it on deinit.
    init(ownedScratchWidth width: Int, height: Int, format: PixelFormat) throws {
        let cairoFormat = try Self.cairoFormat(for: format)
        guard width > 0, height > 0, width <= Int(Int32.max), height <= Int(Int32.max) else {
            throw ImageCacheError(.invalidArgument, "canvas size \(width)×\(height) is not drawable")
        }
        let stride = Int(cairo_format_stride_for_width(cairoFormat, Int32(width)))
        let (byteCount, overflow) = stride.multipliedReportingOverflow(by: height)
        guard stride > 0, !overflow else {
            throw ImageCacheError(.invalidArgument, "canvas size \(width)×\(height) is too large for cairo")
        }
        let pixels = UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: 64)
        pixels.initializeMemory(as: UInt8.self, repeating: 0, count: byteCount)
        do {
            self.surface = try Self.makeSurface(
                pixels: pixels, width: width, height: height, bytesPerRow: stride, cairoFormat: cairoFormat)
        } catch {
            pixels.deallocate()
            throw error
        }
        self.pixels = pixels
        self.width = width
        self.height = height
        self.bytesPerRow = stride
        self.format = format
        self.owner = nil
        self.ownsPixels = true
    }

    deinit {
        cairo_surface_destroy(surface)
        if ownsPixels { pixels.deallocate() }
    }

    /// Makes sure cairo has written all pending drawing into the memory (`cairo_surface_flush`).
    /// Call before reading the pixels directly.
    public func flush() {
        cairo_surface_flush(surface)
    }

    /// Tells cairo the memory was changed outside cairo (`cairo_surface_mark_dirty`). Call after
    /// writing the pixels directly and before drawing into the surface again.
    public func markDirty() {
        cairo_surface_mark_dirty(surface)
    }

    /// The cairo format for `format`; throws for ``PixelFormat/gray8``.
    static func cairoFormat(for format: PixelFormat) throws -> cairo_format_t {
        switch format {
        case .bgra32Premultiplied: return CAIRO_FORMAT_ARGB32
        case .bgrx32: return CAIRO_FORMAT_RGB24
        case .rgb565: return CAIRO_FORMAT_RGB16_565
        case .gray8:
            throw ImageCacheError(.invalidArgument, "cairo cannot draw gray8 pixels as luminance (its 8-bit format A8 is alpha only)")
        }
    }

    /// Checks the size, stride and alignment that cairo requires.
    static func validate(
        pixels: UnsafeMutableRawPointer, width: Int, height: Int, bytesPerRow: Int,
        format: PixelFormat, cairoFormat: cairo_format_t
    ) throws {
        guard width > 0, height > 0, width <= Int(Int32.max), height <= Int(Int32.max) else {
            throw ImageCacheError(.invalidArgument, "surface size \(width)×\(height) is not drawable")
        }
        let minimum = Int(cairo_format_stride_for_width(cairoFormat, Int32(width)))
        guard minimum > 0 else {
            throw ImageCacheError(.invalidArgument, "surface width \(width) is too large for cairo")
        }
        guard bytesPerRow >= minimum, bytesPerRow % 4 == 0, bytesPerRow <= Int(Int32.max) else {
            throw ImageCacheError(
                .invalidArgument,
                "bytesPerRow \(bytesPerRow) must be a multiple of 4 and at least \(minimum) for \(width) \(format.rawValue) pixels")
        }
        let alignment = min(format.bytesPerPixel, 4)
        guard Int(bitPattern: pixels) % alignment == 0 else {
            throw ImageCacheError(.invalidArgument, "\(format.rawValue) pixels must start at a multiple of \(alignment) bytes")
        }
    }

    /// Creates the cairo surface and checks its status.
    private static func makeSurface(
        pixels: UnsafeMutableRawPointer, width: Int, height: Int, bytesPerRow: Int, cairoFormat: cairo_format_t
    ) throws -> OpaquePointer {
        guard
            let surface = cairo_image_surface_create_for_data(
                pixels.assumingMemoryBound(to: UInt8.self), cairoFormat, Int32(width), Int32(height), Int32(bytesPerRow))
        else {
            throw ImageCacheError(.drawingFailed, "cairo returned no surface")
        }
        let status = cairo_surface_status(surface)
        guard status == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(surface)
            throw ImageCacheError.cairo(status, while: "creating an image surface")
        }
        return surface
    }
}
