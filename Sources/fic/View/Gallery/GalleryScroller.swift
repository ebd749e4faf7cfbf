#if Tool
import Foundation

/// The gallery's scroll position and its motion: scrolls, flings that slow down by friction,
/// and drags that fling on release with the speed they had.
struct GalleryScroller {
    /// The offset in pixels from the top of the grid.
    private(set) var offset = 0.0
    /// Pixels per second (positive: down the grid).
    private(set) var velocity = 0.0
    /// The largest offset.
    var maximumOffset: Double
    /// Speed lost per second: the velocity is multiplied by `exp(-seconds / decay)`.
    var decay = 0.8
    private var dragY: Double?
    private var dragMoved = 0.0
    private var dragVelocity = 0.0

    init(maximumOffset: Double) {
        self.maximumOffset = maximumOffset
    }

    /// Whether it is at rest (not flinging, not being dragged).
    var isAtRest: Bool { velocity == 0 && dragY == nil }

    /// The offset in whole pixels, as drawn.
    var pixelOffset: Int { Int(offset.rounded(.down)) }

    mutating func scroll(by pixels: Double) {
        velocity = 0
        offset = min(max(0, offset + pixels), maximumOffset)
    }

    mutating func scroll(to target: Double) {
        velocity = 0
        offset = min(max(0, target), maximumOffset)
    }

    mutating func fling(_ speed: Double) {
        velocity = speed
    }

    mutating func dragBegan(y: Double) {
        velocity = 0
        dragY = y
        dragMoved = 0
        dragVelocity = 0
    }

    mutating func dragMoved(y: Double) {
        guard let last = dragY else { return }
        let delta = last - y
        offset = min(max(0, offset + delta), maximumOffset)
        dragMoved += delta
        dragY = y
    }

    mutating func dragEnded(y: Double) {
        dragMoved(y: y)
        dragY = nil
        velocity = abs(dragVelocity) > 50 ? dragVelocity : 0
    }

    /// Moves on by `seconds`: a fling advances and slows down; a drag's speed is measured.
    mutating func advance(by seconds: Double) {
        guard seconds > 0 else { return }
        if dragY != nil {
            dragVelocity = 0.5 * dragVelocity + 0.5 * dragMoved / seconds
            dragMoved = 0
            return
        }
        guard velocity != 0 else { return }
        offset += velocity * seconds
        velocity *= exp(-seconds / decay)
        if offset <= 0 || offset >= maximumOffset || abs(velocity) < 20 {
            offset = min(max(0, offset), maximumOffset)
            velocity = 0
        }
    }
}
#endif
