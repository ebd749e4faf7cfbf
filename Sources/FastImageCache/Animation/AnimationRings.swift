import FICCore
import Foundation
import ImageCodec
import ImageTable
import Logging

/// Where animations too large for their format's table play from: a *ring* per animation being
/// played, a few frames decoded ahead of the one asked for, drawn at the format's size, in
/// memory of their own.
///
/// An animation whose frames would take more than a quarter of a table stores only its first
/// frame and its record there (which says it plays from a ring). The first time a later frame
/// is asked for (``ImageCache/cachedImage(for:format:frame:)``), its ring is made and asks the
/// provider for the source again, on the slow lane; then, one frame per CPU step on the slow
/// lane, it decodes in order from the frame asked for and keeps the next
/// ``Limits/framesPerRing`` frames. A frame not in the ring yet is nil (the player shows the
/// previous one), and the miss moves the ring on to decode ahead from it; once playing loops
/// around to frames before the decoder's position, the decoder starts again from the first
/// frame. Lookups never decode: they take one lock, and at most queue a step.
///
/// Memory: at most ``Limits/framesPerRing`` frames of the format per ring, plus its decoder (a
/// canvas of the animation's size and a saved one) and the source's bytes; at most
/// ``Limits/rings`` rings, the least recently asked dropped for a new one, and the least
/// recently asked dropped while the rings together need more than ``Limits/memoryBytes`` (the
/// one being played stays, whatever it needs); a ring not asked for ``Limits/idleTime`` is
/// dropped at the next ring lookup. A frame a caller holds stays valid after its ring drops it.
final class AnimationRings: Sendable {
    /// How many frames and rings, and for how long.
    struct Limits: Sendable {
        /// Frames a ring keeps decoded, from the frame asked for on.
        var framesPerRing = 6
        /// Rings at once.
        var rings = 16
        /// A ring not asked for this long is dropped.
        var idleTime: Duration = .seconds(10)
        /// The memory all rings may need together: sources, decoders' canvases and frames.
        var memoryBytes = 128 << 20
    }

    /// Which animation a ring plays: a format, an entity and its source version.
    struct Key: Hashable, Sendable {
        let format: String
        let entity: TableKey
        let source: TableKey
    }

    /// What a ring plays, fixed when it is made.
    struct Animation: Sendable {
        /// Tells a ring from a later one of the same key (its steps end when theirs is gone).
        let id: UInt64
        let table: FormatTable
        let entity: any ImageEntity
        let url: URL
        let frameCount: Int
    }

    private enum Phase {
        /// Nothing queued: a lookup may wake the ring.
        case idle
        /// Waiting for the source.
        case fetching
        /// A step is queued or running.
        case decoding
    }

    private struct Ring {
        let animation: Animation
        var frames: [Int: CachedImage] = [:]
        /// The frame asked for last: the ring holds the frames from it on.
        var wanted: Int
        var lastAsked: ContinuousClock.Instant
        var phase = Phase.idle
        var source: ImageBytes?
        /// The decoder between steps (a step holds it while it runs), and the frame it gives next.
        var decoder: HandedOver<AnimatedImageDecoder>?
        var next = 0
        /// Frames from this one on cannot be decoded (the source is damaged there).
        var usable: Int
        /// Whether a decoder was opened before (another one is a restart).
        var started = false
        /// The source cannot be had or drawn: the ring shows nothing more.
        var failed = false
        /// What the ring needs in memory, as far as known: its source, its decoder's two
        /// canvases once it has one, and its frames.
        var bytes = 0

        /// ``bytes`` for what the ring holds now.
        mutating func measure(_ limits: Limits) {
            let canvas = decoder.map { 4 * $0.value.info.width * $0.value.info.height } ?? 0
            let frame = animation.table.table.configuration.pixelByteCount
            bytes = (source?.count ?? 0) + 2 * canvas + limits.framesPerRing * frame
        }

