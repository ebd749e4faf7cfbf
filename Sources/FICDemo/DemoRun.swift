#if Tool
import FICCommandLine
import FastImageCache
import Foundation

/// One run of the demo: the photos, the output folder and the grid, then both scrolls, measured.
/// It prints nothing: the `demo` commands of `fic` and `fic-demo` print what it returns.
package struct DemoRun {
    /// What a finished run made.
    package struct Outcome {
        /// The figures of both scrolls.
        package let report: DemoReport
        /// The PNG of the first screen, from the cache.
        package let screenPath: String
        /// The PNG sheet of medium images.
        package let sheetPath: String

        /// The lines a command prints when the run ends: the figures, then what was written.
        package var summary: [String] {
            [report.text(), "wrote \(screenPath) (the first screen, from the cache) and \(sheetPath) (medium images)"]
        }
    }

    /// The photos found.
    package let sources: [DemoSource]
    /// The folder of the thumbnails, the cache and the PNGs.
    package let folder: String
    /// The grid scrolled.
    package let grid: GridGeometry
    /// The screen's pixel style.
    package let screenStyle: PixelStyle

    /// Finds the photos (the bundled ones without `photos`) and makes the output folder.
    package init(photos: String?, cells: Int, out: String?, screenStyle: PixelStyle) throws {
        sources = try DemoPhotos.find(in: photos)
        folder = try DemoPhotos.outputFolder(out)
        grid = GridGeometry(cells: cells, cellPixels: Int(DemoFormats.thumbPoints * DemoFormats.scale))
        self.screenStyle = screenStyle
    }

    /// One line on what is about to run.
    package var plan: String {
        "\(sources.count) photos in \(Formatting.grouped(grid.cells)) cells, \(grid.columns) columns, a \(grid.screenWidth)×\(grid.screenHeight) px \(screenStyle.rawValue) screen scrolled \(grid.step) px per frame (\(Formatting.grouped(grid.frameCount)) frames per run); working in \(folder)"
    }

    /// Builds both stores, scrolls both, writes the PNGs; `skipped` hears of each photo that could
    /// not be decoded, and why.
    package func run(skipped: (String, String) -> Void) throws -> Outcome {
        var start = Stopwatch.now()
        let (store, kept, refused) = try ConventionalStore.build(
            photos: sources, folder: (folder as NSString).appendingPathComponent("thumbnails"),
            points: DemoFormats.thumbPoints, scale: DemoFormats.scale)
        let conventionalPreparation = Stopwatch.elapsed(since: start)
        for (photo, reason) in refused { skipped(photo.name, reason) }
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
        return Outcome(report: report, screenPath: screenPath, sheetPath: sheetPath)
    }
}
#endif
