#if Tool
import FastImageCache

/// `fic view photo` on an animated image: its frames played from the image table, fitted in the
/// window and centred, at their timing, from the frame the first one is stored (the viewer's
/// time: 1/60 s a frame in a script). Each frame asks the ``AnimationPlayer``, which looks a
/// frame up only when it changes; a new cairo surface is made only then.
final class PhotoAnimationMode: ViewerMode {
    private let animation: PhotoAnimation
    private let width: Int
    private let height: Int
    private var player: AnimationPlayer
    /// The viewer's time, and when playing started (nil until the first frame is stored).
    private var now: Duration = .zero
    private var started: Duration?
    private var replayPending = false
    /// The surface of the frame shown, and that frame's number.
    private var shown: (frame: Int?, surface: CairoImageSurface)?
    private var framesChanged = 0

    init(animation: PhotoAnimation, width: Int, height: Int) {
        self.animation = animation
        self.width = width
        self.height = height
        player = animation.player()
    }

    var bindings: WindowEvents.Bindings { .photo(width: Double(width), height: Double(height)) }
    var defaultPhase: String { "animation" }
    /// Idle once every frame is stored (or storing failed): the animation may play on.
    var isIdle: Bool { animation.storing != .running }

    func handle(_ action: ViewerAction) {
        if action == .replay { replayPending = true }
    }

    func advance(by seconds: Double) {
        now += .nanoseconds(Int64((seconds * 1e9).rounded()))
        if replayPending, started != nil {
            started = now
            replayPending = false
        }
    }

    func draw(into canvas: FrameCanvas) {
        canvas.clear(gray: 0.08)
        if case .failed(let why) = animation.storing, shown == nil {
            canvas.centredText(why, y: Double(height) / 2)
            return
        }
        guard let image = player.image(at: started.map { now - $0 } ?? .zero) else {
            canvas.centredText("storing the frames of \(animation.entity.entityID) …", y: Double(height) / 2)
            return
        }
        if started == nil { started = now }
        if shown == nil || shown?.frame != player.frameIndex, let surface = try? image.makeCairoSurface() {
            shown = (player.frameIndex, surface)
            framesChanged += 1
        }
        guard let surface = shown?.surface else { return }
        // Fitted in the window, centred; frames stored smaller than that are scaled up.
        let scale = min(Double(width) / Double(surface.width), Double(height) / Double(surface.height))
        let w = (Double(surface.width) * scale).rounded(), h = (Double(surface.height) * scale).rounded()
        let x = ((Double(width) - w) / 2).rounded(), y = ((Double(height) - h) / 2).rounded()
        canvas.draw(
            surface, source: 0, 0, Double(surface.width), Double(surface.height), into: x, y, w, h,
            smooth: w != Double(surface.width), opaque: false)
    }

    func overlayLines() -> [String] {
        let info = animation.info
        var lines = [
            "\(animation.entity.entityID): \(info.width)×\(info.height) px, \(info.frameCount) frames, "
                + (info.loopCount == 0 ? "looping" : "played \(info.loopCount)×"),
            "frame \(player.frameIndex.map(String.init) ?? "–") of \(info.frameCount), stored at \(animation.format.pixelSize.width)×\(animation.format.pixelSize.height)   r: replay"
        ]
        switch animation.storing {
        case .running: lines.append("storing the frames …")
        case .failed(let why): lines.append(why)
        case .done: break
        }
        return lines
    }

    func framePresented(at nanoseconds: UInt64) {}

    func statistics() -> [String: StatValue] {
        var values: [String: StatValue] = [
            "mode": .string("animation"),
            "frame_count": .int(animation.info.frameCount),
            "loop_count": .int(animation.info.loopCount),
            "stored_width": .int(animation.format.pixelSize.width), "stored_height": .int(animation.format.pixelSize.height),
            "frame_shown": .int(player.frameIndex ?? -1),
            "animation_lookups": .int(player.lookups),
            "animation_frames_changed": .int(framesChanged),
            "cache_directory": .string(animation.directory),
            "cache_decodes": .int(animation.cache.statistics.sourceDecodes)
        ]
        if case .failed(let why) = animation.storing { values["status"] = .string(why) }
        return values
    }

    func stop() {}
}
#endif
