/// Plays one entity's animation in one format from the cache: for each moment, the frame to
/// show, zero-copy from the table, and when the shown frame next changes.
///
/// The player reads no clock: the caller gives the time since playing started (or an instant
/// and the start instant), so that it can play on a display's refresh, in a scripted test, or
/// paused. Each frame is one constant-time lookup (``ImageCache/cachedImage(for:format:frame:)``),
/// made only when the frame to show changes; between changes the frame already found is returned
/// with no lookup. Nothing is decoded.
///
/// Frames still being stored are waited for without a blank: when frame *n* is not stored yet,
/// the frame shown last stays (frame 0 before any other), and the lookup is tried again
/// ``retryInterval`` later. The animation's record (``ImageCache/animation(for:format:)``) is
/// read when playing starts, again at the start of each play (a record that says more frames
/// than before is followed from then on), and again when a frame was missing; while nothing of
/// the entity is stored it is read on each call, and the player returns nil. Once frame 0 is
/// stored it never returns nil. A still image (or an animation stored as its first frame only)
/// plays as one frame that never changes.
///
/// ```swift
/// var player = AnimationPlayer(cache: cache, entity: sticker, format: "thumb")
/// let start = ContinuousClock.now
/// // on each display refresh:
/// if let frame = player.image(at: .now, startedAt: start) { draw(frame) }
/// if let next = player.nextChange {
///     scheduleRedraw(at: start + next)   // nothing changes before then
/// }                                      // nil: finished, or a still image
/// ```
///
/// A value with one owner: it records what it has shown, so each caller plays its own copy.
public struct AnimationPlayer: Sendable {
    /// Whose animation is played: an entity with its source version, or only an identifier.
    private enum Target: Sendable {
        case entity(any ImageEntity)
        case entityID(String)
    }

    /// The cache the frames come from.
    public let cache: ImageCache
    /// The format played.
    public let format: String
    /// How long after a missing frame (or record) it is looked up again.
    public let retryInterval: Duration
    private let target: Target

    /// The animation as last read from the table, or nil while nothing of the entity is stored.
    public private(set) var animation: StoredAnimation?
    private var timeline: AnimationTimeline?
    /// The frame shown last: its number and its image.
    private var shown: (index: Int, image: CachedImage)?
    /// The play (0, 1, …) during which the record was last read.
    private var recordPlay = 0
    /// When a missing frame is looked up again (milliseconds since the start), if one is missing.
    private var retryAt: Int?
    /// The span of time (milliseconds) in which the answer is the frame already shown, with no
    /// lookup: from the last full update to the next frame change or retry.
    private var steady: Range<Int>?

    /// When the shown frame next changes, as time since the start, after the last call of
    /// ``image(at:)``: the next frame's start, or the moment a missing frame is looked up again.
    /// Nil when nothing will change: the animation has finished, or is a still image. Before the
    /// first call, and while nothing of the entity is stored, the time of the next look.
    public private(set) var nextChange: Duration?

    /// The table lookups made so far: frames and records read (a figure for statistics).
    public private(set) var lookups = 0

    /// A player of the animation of `entity` in `format`. Reads nothing until the first
    /// ``image(at:)``; `animation`, when the caller has just read it, saves reading it again.
    public init(
        cache: ImageCache, entity: some ImageEntity, format: String, animation: StoredAnimation? = nil,
        retryInterval: Duration = .milliseconds(50)
    ) {
        self.init(cache: cache, target: .entity(entity), format: format, animation: animation, retryInterval: retryInterval)
    }

    /// A player of the animation stored for the entity whose identifier is `entityID`, whichever
    /// version of its source is stored (as ``ImageCache/cachedImage(entityID:format:frame:)``).
    public init(
        cache: ImageCache, entityID: String, format: String, animation: StoredAnimation? = nil,
        retryInterval: Duration = .milliseconds(50)
    ) {
        self.init(cache: cache, target: .entityID(entityID), format: format, animation: animation, retryInterval: retryInterval)
    }

