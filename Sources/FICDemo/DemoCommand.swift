#if Tool
import FICCommandLine
import ArgumentParser
import FastImageCache
import Foundation

/// `fic demo`: the original's demo, measured. A photo grid scrolls twice, once decoding a JPEG
/// thumbnail for each cell as it appears and once reading the cache, and the figures are
/// compared.
package struct DemoCommand: ParsableCommand {
    package static let configuration = CommandConfiguration(
        // `fic demo`, or the root command of `fic-demo`.
        commandName: Terminal.programName == "fic-demo" ? "fic-demo" : "demo",
        abstract: "Scroll a photo grid conventionally and from the cache, and compare.",
        discussion: """
            Builds a family of two formats (a 16-bit 75×75 pt @2x thumbnail, and a 32-bit \
            150×150 pt @2x image with rounded corners) from the bundled sample photos, or from \
            --photos. Then a 4-column grid of --cells cells (the photos repeated, as the original \
            demo repeated its 100 photos) scrolls through a 4×6-cell screen twice: \
            conventionally, each cell decoding its pre-rendered JPEG thumbnail when it appears; \
            and from the cache, each cell taking its image from the mapped table file. Prints \
            frame rates, frames over budget, disk and memory use, and writes a PNG of the first \
            screen and a sheet of medium images to --out.
            """
    )

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A folder of photos (JPEG, PNG, WebP, HEIC, AVIF, JPEG XL, GIF or TIFF, found recursively by content) instead of the bundled ones.",
            valueName: "dir"))
    package var photos: String?

    @Option(name: .long, help: ArgumentHelp("Cells in the grid.", valueName: "n"))
    package var cells = 10_000

    @Option(
        name: .long,
        help: ArgumentHelp("Where to write the thumbnails, the cache and the PNGs (default: a new temporary folder).", valueName: "dir"))
    package var out: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The screen's pixel style: rgb565 (the thumbnails' own, so cached ones are copied as they are) or bgrx (32-bit, so every 16-bit thumbnail is converted as it is drawn).",
            valueName: "style"))
    package var screen = "rgb565"

    package init() {}

    package func validate() throws {
        guard ["rgb565", "bgrx"].contains(screen) else { throw ValidationError("--screen must be rgb565 or bgrx, not '\(screen)'") }
        guard (1...10_000_000).contains(cells) else { throw ValidationError("--cells must be between 1 and 10000000, not \(cells)") }
    }

    package func run() throws {
        let sources = try DemoPhotos.find(in: photos)
        let folder = try DemoPhotos.outputFolder(out)
        let grid = GridGeometry(cells: cells, cellPixels: Int(DemoFormats.thumbPoints * DemoFormats.scale))
        let screenStyle = PixelStyle(rawValue: screen) ?? .rgb565
        print(
            "fic demo: \(sources.count) photos in \(Formatting.grouped(cells)) cells, \(grid.columns) columns, a \(grid.screenWidth)×\(grid.screenHeight) px \(screen) screen scrolled \(grid.step) px per frame (\(Formatting.grouped(grid.frameCount)) frames per run); working in \(folder)"
        )

        var start = Stopwatch.now()
        let (store, kept, refused) = try ConventionalStore.build(
            photos: sources, folder: (folder as NSString).appendingPathComponent("thumbnails"),
            points: DemoFormats.thumbPoints, scale: DemoFormats.scale)
        let conventionalPreparation = Stopwatch.elapsed(since: start)
        for (photo, reason) in refused { Terminal.error("skipped \(photo.name): \(reason)") }
        guard !kept.isEmpty else {
            throw CLIError(
                "none of the photos could be decoded: give --photos a folder of JPEG, PNG, WebP, HEIC, AVIF, JPEG XL, GIF or TIFF images")
        }

        start = Stopwatch.now()
        let demoCache = try DemoCache.ingest(kept, directory: (folder as NSString).appendingPathComponent("cache"))
        let ingest = Stopwatch.elapsed(since: start)

        let screen = try FrameBuffer(width: grid.screenWidth, height: grid.screenHeight, format: screenStyle)
        let count = kept.count
        let conventional = GridScroller.scroll(grid, into: screen, fetch: { store.cell(photo: $0 % count) }, afterFirstFrame: { _ in })

        let cache = try demoCache.open()
        defer { cache.close() }
        let screenPath = (folder as NSString).appendingPathComponent("first-screen.png")
        let cached = try GridScroller.scroll(
            grid, into: screen, fetch: { demoCache.cell(photo: $0 % count, in: cache) },
            afterFirstFrame: { try $0.writePNG(to: screenPath) })
        let sheetPath = (folder as NSString).appendingPathComponent("medium-sheet.png")
        try ContactSheet.writeMedium(cache: cache, entities: demoCache.entities, to: sheetPath)

        let report = DemoReport(
            photoCount: count, formats: demoCache.formats,
            conventional: .init(preparation: conventionalPreparation, scroll: conventional, diskBytes: store.diskBytes),
            cached: .init(preparation: ingest, scroll: cached, diskBytes: cache.diskUsage),
            thumbTableBytes: cache.statistics.formats.first { $0.format == DemoFormats.thumb }?.diskBytes ?? 0)
        print(report.text())
        print("wrote \(screenPath) (the first screen, from the cache) and \(sheetPath) (medium images)")
    }
}
#endif
