#if Tool
import ArgumentParser

/// The options every `fic view` mode shares: window size, script, screenshot, statistics.
struct ViewerOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The window size in pixels.", valueName: "WxH"))
    var size = "1280x800"

    @Option(
        name: .long,
        help: ArgumentHelp("Play the input in FILE (one command a line; see `fic view --help`), then close.", valueName: "file"))
    var script: String?

    @Option(name: .long, help: ArgumentHelp("Save the window as a PNG when the viewer closes.", valueName: "file.png"))
    var screenshot: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Write frame times (compose and present), hits, misses and peak memory as JSON when the viewer closes.", valueName: "file.json")
    )
    var stats: String?

    @Flag(name: .long, help: "Hide the statistics overlay at the start (the o key shows it).")
    var noOverlay = false

    @Flag(name: .long, help: "Pace a script at 60 frames a second, as a person would see it (scripts otherwise run frames back to back).")
    var paced = false

    /// The window's width and height.
    var windowSize: (width: Int, height: Int) {
        get throws {
            let parts = size.lowercased().split(separator: "x")
            guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), (64...8192).contains(w), (64...8192).contains(h) else {
                throw ValidationError("--size must be WIDTHxHEIGHT with each side 64…8192, not '\(size)'")
            }
            return (w, h)
        }
    }

    func validate() throws {
        _ = try windowSize
    }
}
#endif