        /// The frames to hold, in playing order: `size` frames from ``wanted`` on, wrapping
        /// around after the last usable frame to frame 1 (frame 0 is in the table).
        func window(_ size: Int) -> [Int] {
            guard usable > 1 else { return [] }
            var n = wanted >= 1 && wanted < usable ? wanted : 1
            var frames: [Int] = []
            for _ in 0..<min(size, usable - 1) {
                frames.append(n)
                n = n + 1 == usable ? 1 : n + 1
            }
            return frames
        }

        /// Whether a frame of the window is missing.
        func lacksFrame(_ size: Int) -> Bool {
            !failed && window(size).contains { frames[$0] == nil }
        }
    }

    private struct State {
        var rings: [Key: Ring] = [:]
        var limits = Limits()
        var clock: @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
        var nextID: UInt64 = 0
    }

    /// What a lookup found.
    enum Lookup {
        /// No ring plays this animation.
        case noRing
        /// The ring's frame, or nil when it is not decoded yet.
        case frame(CachedImage?)
    }

    /// Work a change of a ring calls for, carried out once the lock is released.
    private enum Wake {
        case fetch(Key, Animation)
        case step(Key, UInt64)
    }

    private let state = LockedBox(State())
    /// Ring frames alive (in rings, or held by callers).
    let framesAlive = LockedBox(0)
    private let lanes: Lanes
    private let logger: Logger

    init(lanes: Lanes, logger: Logger) {
        self.lanes = lanes
        self.logger = logger
    }

    /// The limits.
    var limits: Limits {
        get { state.withLockedValue { $0.limits } }
        set { state.withLockedValue { $0.limits = newValue } }
    }

    /// Replaces the clock that times idle rings (the monotonic clock by default).
    func useClock(_ clock: @escaping @Sendable () -> ContinuousClock.Instant) {
        state.withLockedValue { $0.clock = clock }
    }

    /// The number of rings now.
    var count: Int { state.withLockedValue { $0.rings.count } }

    // MARK: Lookups

    /// Frame `n` of the animation of `key`, when a ring plays it: the frame, or nil when it is not
    /// decoded yet (or past the last), in which case the ring is moved on to decode ahead from it.
    func frame(_ n: Int, of key: Key) -> Lookup {
        let (found, wake) = state.withLockedValue { s -> (Lookup, Wake?) in
            if s.rings.isEmpty { return (.noRing, nil) }
            let now = s.clock()
            dropIdle(&s, now: now, keeping: key)
            guard var ring = s.rings[key] else { return (.noRing, nil) }
            guard n >= 1, n < ring.animation.frameCount else { return (.frame(nil), nil) }
            ring.lastAsked = now
            ring.wanted = n
            let wake = wakeIfNeeded(key, &ring, s.limits)
            let image = ring.frames[n]
            s.rings[key] = ring
            return (.frame(image), wake)
        }
        if let wake { carryOut(wake) }
        return found
    }

    /// Makes the ring of `key` for an animation of `frameCount` frames of `entity`, whose source
    /// is at `url`, asked for frame `n`, and starts fetching its source; nil (the frame is not
    /// decoded yet), or the frame when a ring was made meanwhile and holds it. The least recently
    /// asked ring goes when there are ``Limits/rings`` already.
    func start(_ key: Key, table: FormatTable, entity: any ImageEntity, url: URL, frameCount: Int, asking n: Int) -> CachedImage? {
        guard n >= 1, n < frameCount else { return nil }
        if case .frame(let image) = frame(n, of: key) { return image }
        let wake = state.withLockedValue { s -> Wake? in
            guard s.rings[key] == nil else { return nil }
            while s.rings.count >= max(1, s.limits.rings), let oldest = s.rings.min(by: { $0.value.lastAsked < $1.value.lastAsked })?.key {
                s.rings[oldest] = nil
            }
            s.nextID += 1
            let animation = Animation(id: s.nextID, table: table, entity: entity, url: url, frameCount: frameCount)
            var ring = Ring(animation: animation, wanted: n, lastAsked: s.clock(), usable: frameCount)
            let wake = wakeIfNeeded(key, &ring, s.limits)
            s.rings[key] = ring
            return wake
        }
        if let wake { carryOut(wake) }
        return nil
    }

