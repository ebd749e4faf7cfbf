#if Tool
import CCairo
import FastImageCache
import ImageCodec

/// The demo's screen: a bitmap (16-bit RGB565 or 32-bit BGRX) into which each frame's visible
/// cells are composited with cairo, as a window server would; cells in another format are
/// converted as they are drawn.
package final class FrameBuffer {
    package let width: Int
    package let height: Int
    package let bytesPerRow: Int
    package let format: PixelFormat
    package let pixels: UnsafeMutableRawPointer
    private let surface: CairoImageSurface
    private let context: OpaquePointer

    package init(width: Int, height: Int, format: PixelFormat = .bgrx32) throws {
        self.width = width
        self.height = height
        self.format = format
        bytesPerRow = (width * format.bytesPerPixel + 63) / 64 * 64
        pixels = UnsafeMutableRawPointer.allocate(byteCount: bytesPerRow * height, alignment: 64)
        pixels.initializeMemory(as: UInt8.self, repeating: 0, count: bytesPerRow * height)
        surface = try CairoImageSurface(pixels: pixels, width: width, height: height, bytesPerRow: bytesPerRow, format: format)
        context = cairo_create(surface.surface)
    }

    deinit {
        cairo_destroy(context)
        pixels.deallocate()
    }

    /// Composites `cell` with its top-left corner at (`x`, `y`), clipped to the screen.
    package func draw(_ cell: CairoImageSurface, x: Int, y: Int) {
        cairo_set_source_surface(context, cell.surface, Double(x), Double(y))
        cairo_rectangle(context, Double(x), Double(y), Double(cell.width), Double(cell.height))
        cairo_fill(context)
    }

    /// Fills a rectangle with the background gray.
    package func fillBackground(x: Int, y: Int, width: Int, height: Int) {
        cairo_set_source_rgb(context, 0.12, 0.12, 0.12)
        cairo_rectangle(context, Double(x), Double(y), Double(width), Double(height))
        cairo_fill(context)
    }

    /// Finishes the frame: every pixel is in memory afterwards.
    package func present() {
        surface.flush()
    }

    /// Writes the screen as a PNG file.
    package func writePNG(to path: String) throws {
        present()
        try PNGEncoder.write(pixels: pixels, width: width, height: height, bytesPerRow: bytesPerRow, format: format, to: path)
    }
}
#endif
