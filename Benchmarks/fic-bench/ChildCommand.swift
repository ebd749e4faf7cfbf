#if Tool
import ArgumentParser
import FICBenchmarks

/// `fic-bench child`: the processes some benchmarks measure, started by `fic-bench` itself.
/// Hidden: nothing in it is for people.
struct ChildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: BenchmarkExecutables.childCommand,
        abstract: "A process measured by fic-bench.",
        shouldDisplay: false)

    enum Kind: String, ExpressibleByArgument {
        /// `fic-bench retrieval`'s new process looking each stored image up once.
        case firstLookups = "first-lookups"
        /// `fic-bench processes`: a gallery's lookups, a screenful every 16 ms.
        case processesReader = "processes-reader"
        /// `fic-bench processes`: photos decoded and stored as fast as they come.
        case processesIngester = "processes-ingester"
        /// `fic-bench processes`: images stored one by one, each store's time noted.
        case processesStorer = "processes-storer"
        /// `fic-bench processes`: polls for the storer's images, each first hit's time noted.
        case processesPoller = "processes-poller"
        /// `fic-bench processes`: stores in a loop until stopped or killed.
        case processesWriter = "processes-writer"
    }

    @Argument var kind: Kind
    @Option var cache: String
    @Option var count: Int
    @Flag(help: "End without closing the cache, as a killed or careless application does.") var stopWithoutClose = false
    @Option(help: "fic-bench processes: the JSON file of what the process is to do.") var job: String?

    func run() throws {
        switch kind {
        case .firstLookups:
            try FirstLookupBenchmark.child(directory: cache, count: count, closes: !stopWithoutClose)
        case .processesReader, .processesIngester, .processesStorer, .processesPoller, .processesWriter:
            guard let role = ProcessesBenchmark.Role(rawValue: kind.rawValue), let job else {
                throw ValidationError("\(kind.rawValue) needs --job")
            }
            try ProcessesBenchmark.child(role, directory: cache, count: count, job: job)
        }
    }
}
#endif
