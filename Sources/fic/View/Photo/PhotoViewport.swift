#if Tool
import Foundation

/// Which part of the photo the window shows: a scale (window pixels per full-resolution image
/// pixel) and the image point at the window's top-left corner. Zooms keep the point under the
/// cursor still; the photo is kept in view (centred when smaller than the window).
struct PhotoViewport: Equatable {
    /// The full-resolution image size.
    let imageWidth: Double
    let imageHeight: Double
    /// The window size.
    let width: Double
    let height: Double
    /// Window pixels per image pixel.
    private(set) var scale: Double
    /// The image point at the window's top-left corner (negative when the photo is centred).
    private(set) var originX = 0.0
    private(set) var originY = 0.0
    /// The largest scale: 8 window pixels per image pixel.
    let maximumScale = 8.0

    init(imageWidth: Int, imageHeight: Int, width: Int, height: Int) {
        self.imageWidth = Double(imageWidth)
        self.imageHeight = Double(imageHeight)
        self.width = Double(width)
        self.height = Double(height)
        scale = 1
        fit()
    }

    /// The scale at which the whole photo fits the window.
    var fitScale: Double { min(width / imageWidth, height / imageHeight) }
    /// The smallest scale: half the fitting one.
    var minimumScale: Double { min(fitScale / 2, 1) }

    mutating func fit() {
        scale = fitScale
        clamp()
    }

    mutating func zoom(by factor: Double, x: Double, y: Double) {
        zoom(to: scale * factor, x: x, y: y)
    }

    mutating func zoom(to target: Double, x: Double, y: Double) {
        let px = originX + x / scale, py = originY + y / scale
        scale = min(max(target, minimumScale), maximumScale)
        originX = px - x / scale
        originY = py - y / scale
        clamp()
    }

    /// Moves the view over the image by window pixels.
    mutating func pan(dx: Double, dy: Double) {
        originX += dx / scale
        originY += dy / scale
        clamp()
    }

    /// Keeps the photo in view: centred along an axis where it is smaller than the window.
    private mutating func clamp() {
        let visibleWidth = width / scale, visibleHeight = height / scale
        originX = visibleWidth >= imageWidth ? (imageWidth - visibleWidth) / 2 : min(max(0, originX), imageWidth - visibleWidth)
        originY = visibleHeight >= imageHeight ? (imageHeight - visibleHeight) / 2 : min(max(0, originY), imageHeight - visibleHeight)
    }

    /// The pyramid level that gives the sharpest picture at this scale without drawing more
    /// pixels than needed: the coarsest level whose pixels are no larger than a window pixel.
    func bestLevel(levelCount: Int) -> Int {
        guard scale < 1 else { return 0 }
        let level = Int((log2(1 / scale) + 1e-9).rounded(.down))
        return min(max(0, level), levelCount - 1)
    }
}
#endif
