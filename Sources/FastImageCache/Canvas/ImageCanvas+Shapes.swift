import CCairo
import Foundation

extension ImageCanvas {
    /// Replaces every pixel inside the current clip with transparent black: transparent for
    /// `PixelFormat.bgra32Premultiplied`, opaque black for the formats without alpha.
    public func clear() {
        clear(to: .clear)
    }

    /// Replaces every pixel inside the current clip with `color`, without blending.
    ///
    /// Formats without alpha store `color` composited over black.
    public func clear(to color: CanvasColor) {
        drawingOperation { context in
            cairo_set_operator(context, CAIRO_OPERATOR_SOURCE)
            Self.setSource(color, on: context)
            cairo_paint(context)
        }
    }

    /// Blends `color` over the pixels inside `rect` (in points).
    public func fill(_ rect: CGRect, color: CanvasColor) {
        fill(.rect(rect), color: color)
    }

    /// Blends `color` over the pixels inside `path` (non-zero winding rule, antialiased).
    public func fill(_ path: CanvasPath, color: CanvasColor) {
        drawingOperation { context in
            path.append(to: context)
            Self.setSource(color, on: context)
            cairo_fill(context)
        }
    }

    /// Blends `color` along `path`, with a line `lineWidth` points wide centred on it (miter joins,
    /// butt caps).
    public func stroke(_ path: CanvasPath, color: CanvasColor, lineWidth: CGFloat) {
        drawingOperation { context in
            path.append(to: context)
            Self.setSource(color, on: context)
            cairo_set_line_width(context, Double(lineWidth))
            cairo_stroke(context)
        }
    }

    /// Intersects the clip with `rect` (in points). Use ``withSavedState(_:)`` to end the clip.
    public func clip(to rect: CGRect) {
        clip(to: .rect(rect))
    }

    /// Intersects the clip with `path` (non-zero winding rule, antialiased).
    /// Use ``withSavedState(_:)`` to end the clip.
    public func clip(to path: CanvasPath) {
        cairo_new_path(context)
        path.append(to: context)
        cairo_clip(context)
    }

    /// Intersects the clip with `rect` with circular corners of `cornerRadius` points.
    /// Use ``withSavedState(_:)`` to end the clip.
    public func clip(toRoundedRect rect: CGRect, cornerRadius: CGFloat) {
        clip(to: .roundedRect(rect, cornerRadius: cornerRadius))
    }

    /// Sets `color`, clamped to `0...1`, as the context's source.
    static func setSource(_ color: CanvasColor, on context: OpaquePointer) {
        func clamped(_ value: Double) -> Double { value.isNaN ? 0 : min(max(value, 0), 1) }
        cairo_set_source_rgba(
            context, clamped(color.red), clamped(color.green), clamped(color.blue), clamped(color.alpha))
    }
}
