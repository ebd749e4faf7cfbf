#if Tool
import FICDemo
import FICCommandLine
import ArgumentParser
import Foundation

/// `fic view gallery`: a grid of thumbnails from the cache, the conventional path beside it.
struct ViewGalleryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gallery",
        abstract: "A grid of thumbnails that scrolls from the image tables.",
        discussion: """
            --photos DIR shows a folder of photos from its own cache, kept between launches in \
            $XDG_CACHE_HOME/fic (or ~/.cache/fic; --cache DIR chooses another folder), one \
            namespace per photo folder: photos already stored from the same bytes are there from \
            the first frame, the others are ingested while the window is already showing (cells \
            fill in as photos are stored). A photo changed since is redrawn, a removed one \
            dropped. The cache folder is kept under --cache-limit MiB (default 2048): the least \
            recently used namespaces are removed first, never one open in another process. \
            --temporary uses a temporary cache removed at the end instead, as does a second window \
            on a folder whose cache another fic process has open. Without a source, the bundled \
            sample photos fill 10,000 cells, from their own namespace. --cache DIR without \
            --photos shows an existing cache made by `fic ingest`, opened read-only. --urls FILE \
            shows a network gallery: one http, https or file URL a line (# comments), loaded \
            through the cache's lanes: visible cells on the fast lane, the next two screens and \
            the one behind prefetched on the slow lane, cells that scroll away demoted, far ones \
            cancelled; cells show a placeholder until their image is stored (a failed URL: a red \
            error cell). With --urls, --cache DIR keeps the image tables there (created if \
            missing; default: a temporary folder removed at the end) and --originals DIR the \
            downloaded originals (default: NAMESPACE.originals in the cache folder, temporary or \
            not, as fic ingest uses).
            """
    )

    @Option(
        name: .long,
        help: ArgumentHelp("A folder of photos (JPEG, PNG, WebP, HEIC, AVIF, JPEG XL, GIF or TIFF, found by content).", valueName: "dir"))
    var photos: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The cache folder of --photos (default: $XDG_CACHE_HOME/fic or ~/.cache/fic); without --photos, an existing cache made by `fic ingest` (opened read-only).",
            valueName: "dir"))
    var cache: String?

    @Option(
        name: .long,
        help: ArgumentHelp("The namespace (default: the photo folder's own; 'default' for an existing --cache).", valueName: "ns"))
    var namespace: String?

    @Flag(name: .long, help: "Accept a --cache folder that is a symbolic link.")
    var followLinks = false

    @Flag(name: .long, help: "Keep the photos' cache in a temporary folder, removed when the window closes.")
    var temporary = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The most the cache folder's tables may occupy, in MiB (default 2048); the least recently used namespaces are removed first.",
            valueName: "mib"))
    var cacheLimit: Double?

    @Option(name: .long, help: ArgumentHelp("A file of image URLs, one a line: a network gallery.", valueName: "file"))
    var urls: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "With --urls: the folder of the downloaded originals (default: CACHE/NAMESPACE.originals, as fic ingest uses).",
            valueName: "dir"))
    var originals: String?

    @Option(name: .long, help: ArgumentHelp("Wait before each fetch (for tests: placeholders show meanwhile).", visibility: .hidden))
    var fetchDelayMs = 0

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Fetch only the first N distinct URLs; the others wait until cancelled (for tests: which cells stay placeholders is fixed).",
            visibility: .hidden))
    var holdFetchesAfter: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The format the cells show: thumb or medium with --photos, any of the cache's with --cache (default: its first); with --urls and a new cache also NAME:WxH[@SCALE][:STYLE].",
            valueName: "name"))
    var format: String?

    @Option(
        name: .long,
        help: ArgumentHelp("Cells in the grid (the photos repeated); default: one per photo, 10,000 for the sample photos.", valueName: "n")
    )
    var cells: Int?

    @Flag(name: .long, help: "Start on the conventional path (as soon as its thumbnails are ready).")
    var conventional = false

    @OptionGroup var viewer: ViewerOptions

    func validate() throws {
        guard photos == nil || urls == nil else {
            throw ValidationError("give one of --photos and --urls (--cache goes with either as the folder of its tables)")
        }
        if let cells, !(1...10_000_000).contains(cells) { throw ValidationError("--cells must be 1…10000000, not \(cells)") }
        if originals != nil && urls == nil { throw ValidationError("--originals goes with --urls") }
        if conventional && urls != nil {
            throw ValidationError("--conventional does not go with --urls: the network gallery has no conventional path")
        }
        if !(0...60_000).contains(fetchDelayMs) { throw ValidationError("--fetch-delay-ms must be 0…60000") }
        if let holdFetchesAfter {
            guard urls != nil, holdFetchesAfter >= 0 else {
                throw ValidationError("--hold-fetches-after goes with --urls, and is 0 or more")
            }
        }
        if let namespace { try CacheOptions.validateName(namespace, what: "--namespace") }
        let showsExisting = cache != nil && photos == nil && urls == nil
        if temporary && (urls != nil || cache != nil || namespace != nil) {
            throw ValidationError(
                "--temporary keeps the photos' cache in a temporary folder: it does not go with --cache, --namespace or --urls")
        }
        if let cacheLimit {
            guard cacheLimit > 0, cacheLimit <= Double(1 << 30) else {
                throw ValidationError("--cache-limit must be a positive number of MiB, at most 1073741824, not \(cacheLimit)")
            }
            if temporary || urls != nil || showsExisting {
                throw ValidationError(
                    "--cache-limit goes with the photos' kept cache (--photos, or the sample photos), not with --temporary, --urls or an existing --cache"
                )
            }
        }
    }

    func run() throws {
        let (width, height) = try viewer.windowSize
        let script = try viewer.script.map { try ViewerScript(contentsOf: Paths.absolute($0), width: width, height: height) }
        if let urls {
            return try runNetwork(URLList.read(Paths.absolute(urls)), width: width, height: height, script: script)
        }
        let content: GalleryContent
        if let cache, photos == nil {
            let location = CacheLocation(directory: Paths.absolute(cache), namespace: namespace ?? "default", followLinks: followLinks)
            content = try GalleryContent.existing(location, formatName: format)
        } else {
            var placement = GalleryCache.Placement(directory: cache, namespace: namespace, temporary: temporary, followLinks: followLinks)
            if let cacheLimit { placement.limitBytes = Int(cacheLimit * 1_048_576) }
            content = try GalleryContent.photos(photos, formatName: format ?? DemoFormats.thumb, placement: placement)
        }
        defer { content.close() }
        let count = cells ?? (content.isSample ? 10_000 : content.catalog.count)
        let size = content.format.pixelSize
        let layout = GalleryLayout(width: width, height: height, cellWidth: size.width, cellHeight: size.height, cells: count)
        let source = CachedCellSource(cache: content.cache, format: content.format.name, catalog: content.catalog, place: content.place)
        let mode = GalleryMode(layout: layout, cacheSource: source, conventional: content.conventional)
        if conventional { mode.handle(.togglePath) }
        let window = try ViewerWindow(title: "fic view gallery", width: width, height: height)
        try ViewerLoop(window: window, mode: mode, options: viewer, script: script).run()
    }

    /// The network gallery: `urls` through the cache's lanes.
    private func runNetwork(_ list: [URL], width: Int, height: Int, script: ViewerScript?) throws {
        let content = try NetworkGalleryContent.open(
            urls: list, cacheFolder: cache, originalsFolder: originals, namespace: namespace ?? "default",
            followLinks: followLinks, formatName: format, fetchDelay: fetchDelayMs, fetchesBeforeHold: holdFetchesAfter)
        defer { content.close() }
        let size = content.format.pixelSize
        let layout = GalleryLayout(width: width, height: height, cellWidth: size.width, cellHeight: size.height, cells: cells ?? list.count)
        let source = try NetworkCellSource(content: content, layout: layout)
        let mode = GalleryMode(layout: layout, cacheSource: source, conventional: nil)
        let window = try ViewerWindow(title: "fic view gallery", width: width, height: height)
        try ViewerLoop(window: window, mode: mode, options: viewer, script: script).run()
    }
}
#endif
