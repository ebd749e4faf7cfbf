/// What the cache knows of an entity's animation in a format: how many frames it has, how
/// long each is shown and how many times it plays. Returned by
/// ``ImageCache/animation(for:format:)``; read from the table, so a new process knows it
/// without decoding anything. A still image is an animation of one frame that plays once.
public struct StoredAnimation: Sendable, Hashable {
    /// The number of frames; frame *n* is ``ImageCache/cachedImage(for:format:frame:)``.
    public var frameCount: Int
    /// Each frame's duration in milliseconds, as stored in the source file (before the rule for
    /// tiny delays, which ``timeline`` applies).
    public var durations: [Int]
    /// How many times the animation plays, 0 meaning forever (as `AnimationInfo.loopCount`).
    public var loopCount: Int
    /// Whether the frames after the first play from a ring of a few frames decoded ahead, rather
    /// than from the table: the animation would take more than a quarter of the format's table.
    /// A ring frame not decoded yet is nil from ``ImageCache/cachedImage(for:format:frame:)``
    /// (show the previous one); asking for it makes the ring decode ahead from it.
    public var playsFromRing: Bool

    /// Creates a value.
    public init(durations: [Int], loopCount: Int, playsFromRing: Bool = false) {
        self.frameCount = durations.count
        self.durations = durations
        self.loopCount = loopCount
        self.playsFromRing = playsFromRing
    }

    /// The frame to show at each moment of playing.
    public var timeline: AnimationTimeline { AnimationTimeline(durations: durations, loopCount: loopCount) }

    /// A still image: one frame, played once.
    static let still = StoredAnimation(durations: [0], loopCount: 1)
}

/// Maps the time since an animation started playing to the frame to show, as browsers do: a
/// frame whose delay is 10 ms or less is shown for 100 ms, frames follow one another in order, the
/// animation starts again after its last frame until it has played ``loopCount`` times (forever
/// when 0), and after its last play its last frame stays.
///
/// Pure arithmetic on the elapsed time it is given: the player owns the clock.
///
/// ```swift
/// let timeline = animation.timeline
/// let frame = timeline.frame(at: clock.now - start)
/// ```
public struct AnimationTimeline: Sendable, Hashable {
    /// Each frame's display time in milliseconds, after the rule for tiny delays.
    public let frameDurations: [Int]
    /// How many times the animation plays, 0 meaning forever.
    public let loopCount: Int
    /// Where each frame ends within one play, in milliseconds (sums clamped to `Int`): a frame
    /// is found by binary search, whatever the number of frames.
    private let ends: [Int]

    /// A timeline for frames of `durations` (milliseconds, as stored) played `loopCount` times
    /// (0: forever; negative counts as 0).
    public init(durations: [Int], loopCount: Int) {
        frameDurations = durations.map(Self.displayDuration)
        self.loopCount = max(0, loopCount)
        var end = 0
        ends = frameDurations.map { d in
            let (sum, overflow) = end.addingReportingOverflow(d)
            end = overflow ? Int.max : sum
            return end
        }
    }

    /// The time a frame whose stored delay is `milliseconds` is shown: 100 ms when the delay is
    /// 10 ms or less (browsers' rule, which old GIFs rely on), otherwise the delay itself.
    public static func displayDuration(_ milliseconds: Int) -> Int {
        milliseconds <= 10 ? 100 : milliseconds
    }

    /// The number of frames.
    public var frameCount: Int { frameDurations.count }

    /// The length of one play, in milliseconds.
    public var playDuration: Int { ends.last ?? 0 }

    /// The frame to show `elapsed` after the animation started (frame 0 before it started).
    public func frame(at elapsed: Duration) -> Int {
        frame(atMilliseconds: Self.milliseconds(elapsed))
    }

    /// The frame to show `milliseconds` after the animation started: frame *i* is shown from the
    /// end of frame *i − 1* (included) to its own end (excluded).
    public func frame(atMilliseconds milliseconds: Int) -> Int {
        let total = playDuration
        guard frameDurations.count > 1, milliseconds > 0, total > 0 else { return 0 }
        if isFinished(atMilliseconds: milliseconds) { return frameDurations.count - 1 }
        return min(frameEnding(after: milliseconds % total), frameDurations.count - 1)
    }

    /// When the frame shown `milliseconds` after the start ends and another begins (milliseconds
    /// since the start), or nil when none will: a still image, or the last frame of the last play.
    /// Before the start, frame 0 is shown until its end.
    public func nextFrameStart(afterMilliseconds milliseconds: Int) -> Int? {
        let total = playDuration
        guard frameDurations.count > 1, total > 0, !isFinished(atMilliseconds: milliseconds) else { return nil }
        let at = max(milliseconds, 0)
        let index = frameEnding(after: at % total)
        guard index < ends.count else { return nil }
        let (end, overflow) = (at - at % total).addingReportingOverflow(ends[index])
        if overflow { return nil }
        if loopCount > 0 {
            let (last, overflow) = total.multipliedReportingOverflow(by: loopCount)
            if !overflow && end >= last { return nil }  // the last frame of the last play stays
        }
        return end
    }

