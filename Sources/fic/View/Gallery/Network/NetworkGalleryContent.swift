#if Tool
import FICDemo
import FICCommandLine
import FastImageCache
import Foundation
import ImageLoader

/// What a network gallery (`--urls FILE`) shows and where it keeps it: the image tables (a
/// cache folder given with `--cache`, or a temporary one), the originals cache (`--originals`,
/// default `CACHE/NAMESPACE.originals`, as `fic ingest` uses, or the temporary folder's), and the loader that fills them.
final class NetworkGalleryContent {
    /// The version every network gallery image is stored under: an image is named by its URL,
    /// and is not redrawn when the bytes behind the URL change (the originals cache revalidates
    /// the bytes as HTTP says; draw them again by clearing the cache folder).
    static let sourceVersion = "url"
    /// The originals cache's size limit.
    static let originalsLimit = 1 << 30

    let cache: ImageCache
    let format: ImageFormat
    let loader: OriginalsLoader
    /// One entity per distinct URL, in the order first listed.
    let entities: [URLImageEntity]
    /// For each line of the list, its entity's index (a URL listed twice is one photo).
    let photoOfLine: [Int]
    private let temporaryFolder: String?

    private init(
        cache: ImageCache, format: ImageFormat, loader: OriginalsLoader, entities: [URLImageEntity], photoOfLine: [Int],
        temporaryFolder: String?
    ) {
        self.cache = cache
        self.format = format
        self.loader = loader
        self.entities = entities
        self.photoOfLine = photoOfLine
        self.temporaryFolder = temporaryFolder
    }

    /// Opens the caches for the URLs of `urls`.
    ///
    /// - Parameters:
    ///   - cacheFolder: the image tables' folder (created if missing; opened with its stored
    ///     formats when it holds a cache of `namespace`); nil: a temporary folder, removed at the end.
    ///   - originalsFolder: the originals cache; nil: `NAMESPACE.originals` in the cache folder.
    ///   - formatName: `thumb` (default), `medium`, or a spec `NAME:WxH[@SCALE][:STYLE]`, for a new
    ///     cache; the name of one of its formats for an existing one.
    ///   - fetchDelay: a wait before each fetch, in milliseconds (tests).
    ///   - fetchesBeforeHold: when set, only the first this many distinct URLs are fetched; the
    ///     others' fetches wait until they are cancelled (tests).
    static func open(
        urls: [URL], cacheFolder: String?, originalsFolder: String?, namespace: String, followLinks: Bool,
        formatName: String?, fetchDelay: Int, fetchesBeforeHold: Int?
    ) throws -> NetworkGalleryContent {
        var index: [URL: Int] = [:]
        var entities: [URLImageEntity] = []
        let photoOfLine = urls.map { url -> Int in
            if let i = index[url] { return i }
            index[url] = entities.count
            entities.append(URLImageEntity(url: url, sourceImageID: sourceVersion))
            return entities.count - 1
        }
        let temporary = cacheFolder == nil ? try DemoPhotos.outputFolder(nil) : nil
        func discard() { if let temporary { try? FileManager.default.removeItem(atPath: temporary) } }
        do {
            let directory = cacheFolder.map(Paths.absolute) ?? temporary! + "/cache"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let formats = try formats(
                directory: directory, namespace: namespace, followLinks: followLinks, formatName: formatName, count: entities.count)
            let originalsPath =
                originalsFolder.map(Paths.absolute) ?? CacheDescription.originalsPath(directory: directory, namespace: namespace)
            guard originalsPath != directory + "/" + namespace else {
                throw CLIError(
                    "--originals must not be the namespace folder \(originalsPath) of the image tables", status: ExitStatus.usage)
            }
            try FileManager.default.createDirectory(
                atPath: (originalsPath as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            let originals: OriginalsCache
            do {
                originals = try OriginalsCache(directory: originalsPath, maximumBytes: originalsLimit, logger: CacheOpener.quietLogger)
            } catch {
                throw CLIError("cannot open the originals cache \(originalsPath): \(error)")
            }
            let loader = OriginalsLoader(originals: originals, logger: CacheOpener.quietLogger)
            let held = fetchesBeforeHold.map { Set(entities.dropFirst($0).map(\.url)) } ?? []
            let provider: any ImageSourceProvider =
                fetchDelay > 0 || !held.isEmpty ? DelayedProvider(base: loader, milliseconds: fetchDelay, held: held) : loader
            let cache = try CacheOpener.open(
                directory: directory, namespace: namespace, formats: formats.all,
                options: TableOpenOptions(followsSymbolicLinkedFolder: followLinks), provider: provider)
            guard let format = cache.format(named: formats.shown) else {
                cache.close()
                throw CLIError("the cache has no format '\(formats.shown)'", status: ExitStatus.usage)
            }
            return NetworkGalleryContent(
                cache: cache, format: format, loader: loader, entities: entities, photoOfLine: photoOfLine, temporaryFolder: temporary)
        } catch {
            discard()
            throw error
        }
    }

    /// The formats to open the cache with and the name of the one shown: the stored ones of an
    /// existing cache, else one new format (saved as the cache's description, so that later runs
    /// and `fic get` open it the same way).
    private static func formats(directory: String, namespace: String, followLinks: Bool, formatName: String?, count: Int) throws -> (
        all: [ImageFormat], shown: String
    ) {
        if let existing = try CacheDescription.loadIfPresent(directory: directory, namespace: namespace, followLinks: followLinks) {
            let formats = try existing.storedFormats(directory: directory, namespace: namespace)
            guard let shown = formatName.map({ name in formats.first { $0.name == name } }) ?? formats.first(where: { $0.style != .gray8 })
            else {
                throw CLIError(
                    "the cache \(directory)/\(namespace) has no format '\(formatName ?? "")'; it has \(formats.map(\.name).joined(separator: ", "))",
                    status: ExitStatus.usage)
            }
            guard shown.style != .gray8 else {
                throw CLIError(
                    "format '\(shown.name)' is 8-bit gray, which the viewer cannot draw; choose another with --format",
                    status: ExitStatus.usage)
            }
            return (formats, shown.name)
        }
        let keep = max(count, 1000)
        let specText: String
        switch formatName ?? DemoFormats.thumb {
        case DemoFormats.thumb: specText = "thumb:75x75@2:rgb565:max=\(keep)"
        case DemoFormats.medium: specText = "medium:150x150@2:bgra:max=\(keep)"
        case let text where text.contains(":"): specText = text
        case let other:
            throw CLIError(
                "--format must be thumb, medium or NAME:WxH[@SCALE][:STYLE] for a new cache, not '\(other)'", status: ExitStatus.usage)
        }
        let spec = try FormatSpec(parsing: specText)
        guard spec.style != PixelStyle.gray8.rawValue else {
            throw CLIError("format '\(spec.name)' is 8-bit gray, which the viewer cannot draw", status: ExitStatus.usage)
        }
        let description = CacheDescription(family: DemoFormats.family, formats: [spec])
        try description.save(directory: directory, namespace: namespace, followLinks: followLinks)
        return (try description.imageFormats(), spec.name)
    }

    /// Closes the cache, shuts the loader's HTTP client down and removes the temporary files.
    func close() {
        cache.close()
        let loader = self.loader
        waitForTask { try? await loader.shutdown() }
        if let temporaryFolder { try? FileManager.default.removeItem(atPath: temporaryFolder) }
    }
}
#endif
