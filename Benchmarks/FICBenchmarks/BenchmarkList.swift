/// Every benchmark, in the order `fic-bench all` runs them: `ingest` first, so that its memory
/// figures are its own and not what the others leave behind; `view` last.
public enum BenchmarkList {
    /// The benchmarks. One line registers a new one. (Computed: an array of metatypes is no
    /// `Sendable` constant.)
    public static var all: [any Benchmark.Type] {
        [
            IngestBenchmark.self,
            FormatsBenchmark.self,
            RetrievalBenchmark.self,
            DecodeBenchmark.self,
            ColorBenchmark.self,
            ServeBenchmark.self,
            AnimationBenchmark.self,
            ProcessesBenchmark.self,
            TilesBenchmark.self,
            LoaderBenchmark.self,
            ViewBenchmark.self
        ]
    }

    /// The benchmark named `name`, if any.
    public static func named(_ name: String) -> (any Benchmark.Type)? {
        all.first { $0.name == name }
    }
}
