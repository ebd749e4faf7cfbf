#if Tool
import ArgumentParser
import FICCommandLine
import FICDemo
import FastImageCache
import Foundation

/// The `fic` command-line tool: a demo of Fast Image Cache, and commands to fill, read and check
/// a cache on disk.
@main
struct FIC: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fic",
        abstract: "Fast Image Cache for Swift: images of one format packed, decoded, into one mapped file.",
        discussion: """
            Start with `fic demo`: it scrolls a photo grid twice, once decoding a JPEG thumbnail \
            per cell as apps usually do and once from the cache, and prints the difference.

            Exit status: 0 success, 1 when some files were refused or entries are damaged, \
            2 on usage errors.
            """,
        subcommands: [
            DemoCommand.self, IngestCommand.self, GetCommand.self, InspectCommand.self,
            VerifyCommand.self, DecodeCommand.self, TileCommand.self, TileGetCommand.self, ServeCommand.self, ViewCommand.self
        ]
    )

    /// Parses the arguments, runs the command and exits with the tool's own statuses:
    /// usage errors exit 2 (not ArgumentParser's 64), `--help` exits 0.
    static func main() async {
        // Decodes of large images one after another must not leave their freed planes resident.
        ImageCache.returnFreedMemoryPromptly()
        await ExitStatus.main(FIC.self)
    }
}
#endif
