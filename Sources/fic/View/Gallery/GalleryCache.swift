#if Tool
import FICDemo
import FICCommandLine
import FastImageCache
import Foundation

/// Where the gallery's cache is, for the overlay and `--stats`.
struct GalleryCachePlace: Sendable {
    /// The cache directory.
    let directory: String
    /// The namespace.
    let namespace: String
    /// Whether it is a temporary folder removed when the window closes.
    let isTemporary: Bool
    /// Why the cache is temporary although it was to be kept, for the overlay (nil otherwise).
    let notice: String?
}

/// The cache of a folder of photos in the gallery: the folder's own namespace, kept between
/// launches in the cache folder (``DefaultCache`` or `--cache`), or a temporary one (`--temporary`,
/// or when another process has the folder's namespace open).
struct GalleryCache {
    /// Where to keep it, from the command line.
    struct Placement {
        /// `--cache`: the cache folder (nil: the default one).
        var directory: String?
        /// `--namespace` (nil: the photo folder's own).
        var namespace: String?
        /// `--temporary`: a temporary folder, removed at the end.
        var temporary = false
        /// `--follow-links`.
        var followLinks = false
        /// `--cache-limit`: the most the cache folder's tables may occupy, in bytes.
        var limitBytes = DefaultCache.limitMiB << 20
    }

    /// What the overlay says when the folder's cache is open in another process.
    static let inUseNotice = "the cache of this folder is open in another fic process; this window uses a temporary cache"

    let cache: ImageCache
    let place: GalleryCachePlace
    let photos: GalleryPhotos
    /// What is kept between launches; nil for a temporary cache.
    let keeping: GalleryKeeping?

    /// Opens the cache of the photos under the real path `folder` as `placement` says; a
    /// temporary cache goes in `work/cache`.
    ///
    /// - Throws: ``CLIError`` when the folder holds no photo, the cache cannot be opened, or the
    ///   namespace holds formats other than the viewer's.
    static func open(folder: String, placement: Placement, work: String) throws -> GalleryCache {
        var notice: String?
        if !placement.temporary {
            let location = CacheLocation(
                directory: try placement.directory.map(Paths.absolute) ?? DefaultCache.directory(),
                namespace: placement.namespace ?? DefaultCache.namespace(forResolvedPath: folder),
                followLinks: placement.followLinks)
            let memo = SourceMemo.load(directory: location.directory, namespace: location.namespace, followLinks: location.followLinks)
            let photos = try GalleryPhotos(folder: folder, memo: memo)
            let existing = try CacheDescription.loadIfPresent(
                directory: location.directory, namespace: location.namespace, followLinks: location.followLinks)
            let description = try Self.description(existing, count: photos.photos.count, folder: folder, location: location)
            let formats = try description.storedFormats(directory: location.directory, namespace: location.namespace)
            if let cache = try CacheOpener.openUnlessInUse(
                directory: location.directory, namespace: location.namespace, formats: formats, options: location.options(readOnly: false))
            {
                do {
                    try description.save(directory: location.directory, namespace: location.namespace, followLinks: location.followLinks)
                } catch {
                    cache.close()
                    throw error
                }
                let keeping = GalleryKeeping(
                    location: location, memo: memo, ownsNamespace: existing?.photos == folder, limitBytes: placement.limitBytes)
                let place = GalleryCachePlace(directory: location.directory, namespace: location.namespace, isTemporary: false, notice: nil)
                return GalleryCache(cache: cache, place: place, photos: photos, keeping: keeping)
            }
            // Never two writers on one namespace: this window gets pictures of its own.
            notice = inUseNotice
            Terminal.error(inUseNotice)
        }
        let photos = try GalleryPhotos(folder: folder, memo: SourceMemo())
        let directory = work + "/cache", namespace = "view"
        let cache = try CacheOpener.open(
            directory: directory, namespace: namespace, formats: try DemoFormats.make(count: photos.photos.count))
        let place = GalleryCachePlace(directory: directory, namespace: namespace, isTemporary: true, notice: notice)
        return GalleryCache(cache: cache, place: place, photos: photos, keeping: nil)
    }

    /// The description to open the namespace with: the stored one when it holds the viewer's
    /// formats with room for `count` photos; the viewer's formats for a new namespace, or one that
    /// needs more room (its images are discarded then, once per 10,000 photos added). A namespace
    /// of other formats is not replaced: the error says what to do.
    static func description(_ existing: CacheDescription?, count: Int, folder: String, location: CacheLocation) throws -> CacheDescription {
        guard let existing else { return try DemoFormats.description(count: count, photos: folder) }
        guard DemoFormats.isViewerDescription(existing) else {
            throw CLIError(
                "the cache \(location.path) holds formats other than the viewer's (\(existing.formats.map(\.name).joined(separator: ", ")), family \(existing.family)), "
                    + "so the viewer does not replace them: show them with 'fic view gallery --cache \(location.directory) --namespace \(location.namespace)', "
                    + "or give this window another place with --namespace NS, --cache DIR or --temporary")
        }
        // A namespace of another folder's (chosen with --namespace) stays that folder's.
        let photos = existing.photos ?? folder
        let needed = DemoFormats.maximumCount(for: count)
        if existing.formats.allSatisfy({ $0.maximumCount >= needed }) {
            var kept = existing
            kept.photos = photos
            return kept
        }
        return try DemoFormats.description(count: count, photos: photos)
    }
}
#endif
