#if Tool
/// What a person (keys, wheel, mouse) or a script asks the viewer to do. Each mode acts on the
/// ones that make sense for it and ignores the others.
enum ViewerAction: Equatable {
    /// Scroll the gallery by this many pixels (positive: down the grid).
    case scrollBy(Double)
    /// Scroll the gallery to this offset in pixels (clamped to the grid).
    case scrollTo(Double)
    /// Set the gallery moving at this speed, pixels per second, slowing down by friction.
    case fling(Double)
    /// Zoom the photo by `factor` around the window point (`x`, `y`).
    case zoomBy(factor: Double, x: Double, y: Double)
    /// Zoom the photo to `scale` (1 = one image pixel per window pixel) around (`x`, `y`).
    case zoomTo(scale: Double, x: Double, y: Double)
    /// Fit the whole photo in the window.
    case fit
    /// Move the photo's content by (`dx`, `dy`) window pixels (positive: the view moves right/down over the image).
    case panBy(dx: Double, dy: Double)
    /// Start, continue or end a mouse drag at window point (`x`, `y`).
    case dragBegan(x: Double, y: Double)
    case dragMoved(x: Double, y: Double)
    case dragEnded(x: Double, y: Double)
    /// Switch the gallery between the cache and the conventional path.
    case togglePath
    /// Play the animations shown from their first frame again, from the next frame drawn on.
    case replay
    /// Show or hide the statistics overlay (nil: toggle).
    case overlay(Bool?)
    /// Save the window as a PNG now.
    case screenshot(String)
    /// Label the frames that follow in the statistics (for example "zoom" and "pan").
    case phase(String)
    /// Close the viewer.
    case quit
}
#endif
