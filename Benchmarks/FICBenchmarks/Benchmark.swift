/// A benchmark `fic-bench` runs: its name, what it measures, its run, and the table it prints.
/// A new benchmark is a conformer in a file of its own and a line in ``BenchmarkList/all``.
public protocol Benchmark {
    /// What one run measured: shown by ``summary(of:)``, and the benchmark's member of the one
    /// JSON object `fic-bench --json` prints, under ``name`` (its keys are the ones a person
    /// compares runs by, so they stay as they are).
    associatedtype Result: Encodable & Sendable

    /// Its name: `fic-bench NAME` runs it alone, and it keys its member of the JSON.
    static var name: String { get }

    /// What it measures, a sentence or two for `fic-bench --help`.
    static var abstract: String { get }

    /// Runs it. Progress goes to the context's log as it goes.
    static func run(in context: BenchmarkContext) async throws -> Result

    /// The lines printed after its run: its figures, each with its target and whether it was met.
    static func summary(of result: Result) -> [String]
}

extension Benchmark {
    /// Runs it, and returns its summary and its member of the JSON.
    public static func measure(in context: BenchmarkContext) async throws -> BenchmarkOutcome {
        let result = try await run(in: context)
        return BenchmarkOutcome(name: name, summary: summary(of: result), result: result)
    }
}

/// What one benchmark's run gave: the lines to print and the JSON member.
public struct BenchmarkOutcome: Sendable {
    /// The benchmark's name: the JSON member's key.
    public let name: String
    /// The lines of its table.
    public let summary: [String]
    /// Its figures, the JSON member's value.
    public let result: any Encodable & Sendable

    /// The outcome of the benchmark `name`.
    public init(name: String, summary: [String], result: any Encodable & Sendable) {
        self.name = name
        self.summary = summary
        self.result = result
    }
}
