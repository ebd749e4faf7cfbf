import Foundation
import Testing
@testable import fic

/// The `--help` of `fic` and of every subcommand breaks lines only where ArgumentParser wraps
/// them: a help text written with a line break inside a paragraph (a multi-line string literal
/// without the trailing `\`, or a `\n`) would show that break at every terminal width.
@Suite("help texts")
struct HelpTextTests {
    /// The width help is printed at: wide, so that ArgumentParser's own wrapping is rare and a
    /// break in the middle of a short line can only be written into the text.
    static let width = 200

    /// Every command's words after `fic` (hidden ones too), the root first. Commands nest two
    /// deep (`fic view gallery`); a third level would fail the test rather than go unchecked.
    static func commandPaths() -> [[String]] {
        var paths: [[String]] = [[]]
        for command in FIC.configuration.subcommands {
            let name = command.configuration.commandName ?? "\(command)"
            paths.append([name])
            for inner in command.configuration.subcommands {
                paths.append([name, inner.configuration.commandName ?? "\(inner)"])
                #expect(inner.configuration.subcommands.isEmpty, "fic \(name) \(inner) has subcommands: check them too")
            }
        }
        return paths
    }

    /// The lines of `help` that end where ArgumentParser would not have broken them: a line
    /// followed by more of the same paragraph (or of the same option's help), whose next word
    /// would still have fitted on it. Lists of options and subcommands start each entry on a
    /// line of its own, and are not breaks.
    static func hardBreaks(in help: String, width: Int) -> [String] {
        let lines = help.components(separatedBy: "\n")
        var found: [String] = []
        var inList = false
        for (line, next) in zip(lines, lines.dropFirst()) {
            let text = line.drop { $0 == " " }
            if text.isEmpty { continue }
            // "OPTIONS:", "SUBCOMMANDS:", "ARGUMENTS:": a list, whose entries begin at the left.
            if line.first != " ", text.hasSuffix(":"), text.dropLast().allSatisfy({ $0.isUppercase || $0 == " " }) {
                inList = true
                continue
            }
            if line.first != " " { inList = false }
            let indent = line.count - text.count
            let nextText = next.drop { $0 == " " }
            let nextIndent = next.count - nextText.count
            guard !nextText.isEmpty else { continue }
            // The next line goes on with this one: prose at the same indentation, or (in a list)
            // a line indented past the entries' own column after one that has help text already
            // (an option too long for the column has its help start on the next line).
            let continues =
                inList
                ? nextIndent > 2 && !nextText.hasPrefix("-") && (indent > 2 || text.contains("  "))
                : nextIndent == indent
            guard continues else { continue }
            let nextWord = nextText.prefix { $0 != " " }
            // A margin for ArgumentParser's own arithmetic: hard breaks are far shorter.
            if line.count + 1 + nextWord.count <= width - 10 {
                found.append("\(line)⏎\n\(next)")
            }
        }
        return found
    }

    @Test("the heuristic finds a break inside a sentence and passes wrapped prose")
    func heuristic() {
        let broken = "OVERVIEW: Serve the pyramids.\n\nSTORE is a folder of pyramids. Each is served as\na IIIF service.\n"
        #expect(Self.hardBreaks(in: broken, width: 200).count == 1)
        let alsoBroken = "OVERVIEW: Build a pyramid.\n\nPrints the levels.\nExit status: 0 when built.\n"
        #expect(Self.hardBreaks(in: alsoBroken, width: 200).count == 1, "a paragraph break needs a blank line")
        let wrapped = String(repeating: "word ", count: 38) + "word\nand more words.\n\nExit status: 0.\n"
        #expect(Self.hardBreaks(in: wrapped, width: 200).isEmpty, "ArgumentParser's own wrap at 200 columns")
        let options =
            "OPTIONS:\n  --cache <dir>           The cache directory.\n  --namespace <ns>        The namespace.\n  --a-very-long-option-name <n>\n"
            + "                          Its help, on the next line.\n  -h, --help              Show help information.\n"
        #expect(Self.hardBreaks(in: options, width: 200).isEmpty)
    }

    @Test("every command's help wraps only where ArgumentParser wraps it")
    func helpHasNoHardBreaks() throws {
        let paths = Self.commandPaths()
        #expect(paths.count > 10, "\(paths)")
        for path in paths {
            for arguments in [path + ["--help"], ["help"] + path] {
                let run = try Fic.run(arguments, environment: ["COLUMNS": "\(Self.width)"])
                #expect(run.status == 0, "fic \(arguments.joined(separator: " ")): \(run.stderr)")
                #expect(run.stdout.contains("USAGE:"), "fic \(arguments.joined(separator: " ")): \(run.stdout)")
                let breaks = Self.hardBreaks(in: run.stdout, width: Self.width)
                #expect(
                    breaks.isEmpty,
                    "fic \(arguments.joined(separator: " ")) breaks lines inside a paragraph:\n\(breaks.joined(separator: "\n\n"))")
            }
        }
    }
}
