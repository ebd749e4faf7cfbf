import CCairo
import FastImageCache
import Foundation

/// What the gallery shows and where it comes from: the cache, its catalog of photos, the
/// conventional path being prepared, and what to clean up at the end.
final class GalleryContent {
    let cache: ImageCache
    let format: ImageFormat
    let catalog: GalleryCatalog
    let conventional: ConventionalPreparation?
    /// Whether the photos are the bundled samples (then the grid repeats them 10,000 times over).
    let isSample: Bool
    private let ingest: BackgroundIngest?
    private let temporaryFolder: String?

    private init(cache: ImageCache, format: ImageFormat, catalog: GalleryCatalog, conventional: ConventionalPreparation?, isSample: Bool, ingest: BackgroundIngest?, temporaryFolder: String?) {
        self.cache = cache
        self.format = format
        self.catalog = catalog
        self.conventional = conventional
        self.isSample = isSample
        self.ingest = ingest
        self.temporaryFolder = temporaryFolder
    }

    /// The photos under `folder` (the bundled samples when nil), ingested into a temporary cache
    /// in the background while the window shows; `formatName` is `thumb` (16-bit, 150 px) or
    /// `medium` (32-bit, 300 px, rounded corners).
    static func photos(_ folder: String?, formatName: String) throws -> GalleryContent {
        let sources = try DemoPhotos.find(in: folder)
        let work = try DemoPhotos.outputFolder(nil)
        let cache: ImageCache
        do {
            cache = try CacheOpener.open(directory: work + "/cache", namespace: "view", formats: try DemoFormats.make(count: sources.count))
        } catch {
            try? FileManager.default.removeItem(atPath: work)
            throw error
        }
        guard let format = cache.format(named: formatName) else {
            cache.close()
            try? FileManager.default.removeItem(atPath: work)
            throw CLIError("--format must be \(DemoFormats.thumb) or \(DemoFormats.medium) with --photos, not '\(formatName)'", status: ExitStatus.usage)
        }
        let catalog = GalleryCatalog(count: sources.count)
        let ingest = BackgroundIngest(sources: sources, cache: cache, catalog: catalog)
        let points = format.size.width
        let conventional = ConventionalPreparation(photoCount: sources.count) { progress in
            try ConventionalThumbnails.fromPhotos(sources, folder: work + "/thumbnails", points: Double(points), scale: Double(format.scale), progress: progress)
        }
        return GalleryContent(cache: cache, format: format, catalog: catalog, conventional: conventional, isSample: folder == nil, ingest: ingest, temporaryFolder: work)
    }

    /// An existing cache made by `fic ingest`, opened read-only; the cells show format
    /// `formatName` (default: the cache's first), one per stored image, in name order.
    static func existing(_ options: CacheOptions, formatName: String?) throws -> GalleryContent {
        let (cache, _) = try options.openExisting(readOnly: true)
        do {
            guard let format = formatName.map({ cache.format(named: $0) }) ?? cache.formats.first else {
                throw CLIError("the cache has no format '\(formatName ?? "")'; it has \(cache.formats.map(\.name).joined(separator: ", "))", status: ExitStatus.usage)
            }
            guard format.style != .gray8 else {
                throw CLIError("format '\(format.name)' is 8-bit gray, which the viewer cannot draw; choose another with --format (the cache has \(cache.formats.map(\.name).joined(separator: ", ")))", status: ExitStatus.usage)
            }
            let labels = try cache.entries(format: format.name).map(\.label).sorted()
            guard !labels.isEmpty else {
                throw CLIError("the cache holds no image in format '\(format.name)': fill it with `fic ingest DIR --cache \(options.directory)`")
            }
            let catalog = GalleryCatalog(items: labels.map { .entityID($0) })
            let work = try DemoPhotos.outputFolder(nil)
            let conventional = ConventionalPreparation(photoCount: labels.count) { progress in
                try ConventionalThumbnails.fromCache(cache, format: format, entityIDs: labels, folder: work, progress: progress)
            }
            return GalleryContent(cache: cache, format: format, catalog: catalog, conventional: conventional, isSample: false, ingest: nil, temporaryFolder: work)
        } catch {
            cache.close()
            throw error
        }
    }

    /// Stops the background work, closes the cache and removes the temporary files.
    func close() {
        ingest?.stop()
        conventional?.waitUntilReady()
        cache.close()
        if let temporaryFolder { try? FileManager.default.removeItem(atPath: temporaryFolder) }
    }
}
