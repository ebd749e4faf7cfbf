#if Tool
import FICCommandLine

/// The photo's input and its scale as the overlay says it, shared by the photo modes (a pyramid
/// being built, a tile table).
extension PhotoViewport {
    /// The scale as a ratio: "2.00:1" enlarged, "1:4.00" reduced.
    var scaleText: String {
        scale >= 1 ? "\(Formatting.fixed(scale, 2)):1" : "1:\(Formatting.fixed(1 / scale, 2))"
    }

    /// Applies a zoom, fit, pan or drag step to the viewport; `dragPoint` is where a drag in
    /// progress last was (set when one begins, cleared when it ends). Other actions do nothing.
    mutating func apply(_ action: ViewerAction, dragPoint: inout (x: Double, y: Double)?) {
        switch action {
        case .zoomBy(let factor, let x, let y): zoom(by: factor, x: x, y: y)
        case .zoomTo(let scale, let x, let y): zoom(to: scale, x: x, y: y)
        case .fit: fit()
        case .panBy(let dx, let dy): pan(dx: dx, dy: dy)
        case .dragBegan(let x, let y): dragPoint = (x, y)
        case .dragMoved(let x, let y), .dragEnded(let x, let y):
            if let last = dragPoint { pan(dx: last.x - x, dy: last.y - y) }
            if case .dragEnded = action { dragPoint = nil } else { dragPoint = (x, y) }
        default: break
        }
    }
}
#endif
