#if Tool
import FICCommandLine
import ArgumentParser
import Foundation
import TiledImage

/// `fic tile INPUT --out NAME.tif`: a zoomable tile pyramid of a huge image, built while it is read.
struct TileCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tile",
        abstract:
            "Build a tile pyramid (256×256 tiles, every zoom level) of a JPEG, PNG, WebP, HEIC, AVIF, JPEG XL, GIF or TIFF (its first frame).",
        discussion: """
            INPUT is a file or an http(s) URL. The image is decoded as its bytes arrive and written \
            straight into every level, so the pyramid is ready moments after the last byte. The \
            pyramid is one tiled pyramidal TIFF file, --out NAME.tif (JPEG tiles for an opaque image, \
            deflate for one with alpha; see --compression), which vips, GDAL and iipsrv read and \
            `fic serve` serves; with --layout, --out is instead the folder of a static tree of tiles. \
            Read tiles back with `fic tile-get`. Prints the levels, tiles, time, time from the last byte \
            to ready and peak memory; with --json the last line is one JSON object.

            Exit status: 0 when built, 1 when the input cannot be tiled, 2 on usage errors.
            """
    )

    @Argument(help: ArgumentHelp("The image file or http(s) URL.", valueName: "input"))
    var input: String

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The pyramid's file, ending in .tif or .tiff (its folders are created when missing); with --layout, the folder of the static tree.",
            valueName: "path"))
    var out: String

    @Option(
        name: .long,
        help: ArgumentHelp(
            "How the TIFF's tiles are stored: jpeg (opaque images only), deflate (lossless, keeps alpha) or none (raw samples); by default jpeg for opaque images, deflate for those with alpha.",
            valueName: "kind"))
    var compression: TIFFCompressionChoice?

    @Option(name: .long, help: ArgumentHelp("Stop halving at the first level that fits in this size.", valueName: "WxH"))
    var view: String?

    @Flag(help: "Keep one strip per level instead of two: about half the memory, slower (the disk and the decoder no longer overlap).")
    var lowMemory = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Also write a static tree of JPEG tiles that any web server, object store or CDN serves as it is: dzi (image.dzi and image_files/, for OpenSeadragon) or iiif (iiif/info.json and the tiles of a IIIF Image API 3 level-0 service), as vips dzsave does. The tree must not exist yet.",
            valueName: "layout"))
    var layout: StaticTileLayout?

    @Option(
        name: .customLong("iiif-id"),
        help: ArgumentHelp(
            "With --layout iiif: the URL the iiif folder will be served at (the id of its info.json, which viewers resolve tiles against); by default its file:// URL.",
            valueName: "url"))
    var iiifID: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The JPEG quality of the tiles, 1 to 100: of a .tif's JPEG tiles (default 94, its colour 85; with neither this nor --compression, level 0 of a JPEG keeps the source's own quantisation), or with --layout of the static tree's (default 85).",
            valueName: "n"))
    var quality: Int?

    @Flag(help: "Print the results as one JSON object on the last line.")
    var json = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Fail a download or input that delivers nothing for this long (for tests; default 15 s for URLs, 30 s otherwise).",
            visibility: .hidden))
    var stallTimeoutMs: Int?

    /// The figures printed with `--json`.
    struct Report: Encodable {
        var input: String
        var width: Int
        var height: Int
        var levels: Int
        var tiles: Int
        var bytes: Int
        var seconds: Double
        var after_last_byte_ms: Double
        var peak_rss_bytes: Int
        var coefficient_file_bytes: Int
        /// The most bytes of the coefficient file mapped at once by its pager thread.
        var coefficient_pager_peak_bytes: Int
        /// Bytes of the coefficient file freed behind the final output pass, before it was closed.
        var coefficient_freed_early_bytes: Int
        var level_sizes: [[Int]]
        /// Body bytes received over the network (URL input only).
        var bytes_downloaded: Int?
        /// With --layout: the static tree's tiles, bytes and time.
        var static_tiles: Int?
        var static_bytes: Int?
        var static_seconds: Double?
    }

    func validate() throws {
        if let view, Self.parseView(view) == nil {
            throw ValidationError("--view must be WIDTHxHEIGHT with positive numbers, for example 1920x1080")
        }
        if let quality, !(1...100).contains(quality) { throw ValidationError("--quality must be 1 to 100") }
        if layout == nil, !writesTIFF {
            throw ValidationError(
                "--out names the pyramid's file, and must end in .tif or .tiff (a pyramid is one tiled pyramidal TIFF); --layout writes a static tree into a folder"
            )
        }
        if compression != nil, layout != nil { throw ValidationError("--compression goes with an --out ending in .tif or .tiff") }
        if writesTIFF, layout != nil {
            throw ValidationError("--layout writes a static tree into a folder: give a folder as --out, or serve the .tif with `fic serve`")
        }
        if iiifID != nil, layout != .iiif { throw ValidationError("--iiif-id goes with --layout iiif") }
    }

    /// Whether --out names a TIFF file rather than a folder.
    var writesTIFF: Bool {
        let lower = out.lowercased()
        return lower.hasSuffix(".tif") || lower.hasSuffix(".tiff")
    }

    /// The destination --out and --compression name: for a static tree, unnamed files beside it
    /// (the same file system, which was chosen for the tree's size).
    var destination: TilePyramidDestination {
        guard writesTIFF else { return .temporary(folder: outFolder) }
        // A quality alone asks for JPEG tiles; nothing at all lets the image's alpha decide.
        let chosen: PyramidTIFFCompression? =
            switch compression {
            case nil: quality.map { .jpeg(quality: $0) }
            case .jpeg: quality.map { .jpeg(quality: $0) } ?? .jpeg
            case .deflate: .deflate
            case .some(.none): PyramidTIFFCompression.none
            }
        return .tiff(Paths.absolute(out), compression: chosen)
    }

    /// The folder --out is in.
    var outFolder: String { (Paths.absolute(out) as NSString).deletingLastPathComponent }

    static func parseView(_ text: String) -> PixelSize? {
        let parts = text.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0 else { return nil }
        return PixelSize(width: w, height: h)
    }

    func run() async throws {
        var options = TilePyramidOptions(viewSize: view.flatMap(Self.parseView), overlapWrites: !lowMemory)
        let stall = stallTimeoutMs.map { Duration.milliseconds(max(1, $0)) }
        if let stall { options.stallTimeout = stall }
        let destination = self.destination
        // The folders on the way are made.
        do {
            try FileManager.default.createDirectory(atPath: outFolder, withIntermediateDirectories: true)
        } catch {
            throw CLIError("cannot tile \(input): cannot create the folder \(outFolder): \(error.localizedDescription)")
        }
        let pyramid: TilePyramid
        var downloaded: Int?
        do {
            if PyramidDownload.isURL(input) {
                let result = try await PyramidDownload.build(input, destination: destination, options: options, idleTimeout: stall)
                pyramid = result.pyramid
                downloaded = result.bytesDownloaded
            } else {
                pyramid = try TilePyramidBuilder.build(contentsOf: Paths.absolute(input), destination: destination, options: options)
            }
        } catch let error as ImageCacheError {
            throw CLIError("cannot tile \(input): \(error)")
        }
        let stats = pyramid.statistics
        let geometry = pyramid.geometry
        let seconds =
            stats.map { Double($0.totalDuration.components.seconds) + Double($0.totalDuration.components.attoseconds) / 1e18 } ?? 0
        let afterLast =
            stats.map { Double($0.afterLastByte.components.seconds) * 1000 + Double($0.afterLastByte.components.attoseconds) / 1e15 } ?? 0
        let peak = PeakMemory.maximumResidentBytes()
        // A TIFF's size is its file's; with --layout, the raw tiles' the tree is made from.
        let bytes =
            writesTIFF ? ((try? FileManager.default.attributesOfItem(atPath: Paths.absolute(out))[.size] as? Int) ?? 0) : geometry.byteCount
        print(
            "tiled \(input) → \(out): \(geometry.width)×\(geometry.height) px, \(geometry.levels.count) levels, \(geometry.tileCount) tiles, \(String(format: "%.1f", Double(bytes) / 1_048_576)) MiB"
        )
        for level in geometry.levels {
            print("  level \(level.index): \(level.width)×\(level.height) px, \(level.columns)×\(level.rows) tiles")
        }
        print(String(format: "  time %.3f s, last byte → ready %.1f ms, peak RSS %.1f MiB", seconds, afterLast, Double(peak) / 1_048_576))
        if let downloaded {
            print("  downloaded \(Formatting.bytes(downloaded)) (\(downloaded) bytes)")
        }
        if let stats, stats.coefficientFileBytes > 0 {
            print(
                String(
                    format:
                        "  progressive JPEG: %.1f MiB of coefficients kept in a file, at most %.1f MiB of it mapped at once, %.1f MiB freed behind the output",
                    Double(stats.coefficientFileBytes) / 1_048_576, Double(stats.coefficientPagerPeakBytes) / 1_048_576,
                    Double(stats.coefficientBytesFreedEarly) / 1_048_576))
        }
        var exported: StaticTileExportSummary?
        var exportSeconds: Double?
        if let layout {
            let started = ContinuousClock.now
            do {
                exported = try StaticTileExport.write(
                    pyramid, layout: layout, into: Paths.absolute(out), iiifID: iiifID, quality: quality ?? 85)
            } catch let error as ImageCacheError {
                throw CLIError("cannot write the \(layout.rawValue) tiles into \(out): \(error)")
            }
            let elapsed = ContinuousClock.now - started
            exportSeconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            if let exported {
                print(
                    String(
                        format: "  %@: %d JPEG tiles, %d levels, %.1f MiB in %.2f s → %@", layout.rawValue, exported.tiles, exported.levels,
                        Double(exported.bytes) / 1_048_576, exportSeconds ?? 0, exported.descriptorPath))
            }
        }
        if json {
            var report = Report(
                input: input, width: geometry.width, height: geometry.height, levels: geometry.levels.count,
                tiles: geometry.tileCount, bytes: bytes, seconds: seconds, after_last_byte_ms: afterLast,
                peak_rss_bytes: peak, coefficient_file_bytes: stats?.coefficientFileBytes ?? 0,
                coefficient_pager_peak_bytes: stats?.coefficientPagerPeakBytes ?? 0,
                coefficient_freed_early_bytes: stats?.coefficientBytesFreedEarly ?? 0,
                level_sizes: geometry.levels.map { [$0.width, $0.height] }, bytes_downloaded: downloaded)
            report.static_tiles = exported?.tiles
            report.static_bytes = exported?.bytes
            report.static_seconds = exportSeconds
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        }
    }
}

/// Peak resident memory of this process.
enum PeakMemory {
    /// `VmHWM` from `/proc/self/status`, else `ru_maxrss`.
    static func maximumResidentBytes() -> Int {
        if let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) {
            for line in text.split(separator: "\n") where line.hasPrefix("VmHWM:") {
                if let kb = Int(line.dropFirst(6).filter(\.isNumber)) { return kb * 1024 }
            }
        }
        var usage = rusage()
        _ = getrusage(__rusage_who_t(truncatingIfNeeded: RUSAGE_SELF.rawValue), &usage)
        return Int(usage.ru_maxrss) * 1024
    }
}

extension StaticTileLayout: ExpressibleByArgument {}

/// `--compression`'s values.
enum TIFFCompressionChoice: String, ExpressibleByArgument, CaseIterable {
    case jpeg, deflate, none
}
#endif