    /// The first frame that ends after `position` (milliseconds within one play).
    private func frameEnding(after position: Int) -> Int {
        var low = 0, high = ends.count
        while low < high {
            let middle = (low + high) / 2
            if ends[middle] > position { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// Whether every play is over `elapsed` after the start (never for an endless animation).
    public func isFinished(at elapsed: Duration) -> Bool {
        isFinished(atMilliseconds: Self.milliseconds(elapsed))
    }

    /// Whether every play is over `milliseconds` after the start: from the end of the last
    /// frame of the last play on.
    public func isFinished(atMilliseconds milliseconds: Int) -> Bool {
        let total = playDuration
        guard loopCount > 0, total > 0 else { return false }
        return milliseconds / total >= loopCount
    }

    /// `d` in whole milliseconds, rounded towards zero, clamped to `Int`.
    static func milliseconds(_ d: Duration) -> Int {
        let (seconds, attoseconds) = d.components
        let (ms, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        if overflow { return seconds < 0 ? Int.min : Int.max }
        let (sum, overflow2) = Int(ms).addingReportingOverflow(Int(attoseconds / 1_000_000_000_000_000))
        return overflow2 ? (ms < 0 ? Int.min : Int.max) : sum
    }
}

/// The animation record stored in a slot of each format's table beside the frames: a few bytes
/// at the start of the slot's pixels (which the table checksums like any image's).
///
/// Layout, little-endian `UInt32`s: magic "FICA", version, frame count, loop count, then (from
/// version 2) flags — bit 0: the animation plays from a ring; bit 1: its frames after the first
/// are being stored — then each frame's duration in milliseconds. Version 1 records (no flags)
/// are still read: they never play from a ring, and their frames are all stored.
enum AnimationRecord {
    static let magic: UInt32 = 0x4143_4946  // "FICA" read as little-endian
    static let version: UInt32 = 2
    static let headerBytes = 20
    /// Flag bit: the frames after the first play from a ring.
    static let playsFromRing: UInt32 = 1
    /// Flag bit: the frames after the first are being stored (set with the record before frame 0,
    /// cleared once the last frame is stored). A record that has it while no job of this process
    /// stores the frames was left by a process that stopped in the middle (killed, or crashed).
    static let beingStored: UInt32 = 2

    /// The bytes a record of `frameCount` frames takes.
    static func byteCount(frames frameCount: Int) -> Int { headerBytes + 4 * frameCount }

    /// Writes the record of `animation` at the start of `buffer` (which must hold ``byteCount(frames:)``).
    static func write(_ animation: StoredAnimation, storing: Bool = false, to buffer: UnsafeMutableRawBufferPointer) {
        var values: [UInt32] = [
            magic, version, UInt32(clamping: animation.frameCount), UInt32(clamping: animation.loopCount),
            (animation.playsFromRing ? playsFromRing : 0) | (storing ? beingStored : 0)
        ]
        values += animation.durations.map { UInt32(clamping: $0) }
        for (i, v) in values.enumerated() {
            buffer.storeBytes(of: v.littleEndian, toByteOffset: 4 * i, as: UInt32.self)
        }
    }

    /// The record at the start of `bytes` (version 1 or 2), or nil when they hold none (or a
    /// damaged one, or unknown flags).
    static func read(_ bytes: UnsafeRawBufferPointer) -> StoredAnimation? {
        readWithState(bytes)?.animation
    }

    /// ``read(_:)``, and whether the record says its frames are being stored.
    static func readWithState(_ bytes: UnsafeRawBufferPointer) -> (animation: StoredAnimation, storing: Bool)? {
        func u32(_ i: Int) -> Int { Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self))) }
        guard bytes.count >= 16, u32(0) == Int(magic) else { return nil }
        let header: Int, flags: Int
        switch u32(1) {
        case 1:
            (header, flags) = (16, 0)
        case 2:
            guard bytes.count >= headerBytes else { return nil }
            (header, flags) = (headerBytes, u32(4))
        default:
            return nil
        }
        let frames = u32(2), loops = u32(3)
        guard frames >= 1, frames <= (bytes.count - header) / 4, loops <= Int(Int32.max), flags & ~Int(playsFromRing | beingStored) == 0
        else { return nil }
        let animation = StoredAnimation(
            durations: (0..<frames).map { u32(header / 4 + $0) }, loopCount: loops,
            playsFromRing: flags & Int(playsFromRing) != 0)
        return (animation, flags & Int(beingStored) != 0)
    }
}