    // MARK: Dropping

    /// Drops the rings of the entity whose key is `entity` (deleted), in every format.
    func drop(entity: TableKey) {
        let gone = state.withLockedValue { s in
            let keys = s.rings.keys.filter { $0.entity == entity }
            return keys.compactMap { s.rings.removeValue(forKey: $0) }
        }
        _ = gone  // released here, outside the lock
    }

    /// Drops every ring (the cache is reset or closed, or memory is short).
    func dropAll() {
        let gone = state.withLockedValue { s in
            defer { s.rings.removeAll() }
            return Array(s.rings.values)
        }
        _ = gone
    }

    // MARK: Inside the lock

    private func dropIdle(_ s: inout State, now: ContinuousClock.Instant, keeping key: Key) {
        let idle = s.limits.idleTime
        for (k, ring) in s.rings where k != key && now - ring.lastAsked > idle {
            s.rings[k] = nil
        }
    }

    /// Drops the least recently asked rings other than `key`'s while all need more than
    /// ``Limits/memoryBytes``.
    private func dropOverBudget(_ s: inout State, keeping key: Key) {
        var total = s.rings.values.reduce(0) { $0 + $1.bytes }
        while total > s.limits.memoryBytes,
            let oldest = s.rings.filter({ $0.key != key }).min(by: { $0.value.lastAsked < $1.value.lastAsked })
        {
            total -= oldest.value.bytes
            s.rings[oldest.key] = nil
        }
    }

    /// The work `ring` needs now, if it is idle: its source, or a step.
    private func wakeIfNeeded(_ key: Key, _ ring: inout Ring, _ limits: Limits) -> Wake? {
        guard ring.phase == .idle, !ring.failed else { return nil }
        if ring.source == nil {
            ring.phase = .fetching
            return .fetch(key, ring.animation)
        }
        guard ring.lacksFrame(limits.framesPerRing) else { return nil }
        ring.phase = .decoding
        return .step(key, ring.animation.id)
    }

    // MARK: Work

    private func carryOut(_ wake: Wake) {
        switch wake {
        case .fetch(let key, let animation):
            lanes.fetchSource(url: animation.url, entity: animation.entity, format: animation.table, priority: .low) { [self] result in
                fetched(key, id: animation.id, result)
            }
        case .step(let key, let id):
            lanes.queueCPUStep(at: .low) { [self] in
                step(key, id: id)
            } cancelled: { [self] in
                // The cache closed: the ring is dropped with the others.
                state.withLockedValue { s in
                    if s.rings[key]?.animation.id == id { s.rings[key]?.phase = .idle }
                }
            }
        }
    }

    /// The source of a ring arrived, or why there is none: a cancelled fetch is asked again by a
    /// later miss; any other failure ends the ring's work.
    private func fetched(_ key: Key, id: UInt64, _ result: Result<SourceImage, any Error>) {
        var bytes: ImageBytes?
        var failure: (any Error)?
        switch result {
        case .success(.bytes(let given)):
            bytes = given
        case .success(.encoded(let encoded)):
            do { bytes = try ImageBytes(copying: encoded) } catch { failure = error }
        case .success(.decoded):
            failure = ImageCacheError(.decodingFailed, "the provider gave a decoded image: it has no frames to play", format: key.format)
        case .failure(let error):
            failure = error
        }
        if let failure { logger.debug("an animation's ring has no source: \(failure)", metadata: ["format": "\(key.format)"]) }
        let cancelled = (failure as? ImageCacheError)?.code == .cancelled
        let wake = state.withLockedValue { s -> Wake? in
            guard var ring = s.rings[key], ring.animation.id == id else { return nil }
            ring.phase = .idle
            if let bytes {
                ring.source = bytes
            } else if !cancelled {
                ring.failed = true
            }
            ring.measure(s.limits)
            let wake = bytes == nil ? nil : wakeIfNeeded(key, &ring, s.limits)
            s.rings[key] = ring
            dropOverBudget(&s, keeping: key)
            return wake
        }
        if let wake { carryOut(wake) }
    }

