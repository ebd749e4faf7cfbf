#if Tool
import CCairo
import FastImageCache

/// Draws into the window's frame with cairo: images, rectangles and the overlay's text.
final class FrameCanvas {
    /// Width and height in pixels.
    let width: Int
    let height: Int
    private let target: CairoImageSurface
    private let context: OpaquePointer

    /// Draws into `target`, the window's frame.
    init(_ target: CairoImageSurface) {
        self.target = target
        width = target.width
        height = target.height
        context = cairo_create(target.surface)
        cairo_select_font_face(context, "DejaVu Sans Mono", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL)
        cairo_set_font_size(context, 13)
    }

    deinit { cairo_destroy(context) }

    /// Fills a rectangle with a gray level (0…1).
    func fill(x: Double, y: Double, width: Double, height: Double, gray: Double) {
        cairo_set_operator(context, CAIRO_OPERATOR_SOURCE)
        cairo_set_source_rgb(context, gray, gray, gray)
        cairo_rectangle(context, x, y, width, height)
        cairo_fill(context)
    }

    /// Fills a rectangle with a colour (each channel 0…1).
    func fill(x: Double, y: Double, width: Double, height: Double, red: Double, green: Double, blue: Double) {
        cairo_set_operator(context, CAIRO_OPERATOR_SOURCE)
        cairo_set_source_rgb(context, red, green, blue)
        cairo_rectangle(context, x, y, width, height)
        cairo_fill(context)
    }

    /// Fills the whole frame with a gray level.
    func clear(gray: Double) {
        fill(x: 0, y: 0, width: Double(width), height: Double(height), gray: gray)
    }

    /// Copies `image` with its top-left corner at (`x`, `y`), unscaled, clipped to the frame and
    /// to `clipHeight` rows from `clipTop` when given. Opaque images are copied as they are;
    /// images with alpha are composited over what is there.
    func draw(_ image: CairoImageSurface, x: Int, y: Int, opaque: Bool) {
        cairo_set_operator(context, opaque ? CAIRO_OPERATOR_SOURCE : CAIRO_OPERATOR_OVER)
        cairo_set_source_surface(context, image.surface, Double(x), Double(y))
        cairo_rectangle(context, Double(x), Double(y), Double(image.width), Double(image.height))
        cairo_fill(context)
    }

    /// Draws the part (`sx`, `sy`, `sw`, `sh`) of `image` into the frame rectangle (`dx`, `dy`,
    /// `dw`, `dh`), scaled (bilinear when `smooth`, nearest otherwise); copied when `opaque`,
    /// composited over what is there otherwise.
    func draw(
        _ image: CairoImageSurface, source sx: Double, _ sy: Double, _ sw: Double, _ sh: Double,
        into dx: Double, _ dy: Double, _ dw: Double, _ dh: Double, smooth: Bool, opaque: Bool = true
    ) {
        guard sw > 0, sh > 0, dw > 0, dh > 0 else { return }
        cairo_save(context)
        cairo_set_operator(context, opaque ? CAIRO_OPERATOR_SOURCE : CAIRO_OPERATOR_OVER)
        cairo_rectangle(context, dx, dy, dw, dh)
        cairo_clip(context)
        cairo_translate(context, dx, dy)
        cairo_scale(context, dw / sw, dh / sh)
        cairo_set_source_surface(context, image.surface, -sx, -sy)
        let pattern = cairo_get_source(context)
        cairo_pattern_set_filter(pattern, smooth ? CAIRO_FILTER_BILINEAR : CAIRO_FILTER_NEAREST)
        cairo_pattern_set_extend(pattern, CAIRO_EXTEND_PAD)
        cairo_paint(context)
        cairo_restore(context)
    }

    /// Draws lines of text on a translucent dark panel at the top-left corner.
    func panel(_ lines: [String], x: Double = 8, y: Double = 8) {
        guard !lines.isEmpty else { return }
        let lineHeight = 17.0
        var widest = 0.0
        for line in lines {
            var extents = cairo_text_extents_t()
            cairo_text_extents(context, line, &extents)
            widest = max(widest, extents.x_advance)
        }
        cairo_set_operator(context, CAIRO_OPERATOR_OVER)
        cairo_set_source_rgba(context, 0, 0, 0, 0.7)
        cairo_rectangle(context, x, y, widest + 16, Double(lines.count) * lineHeight + 10)
        cairo_fill(context)
        cairo_set_source_rgb(context, 0.95, 0.95, 0.95)
        for (i, line) in lines.enumerated() {
            cairo_move_to(context, x + 8, y + 5 + Double(i + 1) * lineHeight - 4)
            cairo_show_text(context, line)
        }
    }

    /// Draws a centred line of text (for messages such as "building the pyramid …").
    func centredText(_ text: String, y: Double) {
        var extents = cairo_text_extents_t()
        cairo_text_extents(context, text, &extents)
        cairo_set_operator(context, CAIRO_OPERATOR_OVER)
        cairo_set_source_rgb(context, 0.9, 0.9, 0.9)
        cairo_move_to(context, (Double(width) - extents.x_advance) / 2, y)
        cairo_show_text(context, text)
    }

    /// Outlines a rectangle in a gray level (placeholders).
    func outline(x: Double, y: Double, width: Double, height: Double, gray: Double) {
        cairo_set_operator(context, CAIRO_OPERATOR_SOURCE)
        cairo_set_source_rgb(context, gray, gray, gray)
        cairo_set_line_width(context, 1)
        cairo_rectangle(context, x + 0.5, y + 0.5, width - 1, height - 1)
        cairo_stroke(context)
    }

    /// Finishes cairo's work on the frame.
    func flush() { target.flush() }
}
#endif
