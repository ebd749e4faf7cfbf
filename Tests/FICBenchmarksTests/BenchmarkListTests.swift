import FICBenchmarks
import Foundation
import Testing

@Suite("the benchmarks' list and JSON report")
struct BenchmarkListTests {
    /// The members of `--json`'s object: a person compares runs over time by these keys.
    @Test("every benchmark is listed once, under the name its JSON member has always had, ingest first")
    func names() {
        let names = BenchmarkList.all.map { $0.name }
        #expect(
            Set(names) == [
                "retrieval", "decode", "ingest", "formats", "tiles", "loader", "view", "color", "serve", "animation", "processes"
            ])
        #expect(names.count == Set(names).count)
        #expect(names.first == "ingest", "ingest runs first, so that its memory figures are its own")
        for benchmark in BenchmarkList.all {
            #expect(BenchmarkList.named(benchmark.name).map(ObjectIdentifier.init) == ObjectIdentifier(benchmark))
            #expect(!benchmark.abstract.isEmpty)
        }
        #expect(BenchmarkList.named("all") == nil)
    }

    /// A stand-in benchmark's figures.
    struct Figures: Encodable, Sendable {
        var lookupNs: Double
        var path: String
        enum CodingKeys: String, CodingKey {
            case lookupNs = "lookup_ns", path
        }
    }

    @Test("the report has a member per benchmark run, keys sorted, slashes as they are, NaN as a string")
    func report() throws {
        var report = BenchmarkReport()
        report.add(BenchmarkOutcome(name: "retrieval", summary: [], result: Figures(lookupNs: .nan, path: "/tmp/x")))
        report.add(BenchmarkOutcome(name: "decode", summary: [], result: Figures(lookupNs: 2.5, path: "a")))
        #expect(try report.jsonLine() == #"{"decode":{"lookup_ns":2.5,"path":"a"},"retrieval":{"lookup_ns":"NaN","path":"/tmp/x"}}"#)
        #expect(try BenchmarkReport().jsonLine() == "{}")
    }
}
