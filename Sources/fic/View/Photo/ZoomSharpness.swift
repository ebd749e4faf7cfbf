#if Tool
import FICCommandLine

/// The time from each zoom to the first frame presented with every visible tile at the level the
/// zoom asks for — the photo view's "first sharp frame after a zoom", for local and remote photos.
struct ZoomSharpness {
    /// When the zoom being measured happened (`Stopwatch` nanoseconds), or nil.
    private var zoomedAt: UInt64?
    /// Whether the last frame drawn had every visible tile at its level.
    var lastFrameSharp = false
    /// Each measured zoom's time to its first sharp frame, ms, in order.
    private(set) var afterZoomMs: [Double] = []

    /// Whether a zoom is still waiting for its sharp frame.
    var isWaiting: Bool { zoomedAt != nil }

    /// A zoom happened at `nanoseconds` (a later one restarts the measure).
    mutating func zoomed(at nanoseconds: UInt64) {
        zoomedAt = nanoseconds
    }

    /// A frame was presented at `nanoseconds`: ends the measure if it was sharp.
    mutating func framePresented(at nanoseconds: UInt64) {
        if let zoomedAt, lastFrameSharp {
            afterZoomMs.append(Double(nanoseconds &- zoomedAt) / 1e6)
            self.zoomedAt = nil
        }
    }

    /// The overlay's words for the last measure ("; last zoom sharp after 12.3 ms"), or "".
    var overlayText: String {
        afterZoomMs.last.map { "; last zoom sharp after \(Formatting.fixed($0, 1)) ms" } ?? ""
    }

    /// The `--stats` figures: every measure, their count, maximum and median.
    var statistics: [String: StatValue] {
        let sorted = afterZoomMs.sorted()
        return [
            "zooms_measured": .int(sorted.count),
            "first_sharp_after_zoom_ms": .doubles(afterZoomMs),
            "first_sharp_after_zoom_max_ms": .double(sorted.last ?? 0),
            "first_sharp_after_zoom_median_ms": .double(sorted.isEmpty ? 0 : sorted[sorted.count / 2])
        ]
    }
}
#endif
