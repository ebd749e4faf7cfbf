import ImageTable

/// Counters and sizes of one format's table.
public struct FormatStatistics: Sendable, Hashable, Codable {
    /// The format name.
    public var format: String
    /// Images stored (an animation's frames and its record count one each).
    public var count: Int
    /// The most images the format keeps.
    public var maximumCount: Int
    /// Bytes the table file occupies on disk.
    public var diskBytes: Int
    /// Synchronous lookups that returned an image.
    public var hits: Int
    /// Lookups that found no up-to-date image.
    public var misses: Int
    /// Images evicted to make room.
    public var evictions: Int
    /// Images stored since the cache opened (an animation's frames and record count one each).
    public var inserts: Int
    /// Animations stored since the cache opened that are too large to store frame by frame:
    /// their frames would take more than a quarter of ``maximumCount``. Each stores its first
    /// frame and plays from a ring (``ringAnimations``), or, in a format whose image is too small
    /// for even its record, stays its first frame.
    public var animationsTooLarge: Int = 0
    /// Animations stored since the cache opened to play from a ring: their first frame and a
    /// record of every frame's duration are in the table, and the frames after the first are
    /// decoded a few at a time while they are played (see ``ImageCache/cachedImage(for:format:frame:)``).
    public var ringAnimations: Int = 0
    /// Frames the rings decoded since the cache opened: those they hold and those decoded only
    /// to reach them (an animation's frames are composited in order).
    public var ringFrameDecodes: Int = 0
    /// Times a ring started decoding again from the first frame since the cache opened: playing
    /// looped around, or went back to a frame the ring had passed.
    public var ringRestarts: Int = 0
}

/// Counters and sizes of a cache.
public struct CacheStatistics: Sendable, Hashable, Codable {
    /// Per format, in configuration order.
    public var formats: [FormatStatistics]
    /// Source images fetched from the provider.
    public var sourceFetches: Int
    /// Source images decoded (an animation decoded frame by frame counts once; rings' decodes
    /// are ``FormatStatistics/ringFrameDecodes``).
    public var sourceDecodes: Int
    /// Rings of animations being played now (see ``FormatStatistics/ringAnimations``).
    public var animationRings: Int = 0
    /// Stores that found another process or thread making the same entity's images and waited
    /// for it (``ImageCache/storeImages(from:for:family:releasingPages:)``).
    public var storesThatWaited: Int = 0
    /// Stores that, once they had claimed the entity (after waiting or not), found every image
    /// made by another process or thread, and decoded nothing.
    public var storesMadeByOthers: Int = 0
    /// Bytes all table files occupy on disk.
    public var diskBytes: Int { formats.reduce(0) { $0 + $1.diskBytes } }
}

/// Thread-safe counters of fetches, decodes and waits for other makers of the same images.
final class CacheCounters: Sendable {
    /// What the counters say.
    struct Counts {
        var fetches = 0, decodes = 0, storesThatWaited = 0, storesMadeByOthers = 0
    }

    private let counts = LockedBox(Counts())

    func countFetch() { counts.withLockedValue { $0.fetches += 1 } }
    func countDecode() { counts.withLockedValue { $0.decodes += 1 } }
    func countStoreThatWaited() { counts.withLockedValue { $0.storesThatWaited += 1 } }
    func countStoreMadeByOthers() { counts.withLockedValue { $0.storesMadeByOthers += 1 } }
    func snapshot() -> Counts { counts.withLockedValue { $0 } }
}
