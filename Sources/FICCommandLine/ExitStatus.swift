#if Tool
import ArgumentParser
import Glibc

/// A failure reported as one line on stderr, with the exit status it causes.
package struct CLIError: Error, CustomStringConvertible {
    /// What went wrong and what to do, in one line.
    package let message: String
    /// The exit status: 1 for failures, 2 for usage errors.
    package let status: Int32

    /// A failure saying `message`, exiting with `status`.
    package init(_ message: String, status: Int32 = ExitStatus.failure) {
        self.message = message
        self.status = status
    }

    package var description: String { message }
}

/// The tools' exit statuses, and how an error becomes one.
package enum ExitStatus {
    /// Everything worked.
    package static let success: Int32 = 0
    /// Some files were refused, entries are damaged, or the command failed.
    package static let failure: Int32 = 1
    /// The command line was wrong.
    package static let usage: Int32 = 2

    /// Prints what `error` means (help, a usage error, a failure) for the tool whose root command
    /// is `root`, and returns the exit status.
    package static func report(_ error: any Error, root: any ParsableCommand.Type) -> Int32 {
        if let error = error as? CLIError {
            Terminal.error(error.message)
            return error.status
        }
        if let code = error as? ExitCode { return code.rawValue }
        let code = root.exitCode(for: error)
        if code == .success {
            root.exit(withError: error)  // --help, --version: prints them, exits 0
        }
        let message = root.message(for: error).trimmingTrailingNewlines
        if code == .validationFailure {
            Terminal.error("\(message.firstLine) (see '\(helpCommand(root)) --help')")
            return usage
        }
        Terminal.error(message.firstLine)
        return failure
    }

    /// `TOOL` or `TOOL SUBCOMMAND`, for pointing at the right help page.
    private static func helpCommand(_ root: any ParsableCommand.Type) -> String {
        let tool = root.configuration.commandName ?? Terminal.programName
        let names = root.configuration.subcommands.compactMap { $0.configuration.commandName }
        let arguments = CommandLine.arguments.dropFirst()
        if let first = arguments.first, names.contains(first) { return "\(tool) \(first)" }
        return tool
    }

    /// Parses the arguments (`arguments`, else the process's) for the tool whose root command is
    /// `root`, runs the command and exits with the tools' own statuses: usage errors exit 2 (not
    /// ArgumentParser's 64), `--help` exits 0.
    package static func main(_ root: any ParsableCommand.Type, arguments: [String]? = nil) async -> Never {
        do {
            var command = try root.parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            exit(success)
        } catch {
            exit(report(error, root: root))
        }
    }
}

extension String {
    /// The text without the newlines at its end.
    package var trimmingTrailingNewlines: String {
        var s = Substring(self)
        while s.last == "\n" { s = s.dropLast() }
        return String(s)
    }

    /// The text without the spaces at its end.
    package var trimmingTrailingSpaces: String {
        var s = Substring(self)
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }

    /// The first line of the text.
    package var firstLine: String {
        String(split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
    }
}
#endif
