import FastImageCache

/// Cells straight from the image tables: a lookup (`cachedImage`) and a cairo surface over the
/// mapped pixels, no decode and no copy. The entities are given by a ``GalleryCatalog``, which
/// may still be filling the cache in the background.
final class CachedCellSource: CellSource {
    let name = "cache"
    private let cache: ImageCache
    private let format: String
    private let catalog: GalleryCatalog

    init(cache: ImageCache, format: String, catalog: GalleryCatalog) {
        self.cache = cache
        self.format = format
        self.catalog = catalog
    }

    func image(for index: Int) -> LiveCell? {
        let image: CachedImage?
        switch catalog.item(for: index) {
        case .entity(let entity)?: image = cache.cachedImage(for: entity, format: format)
        case .entityID(let id)?: image = cache.cachedImage(entityID: id, format: format)
        case nil: image = nil
        }
        guard let image, let surface = try? image.makeCairoSurface() else { return nil }
        return LiveCell(surface: surface, owner: nil)  // the surface keeps the image alive
    }

    var isIdle: Bool { catalog.isComplete }

    func overlayLines() -> [String] {
        catalog.isComplete ? [] : ["ingesting: \(catalog.progress.done) of \(catalog.progress.total) photos"]
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
