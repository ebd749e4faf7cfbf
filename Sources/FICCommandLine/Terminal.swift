#if Tool
import Foundation

/// Writes the tool's output. Only the tool writes to the terminal; the libraries never do.
package enum Terminal {
    /// Writes `line` to stderr, prefixed with the program's name (`fic: `).
    package static func error(_ line: String) {
        writeError(programName + ": " + line + "\n")
    }

    /// The name the program was started by (`fic`, `fic-demo`, `fic-bench`).
    package static let programName = CommandLine.arguments.first.map { ($0 as NSString).lastPathComponent } ?? "fic"

    /// Writes `text` to stderr as is.
    package static func writeError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// Whether stderr is a terminal (progress bars are drawn only then).
    package static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) != 0 }

    /// The terminal's width in columns, 80 when unknown.
    package static var columns: Int {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }
}
#endif
