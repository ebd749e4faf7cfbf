#if Tool
import ArgumentParser
import FICBenchmarks

/// The benchmark argument of `fic-bench`: the name of one of ``BenchmarkList/all``, or `all`.
struct BenchmarkChoice: ExpressibleByArgument, CustomStringConvertible {
    /// The name as given.
    let name: String

    /// The name of every benchmark, then `all`: the values the help and the shell completions offer.
    static var allValueStrings: [String] { BenchmarkList.all.map { $0.name } + ["all"] }

    /// Every benchmark.
    static let all = BenchmarkChoice(name: "all")

    private init(name: String) {
        self.name = name
    }

    /// The choice `argument` names; nil, a usage error, for another word.
    init?(argument: String) {
        guard Self.allValueStrings.contains(argument) else { return nil }
        name = argument
    }

    /// The name, as the help shows the default.
    var description: String { name }

    /// Whether it runs the benchmark named `benchmark`.
    func runs(_ benchmark: String) -> Bool {
        self.name == "all" || self.name == benchmark
    }
}
#endif
