import ArgumentParser
import FICBenchmarks
import Foundation

/// `fic bench-child`: the processes some benchmarks measure, started by `fic bench` itself.
/// Hidden: nothing in it is for people.
struct BenchChildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-child",
        abstract: "A process measured by fic bench.",
        shouldDisplay: false)

    enum Kind: String, ExpressibleByArgument {
        /// `fic bench retrieval`'s new process looking each stored image up once.
        case firstLookups = "first-lookups"
    }

    @Argument var kind: Kind
    @Option var cache: String
    @Option var count: Int
    @Flag(help: "End without closing the cache, as a killed or careless application does.") var stopWithoutClose = false

    func run() throws {
        switch kind {
        case .firstLookups:
            try FirstLookupBenchmark.child(directory: cache, count: count, closes: !stopWithoutClose)
        }
    }
}
