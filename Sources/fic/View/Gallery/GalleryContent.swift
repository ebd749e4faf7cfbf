#if Tool
import FICDemo
import FICCommandLine
import CCairo
import FICCore
import FastImageCache
import Foundation

/// What the gallery shows and where it comes from: the cache, its catalog of photos, the
/// conventional path being prepared, and what to clean up at the end.
final class GalleryContent {
    let cache: ImageCache
    let format: ImageFormat
    let catalog: GalleryCatalog
    let conventional: ConventionalPreparation?
    /// Where the cache is.
    let place: GalleryCachePlace
    /// Whether the photos are the bundled samples (then the grid repeats them 10,000 times over).
    let isSample: Bool
    private let ingest: BackgroundIngest?
    private let temporaryFolder: String?
    private let closing: LockedBox<Bool>

    private init(
        cache: ImageCache, format: ImageFormat, catalog: GalleryCatalog, conventional: ConventionalPreparation?, place: GalleryCachePlace,
        isSample: Bool, ingest: BackgroundIngest?, temporaryFolder: String?, closing: LockedBox<Bool>
    ) {
        self.cache = cache
        self.format = format
        self.catalog = catalog
        self.conventional = conventional
        self.place = place
        self.isSample = isSample
        self.ingest = ingest
        self.temporaryFolder = temporaryFolder
        self.closing = closing
    }

    /// The photos under `folder` (the bundled samples when nil) in their cache (``GalleryCache``):
    /// photos already stored there from the same bytes are in the catalog before the first frame;
    /// the others are ingested in the background while the window shows. `formatName` is `thumb`
    /// (16-bit, 150 px) or `medium` (32-bit, 300 px, rounded corners).
    static func photos(_ folder: String?, formatName: String, placement: GalleryCache.Placement) throws -> GalleryContent {
        let root = try DefaultCache.realPath(try DemoPhotos.root(of: folder))
        let work = try DemoPhotos.outputFolder(nil)  // the conventional path's thumbnails, a temporary cache
        let opened: GalleryCache
        do {
            opened = try GalleryCache.open(folder: root, placement: placement, work: work)
        } catch {
            try? FileManager.default.removeItem(atPath: work)
            throw error
        }
        let cache = opened.cache, photos = opened.photos
        guard let format = cache.format(named: formatName) else {
            cache.close()
            try? FileManager.default.removeItem(atPath: work)
            throw CLIError(
                "--format must be \(DemoFormats.thumb) or \(DemoFormats.medium) with --photos, not '\(formatName)'",
                status: ExitStatus.usage)
        }
        // A photo whose version the memo knows and whose images are stored needs nothing more.
        let catalog = GalleryCatalog(count: photos.photos.count)
        var pending: [Int] = []
        for (index, photo) in photos.photos.enumerated() {
            if let hash = photo.knownHash {
                let entity = photo.entity(hash: hash)
                if cache.containsImages(for: entity) {
                    catalog.settle(.entity(entity), at: index)
                    continue
                }
            }
            pending.append(index)
        }
        let ingest = try BackgroundIngest(photos: photos, pending: pending, cache: cache, catalog: catalog, keeping: opened.keeping)
        let closing = LockedBox(false)
        // From the cache's images once the ingest has settled: the photos are not decoded again.
        let conventional = try ConventionalPreparation(photoCount: photos.photos.count) { progress in
            ingest.waitUntilSettled()
            return try ConventionalThumbnails.fromCache(
                cache, format: format, items: catalog.items, folder: work + "/thumbnails",
                progress: progress, shouldStop: { closing.withLockedValue { $0 } })
        }
        return GalleryContent(
            cache: cache, format: format, catalog: catalog, conventional: conventional, place: opened.place,
            isSample: folder == nil, ingest: ingest, temporaryFolder: work, closing: closing)
    }

    /// An existing cache made by `fic ingest`, opened read-only; the cells show format
    /// `formatName` (default: the cache's first), one per stored image, in name order.
    static func existing(_ location: CacheLocation, formatName: String?) throws -> GalleryContent {
        let (cache, _) = try location.openExisting(readOnly: true)
        do {
            guard let format = formatName.map({ cache.format(named: $0) }) ?? cache.formats.first else {
                throw CLIError(
                    "the cache has no format '\(formatName ?? "")'; it has \(cache.formats.map(\.name).joined(separator: ", "))",
                    status: ExitStatus.usage)
            }
            guard format.style != .gray8 else {
                throw CLIError(
                    "format '\(format.name)' is 8-bit gray, which the viewer cannot draw; choose another with --format (the cache has \(cache.formats.map(\.name).joined(separator: ", ")))",
                    status: ExitStatus.usage)
            }
            let labels = try cache.entries(format: format.name).map(\.label).sorted()
            guard !labels.isEmpty else {
                throw CLIError(
                    "the cache holds no image in format '\(format.name)': fill it with `fic ingest DIR --cache \(location.directory) --namespace \(location.namespace)`"
                )
            }
            let catalog = GalleryCatalog(items: labels.map { .entityID($0) })
            let work = try DemoPhotos.outputFolder(nil)
            let closing = LockedBox(false)
            let conventional = try ConventionalPreparation(photoCount: labels.count) { progress in
                try ConventionalThumbnails.fromCache(
                    cache, format: format, items: labels.map { .entityID($0) }, folder: work, progress: progress,
                    shouldStop: { closing.withLockedValue { $0 } })
            }
            let place = GalleryCachePlace(directory: location.directory, namespace: location.namespace, isTemporary: false, notice: nil)
            return GalleryContent(
                cache: cache, format: format, catalog: catalog, conventional: conventional, place: place,
                isSample: false, ingest: nil, temporaryFolder: work, closing: closing)
        } catch {
            cache.close()
            throw error
        }
    }

    /// Stops the background work, closes the cache and removes the temporary files.
    func close() {
        closing.withLockedValue { $0 = true }
        ingest?.stop()
        conventional?.waitUntilReady()
        cache.close()
        if let temporaryFolder { try? FileManager.default.removeItem(atPath: temporaryFolder) }
    }
}
#endif
