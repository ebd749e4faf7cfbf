#if Tool
import FICCommandLine
import Foundation

/// Runs a mode in a window until the person closes it or the script ends: each frame takes
/// the input, lets the mode move on and draw (compose), then presents it (present), and the
/// two times are recorded separately.
final class ViewerLoop {
    private let window: ViewerWindow
    private let canvas: FrameCanvas
    private let mode: any ViewerMode
    private let options: ViewerOptions
    private var player: ScriptPlayer?
    private var stats = FrameStats()
    private var showOverlay: Bool
    private var phase: String?
    private var dragging = false
    private var overlayMemory = 0
    /// When the last frames started, for the frame rate a person sees (pauses included).
    private var recentStarts: [UInt64] = []

    /// The simulated time a scripted frame advances.
    static let scriptedFrameSeconds = 1.0 / 60

    init(window: ViewerWindow, mode: any ViewerMode, options: ViewerOptions, script: ViewerScript?) {
        self.window = window
        self.mode = mode
        self.options = options
        canvas = FrameCanvas(window.canvas)
        player = script.map(ScriptPlayer.init)
        showOverlay = !options.noOverlay
    }

    /// Runs frames until the end; then writes the screenshot and statistics asked for.
    func run() throws {
        var lastFrameStart = Stopwatch.now()
        let frameNanoseconds: UInt64 = 16_666_667
        // Load the overlay's font and render its glyphs now (fontconfig takes ~10 ms the first
        // time), so that the first frame costs what any frame does.
        canvas.panel([String((32..<127).map { Character(UnicodeScalar($0)!) }) + "…×²µ"])
        var running = true
        var stopped = false
        defer { if !stopped { mode.stop() } }
        while running {
            let start = Stopwatch.now(), startCPU = Self.threadCPUTime()
            recentStarts.append(start)
            if recentStarts.count > 61 { recentStarts.removeFirst(recentStarts.count - 61) }
            // Input: the window's events, and the script's actions for this frame.
            var actions = WindowEvents.poll(window.sdl, mode.bindings, scripted: player != nil, dragging: &dragging)
            if player != nil {
                actions += player!.actions(idle: mode.isIdle, shown: mode.imagesShown)
                if player!.finished { running = false }
            }
            for action in actions {
                switch action {
                case .quit: running = false
                case .overlay(let on): showOverlay = on ?? !showOverlay
                case .phase(let name):
                    phase = name
                    mode.beginPhase(name)
                case .screenshot: break  // after drawing, below
                default: mode.handle(action)
                }
            }
            let seconds = player != nil ? Self.scriptedFrameSeconds : min(0.1, Double(start &- lastFrameStart) / 1e9)
            lastFrameStart = start
            mode.advance(by: seconds)
            mode.draw(into: canvas)
            if showOverlay { canvas.panel(overlayLines()) }
            canvas.flush()
            let composed = Stopwatch.now(), composedCPU = Self.threadCPUTime()
            window.present()
            let presented = Stopwatch.now()
            stats.record(
                compose: composed &- start, present: presented &- composed, composeCPU: composedCPU &- startCPU,
                phase: phase ?? mode.defaultPhase)
            mode.framePresented(at: presented)
            for case .screenshot(let path) in actions { try saveScreenshot(path) }
            // Paced when a person watches, and while a script waits for background work (so that
            // its limit is about time, not about how fast idle frames are).
            if player == nil || options.paced || player!.isWaiting {
                let deadline = start &+ frameNanoseconds, now = Stopwatch.now()
                if deadline > now { usleep(UInt32((deadline - now) / 1000)) }
            }
        }
        mode.stop()
        stopped = true
        if let path = options.screenshot { try saveScreenshot(Paths.absolute(path)) }
        if let path = options.stats { try writeStatistics(to: Paths.absolute(path)) }
    }

    /// CPU time of the calling thread, ns.
    static func threadCPUTime() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// Frames per second over the last 60 frames, from their start times.
    private var frameRate: Double {
        guard recentStarts.count > 1, let first = recentStarts.first, let last = recentStarts.last, last > first else { return 0 }
        return Double(recentStarts.count - 1) * 1e9 / Double(last - first)
    }

    private func overlayLines() -> [String] {
        let count = stats.all.compose.count
        if count % 30 == 0 { overlayMemory = ProcessMemory.residentBytes }
        let last = count > 0 ? (Double(stats.all.compose[count - 1]) / 1e6, Double(stats.all.present[count - 1]) / 1e6) : (0, 0)
        return [
            "\(Formatting.fixed(frameRate, 1)) FPS   slowest of 60: \(Formatting.fixed(Double(stats.slowestRecent(60)) / 1e6, 1)) ms",
            "compose \(Formatting.fixed(last.0, 2)) ms   present \(Formatting.fixed(last.1, 2)) ms"
        ] + mode.overlayLines() + ["memory \(Formatting.bytes(overlayMemory))   o: overlay  q: quit"]
    }

    private func saveScreenshot(_ path: String) throws {
        do {
            try window.writePNG(to: path)
        } catch {
            throw CLIError("cannot write the screenshot \(path): \(error)")
        }
    }

    private func writeStatistics(to path: String) throws {
        var values = stats.all.summary.values
        values["phases"] = .object(stats.phases.mapValues { .object($0.summary.values) })
        values["peak_rss_bytes"] = .int(ProcessMemory.peakResidentBytes)
        values["slowest_composes"] = .array(stats.slowestComposes(5))
        values["window_width"] = .int(window.width)
        values["window_height"] = .int(window.height)
        if let player { values["script_waits_timed_out"] = .int(player.timedOutWaits) }
        for (key, value) in mode.statistics() { values[key] = value }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            try encoder.encode(values).write(to: URL(fileURLWithPath: path))
        } catch {
            throw CLIError("cannot write the statistics \(path): \(error.localizedDescription)")
        }
    }
}
#endif
