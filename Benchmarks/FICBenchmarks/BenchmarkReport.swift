import Foundation

/// The one JSON object `fic-bench --json` prints on its last line: a member per benchmark that
/// ran, keyed by its name, keys sorted (the object's shape before benchmarks were conformers of
/// ``Benchmark``: a person compares runs over time by it).
public struct BenchmarkReport: Encodable, Sendable {
    /// The members, in the order they ran.
    private var members: [(name: String, result: any Encodable & Sendable)] = []

    /// An empty report.
    public init() {}

    /// Adds a benchmark's figures.
    public mutating func add(_ outcome: BenchmarkOutcome) {
        members.append((outcome.name, outcome.result))
    }

    /// Encodes the members under their names.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Name.self)
        for member in members {
            try container.encode(member.result, forKey: Name(member.name))
        }
    }

    /// The report as one line of JSON: keys sorted, slashes not escaped, infinities and NaN as
    /// strings (a ratio over a figure of 0 is one).
    public func jsonLine() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// A benchmark's name as a key.
    private struct Name: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
