#if Tool
import FICCommandLine
import ArgumentParser
import FastImageCache
import Foundation

/// The options of `fic demo` and of `fic-demo` (the original's demo, measured: a photo grid
/// scrolls twice, once decoding a JPEG thumbnail for each cell as it appears and once reading the
/// cache, and the figures are compared), and their help. The two executables' commands take
/// these and print what ``DemoRun`` returns: this library prints nothing.
package struct DemoOptions: ParsableArguments {
    /// The help of the command named `commandName` (`demo` under `fic`, `fic-demo` alone).
    package static func configuration(commandName: String) -> CommandConfiguration {
        CommandConfiguration(
            commandName: commandName,
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
    }

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

    /// Finds the photos and makes the output folder, ready to run.
    package func prepare() throws -> DemoRun {
        try DemoRun(photos: photos, cells: cells, out: out, screenStyle: PixelStyle(rawValue: screen) ?? .rgb565)
    }
}
#endif
