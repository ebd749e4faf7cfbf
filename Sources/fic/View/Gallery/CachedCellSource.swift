#if Tool
import FICDemo
import FastImageCache

/// Cells straight from the image tables: a lookup (`cachedImage`) and a cairo surface over the
/// mapped pixels, no decode and no copy; an animated image's cell holds the player of its frames
/// (``GalleryAnimations``). The entities are given by a ``GalleryCatalog``, which may still be
/// filling the cache in the background.
final class CachedCellSource: CellSource {
    let name = "cache"
    private let cache: ImageCache
    private let format: String
    private let catalog: GalleryCatalog
    private let place: GalleryCachePlace

    init(cache: ImageCache, format: String, catalog: GalleryCatalog, place: GalleryCachePlace) {
        self.cache = cache
        self.format = format
        self.catalog = catalog
        self.place = place
    }

    func image(for index: Int) -> LiveCell? {
        guard let item = catalog.item(for: index) else { return nil }
        return LiveCell.firstFrame(of: item.player(in: cache, format: format))
    }

    var isIdle: Bool { catalog.isComplete }

    func overlayLines() -> [String] {
        (place.notice.map { [$0] } ?? [])
            + (catalog.isComplete ? [] : ["ingesting: \(catalog.progress.done) of \(catalog.progress.total) photos"])
    }

    func statistics() -> [String: StatValue] {
        let figures = cache.statistics
        var values: [String: StatValue] = [
            "cache_decodes": .int(figures.sourceDecodes), "cache_fetches": .int(figures.sourceFetches),
            "cache_stores_made_by_others": .int(figures.storesMadeByOthers),
            "cache_directory": .string(place.directory), "cache_namespace": .string(place.namespace),
            "cache_temporary": .bool(place.isTemporary)
        ]
        if let notice = place.notice { values["cache_notice"] = .string(notice) }
        return values
    }
}

/// Cells the conventional way, as the original demo measured it: each cell decodes its
/// pre-rendered JPEG thumbnail when it appears, with no memory cache (``ConventionalStore``).
final class ConventionalCellSource: CellSource {
    let name = "conventional"
    private let store: ConventionalStore
    private let photoCount: Int

    init(store: ConventionalStore) {
        self.store = store
        photoCount = store.paths.count
    }

    func image(for index: Int) -> LiveCell? {
        guard photoCount > 0 else { return nil }
        return store.cell(photo: index % photoCount)
    }
}
#endif
