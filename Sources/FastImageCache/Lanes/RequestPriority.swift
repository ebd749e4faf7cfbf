import Foundation

/// How urgently an image is wanted. A request's job runs at the highest priority of everyone
/// waiting for it, and moves between lanes when that changes, even while queued or running.
///
/// `normal` and above go to the parallel *fast* lane (images on screen now); `low` and
/// `veryLow` go to the serial *slow* lane (prefetching), which waits while the fast lane has
/// work. Within a lane, higher priorities go first, then first come, first served.
public enum RequestPriority: Int, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
    /// Prefetching far ahead.
    case veryLow = 0
    /// Prefetching (the default of ``ImageCache/prefetch(_:format:priority:)-(ImageEntity,_,_)``).
    case low = 1
    /// Wanted soon.
    case normal = 2
    /// On screen now (the default of ``ImageCache/image(for:format:priority:)``).
    case high = 3
    /// On screen now, before anything else.
    case veryHigh = 4

    /// The lane a job of this priority runs in.
    public var lane: RequestLane { self >= .normal ? .fast : .slow }

    /// Orders by urgency.
    public static func < (a: RequestPriority, b: RequestPriority) -> Bool { a.rawValue < b.rawValue }

    /// The priority's name.
    public var description: String {
        switch self {
        case .veryLow: "veryLow"
        case .low: "low"
        case .normal: "normal"
        case .high: "high"
        case .veryHigh: "veryHigh"
        }
    }

    /// The priority of Swift tasks that fetch for a job of this priority.
    var taskPriority: TaskPriority {
        switch self {
        case .veryLow, .low: .low
        case .normal: .medium
        case .high, .veryHigh: .high
        }
    }
}

/// The two lanes of source fetching.
public enum RequestLane: String, Sendable, Hashable, CaseIterable {
    /// Parallel; for images wanted now.
    case fast
    /// Serial, and paused while the fast lane has work; for prefetching.
    case slow
}

/// How much work of each kind a cache runs at once.
public struct RequestLanes: Sendable, Hashable {
    /// Source fetches (network or disk) of the fast lane at once. Defaults to 6, what browsers
    /// open per host.
    public var fastFetches: Int
    /// Source fetches of the slow lane at once. Defaults to 1: prefetches go one at a time.
    public var slowFetches: Int
    /// Decodes and draws at once, on the cache's own threads. Defaults to the number of cores,
    /// at most 4.
    public var cpuWorkers: Int
    /// How many fetched sources may wait for a decode before the fast lane starts no more
    /// fetches (bounds the memory of encoded sources waiting for the CPU). Defaults to 4 × the
    /// fast fetches; the slow lane starts nothing while 2 wait.
    public var maximumFetchedAwaitingDecode: Int
    /// The nice value of the decoding and drawing threads (0 to 19; 0 runs them as the rest of
    /// the process). Defaults to 5, below the application's own threads: a frame thread that
    /// wants a core gets it before a decoder does, as Nuke and SDWebImage decode at a lower
    /// quality of service than the main thread.
    public var cpuNiceness: Int

    /// Lanes with the given widths; each is at least 1.
    public init(
        fastFetches: Int = 6, slowFetches: Int = 1, cpuWorkers: Int = min(4, ProcessInfo.processInfo.activeProcessorCount),
        maximumFetchedAwaitingDecode: Int? = nil, cpuNiceness: Int = 5
    ) {
        self.cpuNiceness = max(0, min(19, cpuNiceness))
        self.fastFetches = max(1, fastFetches)
        self.slowFetches = max(1, slowFetches)
        self.cpuWorkers = max(1, cpuWorkers)
        self.maximumFetchedAwaitingDecode = max(1, maximumFetchedAwaitingDecode ?? 4 * self.fastFetches)
    }

    /// The defaults.
    public static let standard = RequestLanes()
}

/// A snapshot of a cache's request lanes.
public struct RequestQueueStatistics: Sendable, Hashable, Codable {
    /// Jobs (one per source URL) waiting for a fetch slot, per lane.
    public var queuedFast: Int
    /// See ``queuedFast``.
    public var queuedSlow: Int
    /// Fetches running in each lane.
    public var fetchingFast: Int
    /// See ``fetchingFast``.
    public var fetchingSlow: Int
    /// Fetched sources waiting for a decode.
    public var awaitingDecode: Int
    /// Jobs being decoded and drawn.
    public var decoding: Int
    /// Callers and prefetches waiting, over all jobs.
    public var waiters: Int
    /// Jobs promoted from the slow lane to the fast lane since the cache opened.
    public var promotions: Int
    /// Jobs demoted from the fast lane to the slow lane since the cache opened.
    public var demotions: Int
    /// Animations whose frames after the first are queued or being stored, on the slow lane.
    public var storingFrames: Int = 0

    /// Whether no job is queued, fetching or decoding, and no animation's frames are being stored.
    public var isIdle: Bool { queuedFast + queuedSlow + fetchingFast + fetchingSlow + awaitingDecode + decoding + storingFrames == 0 }
}
