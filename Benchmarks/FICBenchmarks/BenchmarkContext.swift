/// What every benchmark is run with: where its inputs and files are, the programs it starts, the
/// options of the command line, and where its progress goes.
public struct BenchmarkContext: Sendable {
    /// The test-data folder (photos, JPEGs, …).
    public var testdata: String
    /// A folder for the benchmarks' files, some kept between runs (generated photos and JPEGs).
    public var workDirectory: String
    /// `fic-bench` and `fic`.
    public var executables: BenchmarkExecutables
    /// The command line's options for some benchmarks.
    public var options: BenchmarkOptions
    /// Where progress lines go as a benchmark runs.
    public var log: @Sendable (String) -> Void

    /// A context of these parts.
    public init(
        testdata: String, workDirectory: String, executables: BenchmarkExecutables, options: BenchmarkOptions,
        log: @escaping @Sendable (String) -> Void
    ) {
        self.testdata = testdata
        self.workDirectory = workDirectory
        self.executables = executables
        self.options = options
        self.log = log
    }
}

/// `fic-bench`'s options for some of the benchmarks, as given (nil: each benchmark's default).
public struct BenchmarkOptions: Sendable {
    /// ingest: a folder of photos instead of generated large ones.
    public var photos: String?
    /// ingest and formats: files per kind of input.
    public var count: Int?
    /// ingest: JPEG files of the memory run (0 skips it).
    public var memoryRunCount: Int?
    /// ingest and formats: `fic ingest --jobs`.
    public var jobs: Int?

    /// formats: only these kinds of input, and only their ingest (nil: everything).
    public var kinds: [String]?

    /// Options as given.
    public init(photos: String? = nil, count: Int? = nil, memoryRunCount: Int? = nil, jobs: Int? = nil, kinds: [String]? = nil) {
        self.kinds = kinds
        self.photos = photos
        self.count = count
        self.memoryRunCount = memoryRunCount
        self.jobs = jobs
    }
}
