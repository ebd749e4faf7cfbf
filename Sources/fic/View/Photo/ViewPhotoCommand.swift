#if Tool
import FICCommandLine
import ArgumentParser
import Foundation
import TiledImage

/// `fic view photo`: pan and zoom a tile pyramid, or play an animated image.
struct ViewPhotoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "photo",
        abstract: "Pan and zoom a huge photo through its tile pyramid.",
        discussion: """
            SOURCE is a tiled pyramidal TIFF (made by `fic tile IMAGE --out NAME.tif`, by vips or \
            any other tool), an image file (JPEG, PNG, WebP, HEIC, AVIF) or an http(s) URL of one, which is tiled into a throwaway pyramid first \
            (a URL while it downloads); the photo is shown, with the progress, as soon as its size is \
            known, and sharpens row by row as the pyramid is written. A pyramidal TIFF's tiles are decoded off the frame path, once, into \
            an image table in the cache folder, where a region seen before, in this run or the next, is shown without decoding; a tile \
            not decoded yet is drawn from a coarser level until it arrives.

            SOURCE may also be a remote tiled image: a Deep Zoom descriptor (`….dzi`), a IIIF Image \
            API 2 or 3 `…/info.json`, a IIIF service's base URL (a URL without a file extension, \
            whose `info.json` is tried first), or a tiled pyramidal TIFF (`….tif`) on any server that \
            answers Range requests, read by ranges: its header, then only its tiles near the view, \
            never the whole file. Only the tiles near the view are fetched (those on \
            screen first), decoded once and kept in an image table in the cache folder, so that a \
            region seen before, in this run or the next, is shown without the network.

            An animated image file (GIF, animated WebP, APNG of more than one frame) plays \
            instead, fitted in the window: its frames are stored once in an image table in the \
            cache folder, at the size that fits the window, and played from it at their timing \
            (r plays it again from the start).
            """
    )

    @Argument(
        help: ArgumentHelp(
            "A tiled pyramidal TIFF, an image file, an http(s) URL of one, or of a .dzi or IIIF info.json.",
            valueName: "source"))
    var source: String

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Where the decoded tiles of a pyramidal TIFF or a remote tiled image, and an animated image's frames, are kept (default: $XDG_CACHE_HOME/fic, or ~/.cache/fic).",
            valueName: "dir"))
    var cache: String?

    @Option(name: .long, help: ArgumentHelp("Where a throwaway pyramid's unnamed files go (default: $TMPDIR).", valueName: "dir"))
    var workDirectory: String?

    @Option(
        name: .long, help: ArgumentHelp("Pause after each tile read (for tests: coarse tiles stand in meanwhile).", visibility: .hidden))
    var tileReadDelayMs = 0

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Feed only this many bytes of an image file to the build, then hold (for tests: a half-built pyramid).", visibility: .hidden))
    var buildHoldAfterBytes: Int?

    @OptionGroup var viewer: ViewerOptions

    func run() throws {
        let (width, height) = try viewer.windowSize
        let script = try viewer.script.map { try ViewerScript(contentsOf: Paths.absolute($0), width: width, height: height) }
        let workFolder = workDirectory.map(Paths.absolute)
        if PyramidDownload.isURL(source) {
            if let remote = try openRemote() {
                let window = try ViewerWindow(title: "fic view photo", width: width, height: height)
                try ViewerLoop(
                    window: window, mode: TablePhotoMode(source: remote, width: width, height: height), options: viewer, script: script
                ).run()
                return
            }
            let pyramid = PyramidSource.building(url: source, temporaryFolder: workFolder)
            try show(pyramid, width: width, height: height, script: script)
            return
        }
        let path = Paths.absolute(source)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CLIError("\(path) does not exist: give a tiled pyramidal TIFF (made by `fic tile`) or an image file")
        }
        if !isDirectory.boolValue,
            let animation = try PhotoAnimation.open(
                path: path, cacheFolder: { try cache.map(Paths.absolute) ?? DefaultCache.directory() }, width: width, height: height)
        {
            defer { animation.close() }
            let window = try ViewerWindow(title: "fic view photo", width: width, height: height)
            try ViewerLoop(
                window: window, mode: PhotoAnimationMode(animation: animation, width: width, height: height), options: viewer,
                script: script
            ).run()
            return
        }
        if !isDirectory.boolValue, let pyramid = try? TilePyramid.open(at: path) {
            // A pyramidal TIFF: its tiles decoded once into its table in the cache folder.
            let source = try PyramidTableSource(
                pyramid: pyramid, name: (path as NSString).lastPathComponent,
                cacheFolder: try cache.map(Paths.absolute) ?? DefaultCache.directory(), readDelayMilliseconds: tileReadDelayMs)
            let window = try ViewerWindow(title: "fic view photo", width: width, height: height)
            try ViewerLoop(
                window: window, mode: TablePhotoMode(source: source, width: width, height: height), options: viewer, script: script
            ).run()
            return
        }
        let pyramid =
            try isDirectory.boolValue
            ? PyramidSource(folder: path)
            : PyramidSource.building(imageFile: path, temporaryFolder: workFolder, holdAfterBytes: buildHoldAfterBytes.map { max(0, $0) })
        try show(pyramid, width: width, height: height, script: script)
    }

    /// The remote tiled image that the URL `source` names, or nil for an image file to download:
    /// a `.dzi`, `info.json` or `.tif` (a pyramidal TIFF read by ranges) that fails is an error; a URL that may be a IIIF service's base
    /// URL, whose `info.json` fails, is tried as an image file (with a note saying so).
    private func openRemote() throws -> RemoteTileSource? {
        let folder = try cache.map(Paths.absolute) ?? DefaultCache.directory()
        switch RemoteTileAddress.classify(source) {
        case .imageFile:
            return nil
        case .descriptor(let url):
            return try RemoteTileSource.open(url, cacheFolder: folder)
        case .pyramidalTIFF(let url):
            return try RemoteTileSource.openTIFF(url, cacheFolder: folder)
        case .possibleService(let info):
            do {
                return try RemoteTileSource.open(info, cacheFolder: folder)
            } catch {
                Terminal.error("\(error); trying \(source) as an image file")
                return nil
            }
        }
    }

    /// Opens the window on `pyramid` and runs it until it closes.
    private func show(_ pyramid: PyramidSource, width: Int, height: Int, script: ViewerScript?) throws {
        let mode = PhotoMode(source: pyramid, width: width, height: height, readDelayMilliseconds: tileReadDelayMs)
        let window = try ViewerWindow(title: "fic view photo", width: width, height: height)
        try ViewerLoop(window: window, mode: mode, options: viewer, script: script).run()
    }
}
#endif
