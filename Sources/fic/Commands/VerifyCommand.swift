#if Tool
import FICCommandLine
import ArgumentParser
import FastImageCache
import Foundation

/// `fic verify`: checks every stored image against its checksum.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check every stored image's pixels against its checksum.",
        discussion: """
            Without --repair nothing is written, so a cache on read-only media can be checked. \
            A table that had to be rebuilt when opened (a damaged file) or entries that were dropped \
            are reported too.

            Exit status: 0 when every entry is intact and nothing was lost, 1 when some are damaged \
            (each is named) or images were lost, 2 on usage errors.
            """
    )

    @OptionGroup var cacheOptions: CacheOptions

    @OptionGroup var folder: PhotoFolderOption

    @Flag(name: .long, help: "Remove the damaged entries (they are drawn again when next requested or ingested).")
    var repair = false

    func run() throws {
        let location = try cacheOptions.location(choosing: folder)
        let (cache, _) = try location.openExisting(readOnly: !repair)
        defer { cache.close() }
        if repair && cache.isReadOnly {
            throw CLIError(
                "the cache \(location.path) is on a read-only file system: it can be verified (without --repair) but not repaired")
        }
        let lost = OpenReports.print(cache)
        let total = cache.statistics.formats.reduce(0) { $0 + $1.count }
        let bad = cache.verify(repair: repair)
        var damaged = 0
        for format in cache.formats {
            for entry in (bad[format.name] ?? []).sorted(by: { $0.slot < $1.slot }) {
                damaged += 1
                print("damaged: \(entry.label) in format \(format.name) (slot \(entry.slot))\(repair ? ", removed" : "")")
            }
        }
        let verdict: String
        switch (damaged, lost) {
        case (0, false): verdict = "all intact"
        case (0, true): verdict = "intact, but stored images were lost (see above)"
        default: verdict = "\(damaged) damaged" + (lost ? "; stored images were lost (see above)" : "")
        }
        print(
            "verified \(Formatting.grouped(total)) entries in \(cache.formats.count) format\(cache.formats.count == 1 ? "" : "s"): \(verdict)"
        )
        if damaged > 0 {
            Terminal.error(
                "\(damaged) damaged entr\(damaged == 1 ? "y" : "ies")\(repair ? " removed; ingest again to redraw them" : ": run 'fic verify --repair' to remove them, then ingest again")"
            )
        }
        if damaged > 0 || lost { throw ExitCode(ExitStatus.failure) }
    }
}
#endif
