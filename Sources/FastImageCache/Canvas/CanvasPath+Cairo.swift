import CCairo
import Foundation

extension CanvasPath {
    /// Appends this path to the current path of `context` (a `cairo_t*`), in user space.
    func append(to context: OpaquePointer) {
        for element in elements {
            switch element {
            case .move(let point):
                cairo_move_to(context, Double(point.x), Double(point.y))
            case .line(let point):
                cairo_line_to(context, Double(point.x), Double(point.y))
            case .curve(let point, let control1, let control2):
                cairo_curve_to(
                    context, Double(control1.x), Double(control1.y), Double(control2.x), Double(control2.y),
                    Double(point.x), Double(point.y))
            case .arc(let center, let radius, let start, let end, let clockwise):
                // In cairo's y-down space, increasing angles run clockwise on screen.
                let arc = clockwise ? cairo_arc : cairo_arc_negative
                arc(context, Double(center.x), Double(center.y), Double(radius), Double(start), Double(end))
            case .close:
                cairo_close_path(context)
            }
        }
    }
}
