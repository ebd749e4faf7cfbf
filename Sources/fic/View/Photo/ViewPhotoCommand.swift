import ArgumentParser
import Foundation

/// `fic view photo`: pan and zoom a tile pyramid.
struct ViewPhotoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "photo",
        abstract: "Pan and zoom a huge photo through its tile pyramid.",
        discussion: """
            SOURCE is a pyramid folder made by `fic tile IMAGE --out DIR`, an image file (JPEG, \
            PNG, WebP, HEIC, AVIF) or an http(s) URL of one, which is tiled into a throwaway pyramid first \
            (a URL while it downloads); the photo is shown, with the progress, as soon as its size is \
            known, and sharpens row by row as the pyramid is written. Tiles are read off the frame path into a small resident set; a tile \
            not read yet is drawn from a coarser level until it arrives.
            """
    )

    @Argument(help: ArgumentHelp("A pyramid folder, an image file or an http(s) URL.", valueName: "source"))
    var source: String

    @Option(name: .long, help: ArgumentHelp("Where a throwaway pyramid's unnamed files go (default: $TMPDIR).", valueName: "dir"))
    var workDirectory: String?

    @Option(name: .long, help: ArgumentHelp("Pause after each tile read (for tests: coarse tiles stand in meanwhile).", visibility: .hidden))
    var tileReadDelayMs = 0

    @Option(name: .long, help: ArgumentHelp("Feed only this many bytes of an image file to the build, then hold (for tests: a half-built pyramid).", visibility: .hidden))
    var buildHoldAfterBytes: Int?

    @OptionGroup var viewer: ViewerOptions

    func run() throws {
        let (width, height) = try viewer.windowSize
        let script = try viewer.script.map { try ViewerScript(contentsOf: Paths.absolute($0), width: width, height: height) }
        let workFolder = workDirectory.map(Paths.absolute)
        if PyramidDownload.isURL(source) {
            let pyramid = PyramidSource.building(url: source, temporaryFolder: workFolder)
            try show(pyramid, width: width, height: height, script: script)
            return
        }
        let path = Paths.absolute(source)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CLIError("\(path) does not exist: give a pyramid folder (made by `fic tile`) or an image file")
        }
        let pyramid = isDirectory.boolValue
            ? try PyramidSource(folder: path)
            : try PyramidSource.building(imageFile: path, temporaryFolder: workFolder, holdAfterBytes: buildHoldAfterBytes.map { max(0, $0) })
        try show(pyramid, width: width, height: height, script: script)
    }

    /// Opens the window on `pyramid` and runs it until it closes.
    private func show(_ pyramid: PyramidSource, width: Int, height: Int, script: ViewerScript?) throws {
        let mode = PhotoMode(source: pyramid, width: width, height: height, readDelayMilliseconds: tileReadDelayMs)
        let window = try ViewerWindow(title: "fic view photo", width: width, height: height)
        try ViewerLoop(window: window, mode: mode, options: viewer, script: script).run()
    }
}
