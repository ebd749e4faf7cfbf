#if Tool
/// Frame times of a viewer run, split into compose (the viewer's own work: input, lookups,
/// drawing into the window's memory) and present (handing the frame to the display), overall
/// and per phase.
struct FrameStats {
    /// The times of a set of frames, in nanoseconds.
    struct Series {
        var compose: [UInt64] = []
        var present: [UInt64] = []
        /// The CPU time the viewer's thread spent composing: far below `compose` when the
        /// thread was not running (another process had the core).
        var composeCPU: [UInt64] = []

        mutating func append(compose c: UInt64, present p: UInt64, composeCPU cpu: UInt64) {
            compose.append(c)
            present.append(p)
            composeCPU.append(cpu)
        }

        /// The summary written to `--stats`.
        var summary: FrameSummary { FrameSummary(self) }
    }

    private(set) var all = Series()
    private(set) var phases: [String: Series] = [:]
    /// The phase names in the order they first appeared.
    private(set) var phaseOrder: [String] = []
    /// The phase of each frame.
    private var frameTags: [String] = []

    /// Records one frame of `phase`.
    mutating func record(compose: UInt64, present: UInt64, composeCPU: UInt64, phase: String) {
        all.append(compose: compose, present: present, composeCPU: composeCPU)
        if phases[phase] == nil { phaseOrder.append(phase) }
        phases[phase, default: Series()].append(compose: compose, present: present, composeCPU: composeCPU)
        frameTags.append(phase)
    }

    /// The `count` frames with the longest compose: frame number, phase, compose and its CPU time (ms).
    func slowestComposes(_ count: Int) -> [StatValue] {
        let order = all.compose.indices.sorted { all.compose[$0] > all.compose[$1] }.prefix(count)
        return order.map { i in
            .object([
                "frame": .int(i), "phase": .string(frameTags[i]),
                "compose_ms": .double(Double(all.compose[i]) / 1e6), "compose_cpu_ms": .double(Double(all.composeCPU[i]) / 1e6)
            ])
        }
    }

    /// The slowest frame (compose + present) of the last `count` frames, in nanoseconds.
    func slowestRecent(_ count: Int) -> UInt64 {
        let n = all.compose.count
        var slowest: UInt64 = 0
        for i in max(0, n - count)..<n { slowest = max(slowest, all.compose[i] &+ all.present[i]) }
        return slowest
    }
}

/// Figures of a set of frames, in milliseconds, named as in the `--stats` JSON.
struct FrameSummary {
    var frames: Int
    var compose_median_ms: Double
    var compose_p99_ms: Double
    var compose_max_ms: Double
    var present_median_ms: Double
    var present_p99_ms: Double
    var present_max_ms: Double
    /// Compose plus present.
    var frame_median_ms: Double
    var frame_p99_ms: Double
    var frame_max_ms: Double
    var frames_compose_over_8_3_ms: Int
    var frames_compose_over_16_7_ms: Int
    /// Whole frames (compose plus present) over the budgets of 120 and 60 frames a second.
    var frames_over_8_3_ms: Int
    var frames_over_16_7_ms: Int
    /// The CPU time of compose (the viewer's thread only).
    var compose_cpu_p99_ms: Double
    var compose_cpu_max_ms: Double

    init(_ series: FrameStats.Series) {
        let total = zip(series.compose, series.present).map { $0 &+ $1 }
        frames = series.compose.count
        (compose_median_ms, compose_p99_ms, compose_max_ms) = Self.figures(series.compose)
        (present_median_ms, present_p99_ms, present_max_ms) = Self.figures(series.present)
        (frame_median_ms, frame_p99_ms, frame_max_ms) = Self.figures(total)
        frames_compose_over_8_3_ms = series.compose.filter { $0 > 8_333_333 }.count
        frames_compose_over_16_7_ms = series.compose.filter { $0 > 16_666_667 }.count
        frames_over_8_3_ms = total.filter { $0 > 8_333_333 }.count
        frames_over_16_7_ms = total.filter { $0 > 16_666_667 }.count
        (_, compose_cpu_p99_ms, compose_cpu_max_ms) = Self.figures(series.composeCPU)
    }

    /// Median, 99th percentile (nearest rank) and maximum, in ms.
    static func figures(_ samples: [UInt64]) -> (Double, Double, Double) {
        guard !samples.isEmpty else { return (0, 0, 0) }
        let sorted = samples.sorted()
        func rank(_ p: Double) -> Double {
            let index = min(sorted.count - 1, max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1))
            return Double(sorted[index]) / 1e6
        }
        return (rank(0.5), rank(0.99), Double(sorted[sorted.count - 1]) / 1e6)
    }

    /// The figures as `--stats` JSON members.
    var values: [String: StatValue] {
        [
            "frames": .int(frames),
            "compose_median_ms": .double(compose_median_ms), "compose_p99_ms": .double(compose_p99_ms),
            "compose_max_ms": .double(compose_max_ms),
            "present_median_ms": .double(present_median_ms), "present_p99_ms": .double(present_p99_ms),
            "present_max_ms": .double(present_max_ms),
            "frame_median_ms": .double(frame_median_ms), "frame_p99_ms": .double(frame_p99_ms), "frame_max_ms": .double(frame_max_ms),
            "frames_compose_over_8_3_ms": .int(frames_compose_over_8_3_ms),
            "frames_compose_over_16_7_ms": .int(frames_compose_over_16_7_ms),
            "frames_over_8_3_ms": .int(frames_over_8_3_ms), "frames_over_16_7_ms": .int(frames_over_16_7_ms),
            "compose_cpu_p99_ms": .double(compose_cpu_p99_ms), "compose_cpu_max_ms": .double(compose_cpu_max_ms)
        ]
    }
}
#endif
