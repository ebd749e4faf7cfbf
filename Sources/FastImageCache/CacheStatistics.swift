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
    /// Animations stored as their first frame only since the cache opened, because their frames
    /// would take more than a quarter of ``maximumCount`` (see ``ImageCache/animation(for:format:)``).
    public var animationsTooLarge: Int = 0
}

/// Counters and sizes of a cache.
public struct CacheStatistics: Sendable, Hashable, Codable {
    /// Per format, in configuration order.
    public var formats: [FormatStatistics]
    /// Source images fetched from the provider.
    public var sourceFetches: Int
    /// Source images decoded.
    public var sourceDecodes: Int
    /// Bytes all table files occupy on disk.
    public var diskBytes: Int { formats.reduce(0) { $0 + $1.diskBytes } }
}

/// Thread-safe counters of fetches and decodes.
final class CacheCounters: Sendable {
    private let counts = LockedBox((fetches: 0, decodes: 0))

    func countFetch() { counts.withLockedValue { $0.fetches += 1 } }
    func countDecode() { counts.withLockedValue { $0.decodes += 1 } }
    func snapshot() -> (Int, Int) { counts.withLockedValue { ($0.fetches, $0.decodes) } }
}
