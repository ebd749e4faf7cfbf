#if Tool
import ArgumentParser
import Glibc

/// A failure reported as one line on stderr, with the exit status it causes.
struct CLIError: Error, CustomStringConvertible {
    /// What went wrong and what to do, in one line.
    let message: String
    /// The exit status: 1 for failures, 2 for usage errors.
    let status: Int32

    init(_ message: String, status: Int32 = ExitStatus.failure) {
        self.message = message
        self.status = status
    }

    var description: String { message }
}

/// The tool's exit statuses, and how an error becomes one.
enum ExitStatus {
    /// Everything worked.
    static let success: Int32 = 0
    /// Some files were refused, entries are damaged, or the command failed.
    static let failure: Int32 = 1
    /// The command line was wrong.
    static let usage: Int32 = 2

    /// Prints what `error` means (help, a usage error, a failure) and returns the exit status.
    static func report(_ error: any Error) -> Int32 {
        if let error = error as? CLIError {
            Terminal.error(error.message)
            return error.status
        }
        if let code = error as? ExitCode { return code.rawValue }
        let code = FIC.exitCode(for: error)
        if code == .success {
            FIC.exit(withError: error)  // --help, --version: prints them, exits 0
        }
        let message = FIC.message(for: error).trimmingTrailingNewlines
        if code == .validationFailure {
            Terminal.error("\(message.firstLine) (see '\(helpCommand) --help')")
            return usage
        }
        Terminal.error(message.firstLine)
        return failure
    }

    /// `fic` or `fic SUBCOMMAND`, for pointing at the right help page.
    private static var helpCommand: String {
        let names = FIC.configuration.subcommands.compactMap { $0.configuration.commandName }
        let arguments = CommandLine.arguments.dropFirst()
        if let first = arguments.first, names.contains(first) { return "fic \(first)" }
        return "fic"
    }
}

extension String {
    var trimmingTrailingNewlines: String {
        var s = Substring(self)
        while s.last == "\n" { s = s.dropLast() }
        return String(s)
    }

    var firstLine: String {
        String(split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
    }
}
#endif