    private init(cache: ImageCache, target: Target, format: String, animation: StoredAnimation?, retryInterval: Duration) {
        self.cache = cache
        self.target = target
        self.format = format
        self.animation = animation
        timeline = animation?.timeline
        self.retryInterval = max(retryInterval, .milliseconds(1))
    }

    /// Whether the entity is known to be animated: its stored animation has more than one frame.
    public var isAnimated: Bool { (animation?.frameCount ?? 0) > 1 }

    /// The number of the frame shown last, or nil before one was shown.
    public var frameIndex: Int? { shown?.index }

    /// The frame to show `elapsed` after playing started (frame 0 before the start), or nil while
    /// nothing of the entity is stored. Updates ``nextChange``.
    public mutating func image(at elapsed: Duration) -> CachedImage? {
        let ms = AnimationTimeline.milliseconds(elapsed)
        if let steady, steady.contains(ms) { return shown?.image }
        update(ms)
        return shown?.image
    }

    /// The frame to show at `now` for an animation that started playing at `start` (instants of
    /// any clock whose durations are `Duration`, such as `ContinuousClock`'s).
    public mutating func image<I: InstantProtocol>(at now: I, startedAt start: I) -> CachedImage? where I.Duration == Duration {
        image(at: start.duration(to: now))
    }

    /// Reads what is due at `ms` milliseconds: the record, the frame to show, and when that
    /// changes next.
    private mutating func update(_ ms: Int) {
        let retryDue = retryAt.map { ms >= $0 } ?? false
        if animation == nil || retryDue || play(at: ms) != recordPlay { readRecord(at: ms) }
        guard let timeline else {
            steady = nil  // nothing stored yet: look on the next call
            nextChange = .milliseconds(Self.adding(ms, AnimationTimeline.milliseconds(retryInterval)))
            return
        }
        let wanted = timeline.frame(atMilliseconds: ms)
        if shown?.index != wanted {
            if let image = frame(wanted) {
                shown = (wanted, image)
            } else if shown == nil, let first = frame(0) {
                shown = (0, first)  // frame 0 stands in until the wanted one is stored
            }
        }
        retryAt = shown?.index == wanted ? nil : Self.adding(ms, AnimationTimeline.milliseconds(retryInterval))
        let change = timeline.nextFrameStart(afterMilliseconds: ms)
        let next = [change, retryAt].compactMap { $0 }.min()
        nextChange = next.map { .milliseconds($0) }
        steady = ms..<(next ?? Int.max)
    }

    /// Reads the animation's record; keeps what was known when nothing is stored any more (the
    /// frames held stay valid, and the missing ones are looked up again later).
    private mutating func readRecord(at ms: Int) {
        lookups += 1
        let read: StoredAnimation?
        switch target {
        case .entity(let entity): read = cache.animation(for: entity, format: format)
        case .entityID(let id): read = cache.animation(entityID: id, format: format)
        }
        if let read, read != animation {
            animation = read
            timeline = read.timeline
        }
        recordPlay = play(at: ms)
    }

    /// Frame `index` from the table, or nil when it is not stored.
    private mutating func frame(_ index: Int) -> CachedImage? {
        lookups += 1
        switch target {
        case .entity(let entity): return cache.cachedImage(for: entity, format: format, frame: index)
        case .entityID(let id): return cache.cachedImage(entityID: id, format: format, frame: index)
        }
    }

    /// Which play (0, 1, …) `ms` falls in; the count of plays once an animation has finished.
    private func play(at ms: Int) -> Int {
        guard let timeline, timeline.frameCount > 1, timeline.playDuration > 0, ms > 0 else { return 0 }
        let play = ms / timeline.playDuration
        return timeline.loopCount > 0 ? min(play, timeline.loopCount) : play
    }

    /// `a + b`, clamped to `Int`.
    private static func adding(_ a: Int, _ b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b < 0 ? Int.min : Int.max) : sum
    }
}
