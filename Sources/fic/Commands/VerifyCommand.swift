import ArgumentParser
import FastImageCache
import Foundation

/// `fic verify`: checks every stored image against its checksum.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check every stored image's pixels against its checksum.",
        discussion: "Exit status: 0 when every entry is intact, 1 when some are damaged (each is named), 2 on usage errors."
    )

    @OptionGroup var cacheOptions: CacheOptions

    @Flag(name: .long, help: "Remove the damaged entries (they are drawn again when next requested or ingested).")
    var repair = false

    func run() throws {
        let (cache, _) = try cacheOptions.openExisting()
        defer { cache.close() }
        let total = cache.statistics.formats.reduce(0) { $0 + $1.count }
        let bad = cache.verify(repair: repair)
        var damaged = 0
        for format in cache.formats {
            for entry in (bad[format.name] ?? []).sorted(by: { $0.slot < $1.slot }) {
                damaged += 1
                print("damaged: \(entry.label) in format \(format.name) (slot \(entry.slot))\(repair ? ", removed" : "")")
            }
        }
        print("verified \(Formatting.grouped(total)) entries in \(cache.formats.count) format\(cache.formats.count == 1 ? "" : "s"): \(damaged == 0 ? "all intact" : "\(damaged) damaged")")
        if damaged > 0 {
            Terminal.error("\(damaged) damaged entr\(damaged == 1 ? "y" : "ies")\(repair ? " removed; ingest again to redraw them" : ": run 'fic verify --repair' to remove them, then ingest again")")
            throw ExitCode(ExitStatus.failure)
        }
    }
}
