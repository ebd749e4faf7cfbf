import Foundation

/// The programs benchmarks start: `fic-bench` itself, whose hidden ``childCommand`` runs the
/// processes some benchmarks measure (first lookups, several processes on one cache), and `fic`,
/// whose commands others measure (`fic ingest`, `fic tile`, `fic serve`, `fic view`), found
/// beside `fic-bench` in the same build folder.
public struct BenchmarkExecutables: Sendable {
    /// The `fic-bench` executable, its symbolic links resolved.
    public let benchmarks: String

    /// The hidden command of `fic-bench` that runs a benchmark's child process:
    /// `fic-bench child KIND …`.
    public static let childCommand = "child"

    /// The programs of the build folder `benchmarks` is in.
    public init(benchmarks: String) {
        self.benchmarks = benchmarks
    }

    /// This process's own executable (`/proc/self/exe`, resolved): what `fic-bench` looks up
    /// once, at its start.
    public static func ofThisProcess() -> BenchmarkExecutables {
        BenchmarkExecutables(benchmarks: URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path)
    }

    /// The build folder of both programs.
    public var folder: String {
        (benchmarks as NSString).deletingLastPathComponent
    }

    /// `fic` in ``folder``.
    ///
    /// - Throws: ``BenchmarkError`` when it is not there: `swift build --product fic-bench`
    ///   builds `fic-bench` alone.
    public func fic() throws -> String {
        let fic = (folder as NSString).appendingPathComponent("fic")
        guard FileManager.default.isExecutableFile(atPath: fic) else {
            throw BenchmarkError(
                "this benchmark measures fic, and there is no fic beside fic-bench in \(folder): build it (swift build -c release --product fic)"
            )
        }
        return fic
    }
}
