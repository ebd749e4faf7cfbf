import CCairo
import Foundation

/// Draws into a bitmap in place, with cairo.
///
/// The origin is the top-left corner, y points down, and all coordinates and lengths are in
/// points: one point covers ``scale`` pixels in each direction. `PixelFormat.bgra32Premultiplied`,
/// `PixelFormat.bgrx32` and `PixelFormat.rgb565` bitmaps are drawn into directly, without an
/// intermediate buffer. `PixelFormat.gray8` bitmaps, which cairo cannot draw as luminance, are
/// drawn through an opaque `RGB24` scratch buffer that ``finish()`` converts to luminance.
///
/// Drawing methods do not throw: like cairo, the canvas remembers its first error, which
/// ``checkStatus()`` reports. Call ``finish()`` before reading the pixels. The memory must stay
/// valid for the canvas's lifetime; the canvas is meant to be used by one thread, within one draw call.
public final class ImageCanvas {
    /// The canvas size in points (pixel size divided by ``scale``).
    public let size: CGSize
    /// Pixels per point.
    public let scale: CGFloat
    /// The layout of the target pixels.
    public let pixelFormat: PixelFormat

    /// The surface cairo draws into: the caller's memory, or the scratch buffer for gray8.
    let drawingSurface: CairoImageSurface
    /// The `cairo_t*`, with its matrix scaled to points.
    let context: OpaquePointer
    /// The caller's gray8 memory, when drawing goes through the scratch buffer.
    private let grayTarget: (pixels: UnsafeMutableRawPointer, bytesPerRow: Int)?
    /// Whether the scratch buffer holds drawing that ``finish()`` has not converted yet.
    private var hasUnconvertedDrawing = false
    /// The first error met while drawing.
    private var firstError: ImageCacheError?

    /// Creates a canvas over `pixels`, which must hold `pixelHeight` rows of `bytesPerRow` bytes.
    ///
    /// The existing pixels are kept: drawing composites over them. For `PixelFormat.gray8` they
    /// are copied into the scratch buffer here.
    ///
    /// - Throws: `ImageCacheError` when the size is not positive, `scale` is not positive and finite,
    ///   `bytesPerRow` is below cairo's stride for the width or not a multiple of 4, the memory is
    ///   misaligned for the format, or cairo fails.
    public init(
        pixels: UnsafeMutableRawPointer, pixelWidth: Int, pixelHeight: Int, bytesPerRow: Int,
        pixelFormat: PixelFormat, scale: CGFloat
    ) throws {
        guard scale > 0, scale.isFinite else {
            throw ImageCacheError(.invalidArgument, "canvas scale \(scale) must be positive and finite")
        }
        let surface: CairoImageSurface
        if pixelFormat == .gray8 {
            try CairoImageSurface.validate(
                pixels: pixels, width: pixelWidth, height: pixelHeight,
                bytesPerRow: bytesPerRow, format: .gray8, cairoFormat: CAIRO_FORMAT_A8)
            surface = try CairoImageSurface(ownedScratchWidth: pixelWidth, height: pixelHeight, format: .bgrx32)
            Gray8Conversion.expand(
                gray: pixels, grayBytesPerRow: bytesPerRow,
                into: surface.pixels, rgbBytesPerRow: surface.bytesPerRow, width: pixelWidth, height: pixelHeight)
            surface.markDirty()
            grayTarget = (pixels, bytesPerRow)
        } else {
            surface = try CairoImageSurface(
                pixels: pixels, width: pixelWidth, height: pixelHeight,
                bytesPerRow: bytesPerRow, format: pixelFormat)
            grayTarget = nil
        }
        guard let context = cairo_create(surface.surface) else {
            throw ImageCacheError(.drawingFailed, "cairo returned no context")
        }
        let status = cairo_status(context)
        guard status == CAIRO_STATUS_SUCCESS else {
            cairo_destroy(context)
            throw ImageCacheError.cairo(status, while: "creating a context")
        }
        cairo_scale(context, Double(scale), Double(scale))
        self.context = context
        self.drawingSurface = surface
        self.scale = scale
        self.pixelFormat = pixelFormat
        self.size = CGSize(width: CGFloat(pixelWidth) / scale, height: CGFloat(pixelHeight) / scale)
    }

    deinit {
        cairo_destroy(context)
    }

    /// Reports the first error met while drawing (for example an image cairo could not wrap) or
    /// cairo's error status.
    ///
    /// - Throws: `ImageCacheError` describing the first error.
    public func checkStatus() throws {
        if let firstError { throw firstError }
        let status = cairo_status(context)
        guard status == CAIRO_STATUS_SUCCESS else { throw ImageCacheError.cairo(status, while: "drawing") }
    }

    /// Writes all drawing into the target memory: flushes cairo and, for `PixelFormat.gray8`,
    /// converts the scratch buffer into the target.
    ///
    /// Gray8 conversion takes each pixel's BT.601 luminance with integer weights
    /// (`(77 R + 150 G + 29 B + 128) >> 8`). The scratch buffer is opaque, so anything drawn
    /// with transparency ends up composited over black (and ``clear()`` gives black). Row padding
    /// of the target is never written. Calling `finish()` again without drawing in between changes
    /// nothing; drawing may continue after it, followed by another `finish()`.
    public func finish() {
        drawingSurface.flush()
        guard let grayTarget, hasUnconvertedDrawing else { return }
        Gray8Conversion.reduce(
            rgb: drawingSurface.pixels, rgbBytesPerRow: drawingSurface.bytesPerRow,
            into: grayTarget.pixels, grayBytesPerRow: grayTarget.bytesPerRow,
            width: drawingSurface.width, height: drawingSurface.height)
        hasUnconvertedDrawing = false
    }

    /// Runs `body` between `cairo_save` and `cairo_restore`, so clips set inside it end with it.
    public func withSavedState<R>(_ body: () throws -> R) rethrows -> R {
        cairo_save(context)
        defer { cairo_restore(context) }
        return try body()
    }

    /// Calls `body` with the `cairo_t*`, for drawing this type has no method for.
    ///
    /// The context's matrix is already scaled, so `body` works in points. Its path starts empty,
    /// and its state (matrix, clip, source, operator…) is saved before and restored after `body`.
    public func withCairoContext<R>(_ body: (OpaquePointer) throws -> R) rethrows -> R {
        cairo_save(context)
        cairo_new_path(context)
        defer {
            cairo_new_path(context)
            cairo_restore(context)
            hasUnconvertedDrawing = true
        }
        return try body(context)
    }

    /// Runs one drawing operation with saved state and an empty path.
    func drawingOperation(_ body: (OpaquePointer) -> Void) {
        cairo_save(context)
        cairo_new_path(context)
        body(context)
        cairo_new_path(context)
        cairo_restore(context)
        hasUnconvertedDrawing = true
    }

    /// Remembers `error` if it is the first one.
    func record(_ error: any Error) {
        guard firstError == nil else { return }
        firstError =
            error as? ImageCacheError
            ?? ImageCacheError(.drawingFailed, "drawing failed: \(error)")
    }
}
