#if Tool
import FICCommandLine
import ArgumentParser
import Foundation
import Logging
import TileServer

/// `fic serve STORE`: the store's pyramids over HTTP (IIIF Image API 3.0 level 2, Deep Zoom, a viewer page).
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the tile pyramids of a folder to browsers, IIIF viewers and CDNs.",
        discussion: """
            STORE is a folder of tiled pyramidal TIFFs, NAME.tif: made with `fic tile IMAGE --out \
            STORE/NAME.tif`, by vips (`vips tiffsave IMAGE NAME.tif --tile --pyramid`) or any other \
            tool. Each is served as \
            a IIIF Image API 3.0 service at compliance level 2 (/iiif/3/NAME/info.json, any region, \
            size, rotation, quality and jpg, png or webp), as Deep Zoom (/dzi/NAME.dzi), and as a page \
            that shows it, pannable and zoomable (/view/NAME); / lists them. Every answer is made from \
            the pyramid's best level and kept, encoded, for the next request. Several servers may share \
            one store (behind a proxy); nothing in it is written. Prints the URL once it listens, then \
            runs until interrupted.

            Exit status: 0 when stopped, 1 when the store cannot be served, 2 on usage errors.
            """
    )

    @Argument(help: ArgumentHelp("The folder of pyramids.", valueName: "store"))
    var store: String

    @Option(name: .long, help: ArgumentHelp("The address to listen on.", valueName: "host"))
    var host = "127.0.0.1"

    @Option(name: .long, help: ArgumentHelp("The port to listen on (0 picks a free one).", valueName: "n"))
    var port = 8080

    @Option(
        name: .customLong("base-url"),
        help: ArgumentHelp(
            "The URL clients reach the server at, such as https://tiles.example.org (the start of every info.json id behind a proxy); by default http:// and the request's Host.",
            valueName: "url"))
    var baseURL: String?

    @Option(name: .long, help: ArgumentHelp("JPEG and WebP quality, 1 to 100.", valueName: "n"))
    var quality = 85

    @Option(name: .customLong("cache-mb"), help: ArgumentHelp("Megabytes of encoded answers kept in memory.", valueName: "n"))
    var cacheMB = 64

    @Option(
        name: .customLong("max-size"),
        help: ArgumentHelp("The largest image answer: maxWidth and maxHeight (maxArea is half their product).", valueName: "n"))
    var maxSize = 4096

    @Option(name: .long, help: ArgumentHelp("Threads that read and encode (default: one per core).", valueName: "n"))
    var threads: Int?

    @Option(
        name: .customLong("decoded-tiles"),
        help: ArgumentHelp(
            "A folder where the tiles decoded for answers are kept, one image table a pyramid, for the next answers and the next run (created if missing; default: none kept).",
            valueName: "dir"))
    var decodedTiles: String?

    @Flag(
        name: .customLong("no-upscaling"),
        help: "Answer IIIF '^' sizes that enlarge a region with 501 Not Implemented, and leave sizeUpscaling out of info.json.")
    var noUpscaling = false

    func run() async throws {
        guard (1...100).contains(quality) else { throw CLIError("--quality must be 1 to 100", status: 2) }
        guard (0...65_535).contains(port) else { throw CLIError("--port must be 0 to 65535", status: 2) }
        guard (16...65_535).contains(maxSize) else { throw CLIError("--max-size must be 16 to 65535", status: 2) }
        if let baseURL, !(baseURL.hasPrefix("http://") || baseURL.hasPrefix("https://")) || baseURL.hasSuffix("/") {
            throw CLIError("--base-url must be an http(s) URL without a trailing '/'", status: 2)
        }
        var options = TileServerOptions()
        options.quality = quality
        options.encodedCacheBytes = max(0, cacheMB) << 20
        options.limits = IIIFLimits(maxWidth: maxSize, maxHeight: maxSize, maxArea: maxSize * maxSize / 2)
        options.publicBaseURL = baseURL
        options.sizeUpscaling = !noUpscaling
        if let threads { options.renderThreads = max(1, threads) }
        if let decodedTiles {
            let folder = Paths.absolute(decodedTiles)
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw CLIError("cannot make the folder of decoded tiles \(folder): \(error.localizedDescription)")
            }
            options.decodedTilesDirectory = folder
        }
        // Only warnings and errors, from the HTTP server and the tile server: the line below
        // says where it listens.
        var logger = Logger(label: "fic.serve")
        logger.logLevel = .warning
        let server: TileServer
        do {
            server = try TileServer(storePath: Paths.absolute(store), options: options, logger: logger)
        } catch {
            throw CLIError("cannot serve \(store): \(error)")
        }
        let host = self.host
        try await server.run(host: host, port: port, logger: logger) { port in
            let shown = host.contains(":") ? "[\(host)]" : host
            // Written at once, unbuffered: a script or test waits for this line to know the port.
            FileHandle.standardOutput.write(Data("Serving \(server.storePath) at http://\(shown):\(port)/\n".utf8))
        }
    }
}
#endif