    /// One step of a ring, on a CPU thread: decodes the next frame (starting the decoder again
    /// from the first frame when the first frame missing lies behind it) and, when it is one the
    /// ring holds, draws it at the format's size. Queues the next step while frames are missing.
    private func step(_ key: Key, id: UInt64) {
        struct Plan {
            let animation: Animation
            let decoder: AnimatedImageDecoder?
            let source: ImageBytes
            let next: Int
            let window: [Int]
            let restart: Bool
        }
        let plan = state.withLockedValue { s -> Plan? in
            guard var ring = s.rings[key], ring.animation.id == id else { return nil }
            let window = ring.window(s.limits.framesPerRing)
            ring.frames = ring.frames.filter { window.contains($0.key) }
            guard !ring.failed, let source = ring.source, let target = window.first(where: { ring.frames[$0] == nil }) else {
                ring.phase = .idle
                s.rings[key] = ring
                return nil
            }
            let fresh = ring.decoder == nil || target < ring.next
            let plan = Plan(
                animation: ring.animation, decoder: fresh ? nil : ring.decoder?.value, source: source, next: fresh ? 0 : ring.next,
                window: window, restart: fresh && ring.started)
            if fresh { ring.started = true }
            // The step holds the decoder until it puts it back.
            ring.decoder = nil
            s.rings[key] = ring
            return plan
        }
        guard let plan else { return }
        let table = plan.animation.table
        var decoder = plan.decoder
        var drawn: CachedImage?
        var end: Int?  // the first frame that cannot be decoded
        var failure: (any Error)?
        do {
            // Frames shrunk on load to cover the ring's format, as stored animations are.
            let current = try decoder ?? AnimatedImageDecoder(plan.source, options: DecodingOptions(targetSize: table.format.pixelSize))
            decoder = current
            if let frame = try current.nextFrame() {
                if plan.window.contains(frame.index) {
                    do {
                        drawn = try table.drawRingFrame(plan.animation.entity, from: frame.image, frame: frame.index, alive: framesAlive)
                    } catch {
                        failure = error
                    }
                }
            } else {
                end = plan.next
            }
        } catch {
            end = plan.next
            logger.debug("an animation's ring stops at frame \(plan.next): \(error)", metadata: ["format": "\(key.format)"])
        }
        if let failure { logger.debug("drawing a ring frame failed: \(failure)", metadata: ["format": "\(key.format)"]) }
        table.animationCounts.withLockedValue { c in
            if plan.restart { c.ringRestarts += 1 }
            if end == nil { c.ringFrameDecodes += 1 }
        }
        let wake = state.withLockedValue { s -> Wake? in
            guard var ring = s.rings[key], ring.animation.id == id else { return nil }
            if let end {
                ring.usable = min(ring.usable, end)
                ring.next = 0
            } else if let decoder {
                ring.decoder = HandedOver(value: decoder)
                ring.next = plan.next + 1
            }
            if failure != nil { ring.failed = true }
            let window = ring.window(s.limits.framesPerRing)
            if let drawn, window.contains(plan.next) {
                ring.frames = ring.frames.filter { window.contains($0.key) }
                ring.frames[plan.next] = drawn
            }
            ring.phase = .idle
            ring.measure(s.limits)
            let wake = wakeIfNeeded(key, &ring, s.limits)
            s.rings[key] = ring
            dropOverBudget(&s, keeping: key)
            return wake
        }
        if let wake { carryOut(wake) }
    }
}
