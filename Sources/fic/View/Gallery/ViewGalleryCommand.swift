import ArgumentParser
import Foundation

/// `fic view gallery`: a grid of thumbnails from the cache, the conventional path beside it.
struct ViewGalleryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gallery",
        abstract: "A grid of thumbnails that scrolls from the image tables.",
        discussion: """
            --photos DIR ingests the photos into a temporary cache while the window is already \
            showing (cells fill in as photos are stored); without a source, the bundled sample \
            photos fill 10,000 cells. --cache DIR shows an existing cache made by `fic ingest`, \
            opened read-only. --urls FILE shows a network gallery (one URL a line).
            """
    )

    @Option(name: .long, help: ArgumentHelp("A folder of photos (JPEG, PNG or WebP, found by content).", valueName: "dir"))
    var photos: String?

    @Option(name: .long, help: ArgumentHelp("An existing cache made by `fic ingest` (opened read-only).", valueName: "dir"))
    var cache: String?

    @Option(name: .long, help: ArgumentHelp("The namespace of --cache.", valueName: "ns"))
    var namespace = "default"

    @Flag(name: .long, help: "Accept a --cache folder that is a symbolic link.")
    var followLinks = false

    @Option(name: .long, help: ArgumentHelp("A file of image URLs, one a line: a network gallery.", valueName: "file"))
    var urls: String?

    @Option(name: .long, help: ArgumentHelp("The format the cells show: thumb or medium with --photos, any of the cache's with --cache (default: its first).", valueName: "name"))
    var format: String?

    @Option(name: .long, help: ArgumentHelp("Cells in the grid (the photos repeated); default: one per photo, 10,000 for the sample photos.", valueName: "n"))
    var cells: Int?

    @Flag(name: .long, help: "Start on the conventional path (as soon as its thumbnails are ready).")
    var conventional = false

    @OptionGroup var viewer: ViewerOptions

    func validate() throws {
        let sources = [photos, cache, urls].compactMap { $0 }
        guard sources.count <= 1 else { throw ValidationError("give one of --photos, --cache and --urls") }
        if let cells, !(1...10_000_000).contains(cells) { throw ValidationError("--cells must be 1…10000000, not \(cells)") }
        try CacheOptions.validateName(namespace, what: "--namespace")
    }

    func run() throws {
        if urls != nil {
            throw CLIError("the network gallery (--urls) needs the prioritised loader, which this build does not have yet")
        }
        let (width, height) = try viewer.windowSize
        let script = try viewer.script.map { try ViewerScript(contentsOf: Paths.absolute($0), width: width, height: height) }
        let content: GalleryContent
        if let cache {
            let options = try CacheOptions.parse(["--cache", cache, "--namespace", namespace] + (followLinks ? ["--follow-links"] : []))
            content = try GalleryContent.existing(options, formatName: format)
        } else {
            content = try GalleryContent.photos(photos, formatName: format ?? DemoFormats.thumb)
        }
        defer { content.close() }
        let count = cells ?? (content.isSample ? 10_000 : content.catalog.count)
        let size = content.format.pixelSize
        let layout = GalleryLayout(width: width, height: height, cellWidth: size.width, cellHeight: size.height, cells: count)
        let source = CachedCellSource(cache: content.cache, format: content.format.name, catalog: content.catalog)
        let mode = GalleryMode(layout: layout, cacheSource: source, conventional: content.conventional)
        if conventional { mode.handle(.togglePath) }
        let window = try ViewerWindow(title: "fic view gallery", width: width, height: height)
        try ViewerLoop(window: window, mode: mode, options: viewer, script: script).run()
    }
}
