#if Tool
import FICDemo
import FICCore
import FastImageCache

/// The gallery's photos, by cell: cell `i` shows photo `i % count`. Photos found stored before
/// the first frame are settled at once; the others in the background as they are ingested (a
/// photo not stored yet has no item and shows a placeholder). Complete from the start for an
/// existing cache. Thread-safe.
final class GalleryCatalog: Sendable {
    /// How a cell's image is found in the cache.
    enum Item: Sendable {
        /// An entity with its source version (photos ingested by the viewer).
        case entity(DemoPhoto)
        /// An entity identifier only (an existing cache, listed from its table).
        case entityID(String)

        /// Its stored image in `format`, now (the frame path's lookup), or nil.
        func image(in cache: ImageCache, format: String) -> CachedImage? {
            switch self {
            case .entity(let entity): return cache.cachedImage(for: entity, format: format)
            case .entityID(let id): return cache.cachedImage(entityID: id, format: format)
            }
        }

        /// A player of its image in `format`, which reads nothing until asked for a frame.
        func player(in cache: ImageCache, format: String) -> AnimationPlayer {
            switch self {
            case .entity(let entity): return AnimationPlayer(cache: cache, entity: entity, format: format)
            case .entityID(let id): return AnimationPlayer(cache: cache, entityID: id, format: format)
            }
        }
    }

    /// Photos in the catalog.
    let count: Int
    private let state: LockedBox<(items: [Item?], settled: Int)>

    /// A catalog of `count` photos whose items arrive later through ``set(_:at:)``.
    init(count: Int) {
        self.count = count
        state = LockedBox((items: Array(repeating: nil, count: count), settled: 0))
    }

    /// A complete catalog of `items`.
    init(items: [Item]) {
        count = items.count
        state = LockedBox((items: items, settled: items.count))
    }

    /// The item of cell `index`, or nil when its photo is not stored (yet).
    func item(for index: Int) -> Item? {
        guard count > 0 else { return nil }
        return state.withLockedValue { $0.items[index % count] }
    }

    /// Records photo `index` as stored (`item`) or refused (nil).
    func settle(_ item: Item?, at index: Int) {
        state.withLockedValue {
            $0.items[index] = item
            $0.settled += 1
        }
    }

    /// Every photo's item, in photo order (nil: not stored, yet or at all).
    var items: [Item?] { state.withLockedValue { $0.items } }

    /// Photos settled (stored or refused) and the total.
    var progress: (done: Int, total: Int) { state.withLockedValue { ($0.settled, count) } }

    /// Whether every photo has been settled.
    var isComplete: Bool { progress.done >= count }
}
#endif
