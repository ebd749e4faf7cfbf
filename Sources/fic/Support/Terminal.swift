#if Tool
import Foundation

/// Writes the tool's output. Only the tool writes to the terminal; the libraries never do.
enum Terminal {
    /// Writes `line` to stderr, prefixed with `fic: `.
    static func error(_ line: String) {
        writeError("fic: " + line + "\n")
    }

    /// Writes `text` to stderr as is.
    static func writeError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// Whether stderr is a terminal (progress bars are drawn only then).
    static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) != 0 }

    /// The terminal's width in columns, 80 when unknown.
    static var columns: Int {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }
}
#endif
