import ImageTable
import Synchronization

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
    /// The cache's callers' lookups of an image of this format that found it, since the cache
    /// opened: each ``ImageCache/cachedImage(for:format:)``, ``ImageCache/cachedImage(entityID:format:)``
    /// and their `frame:` forms that returned an image (an animation's frame from its ring too),
    /// and each ``ImageCache/image(for:format:priority:)`` that found the image stored.
    ///
    /// Only what a caller asks for counts, once per call: the cache's own looks (at the other
    /// formats of the family it draws beside the one asked for, again when a fetch starts and
    /// ends, at an animation's record) count neither as hits nor as misses, and neither do
    /// ``ImageCache/containsImage(for:format:)``, ``ImageCache/animation(for:format:)`` and
    /// prefetches. (The table's own `TableStatistics.hits` count every lookup of the table.)
    public var hits: Int
    /// The cache's callers' lookups of an image of this format that did not find it, since the
    /// cache opened: each ``ImageCache/cachedImage(for:format:)``, ``ImageCache/cachedImage(entityID:format:)``
    /// and their `frame:` forms that returned nil, and each ``ImageCache/image(for:format:priority:)``
    /// that did not find an up-to-date image stored, whatever then served it.
    ///
    /// So a request for an image not yet cached is one miss of the format it asked for, and each
    /// format of the family drawn for it is one of ``inserts``: five first requests for five
    /// images in one format read as five misses of that format (and no miss of the others). As
    /// for ``hits``, the cache's own looks, ``ImageCache/containsImage(for:format:)``,
    /// ``ImageCache/animation(for:format:)`` and prefetches are not counted.
    public var misses: Int
    /// Images evicted to make room.
    public var evictions: Int
    /// Images stored since the cache opened, in this format (an animation's frames and record
    /// count one each): one per request or store that drew it, whichever format of the family
    /// was asked for.
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

/// Thread-safe counters of the cache's callers' lookups of one format's images: what
/// ``FormatStatistics/hits`` and ``FormatStatistics/misses`` say. Counted at the cache's public
/// lookups, not in the table, whose own counters also count every look the cache takes for
/// itself; atomics rather than a lock, as they are counted on the frame path.
final class LookupCounters: Sendable {
    private let hits = Atomic<Int>(0)
    private let misses = Atomic<Int>(0)

    /// Counts a lookup that returned `image` (a hit) or nil (a miss), and returns `image`.
    @inline(__always)
    func counted(_ image: CachedImage?) -> CachedImage? {
        count(found: image != nil)
        return image
    }

    /// Counts a lookup that found its image or did not.
    @inline(__always)
    func count(found: Bool) {
        if found {
            hits.wrappingAdd(1, ordering: .relaxed)
        } else {
            misses.wrappingAdd(1, ordering: .relaxed)
        }
    }

    /// The hits and misses counted so far.
    var snapshot: (hits: Int, misses: Int) {
        (hits.load(ordering: .relaxed), misses.load(ordering: .relaxed))
    }
}
