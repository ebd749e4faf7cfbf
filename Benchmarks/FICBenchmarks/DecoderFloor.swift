import FICHarness
import Foundation

/// The decoder's own time on the same files as an ingest: its command-line tool decoding each
/// file to raw Y4M (the cheapest output it has), as many at a time as the ingest decodes. What
/// no ingest of these files can beat without a faster decoder.
public struct DecoderFloor: Codable, Sendable {
    /// The kind of input (`heic`, `avif`).
    public var kind: String
    /// The tool: `heif-convert` (libde265) or `avifdec` (dav1d).
    public var tool: String
    /// Files decoded per run.
    public var files: Int
    /// Processes at a time.
    public var jobs: Int
    /// Best seconds of the timed runs.
    public var seconds: Double
    /// `files / seconds`.
    public var photosPerSecond: Double
    /// CPU time (user and system, every decoder process) per photo of the best run, in milliseconds.
    public var cpuMillisecondsPerPhoto: Double

    enum CodingKeys: String, CodingKey {
        case kind, tool, files, jobs, seconds
        case photosPerSecond = "photos_per_second"
        case cpuMillisecondsPerPhoto = "cpu_ms_per_photo"
    }

    /// The kinds measured beside their decoder's own tool, and the tool: `heif-convert`
    /// (libde265) for HEIC, `avifdec` (dav1d) for AVIF.
    static let tools = ["heic": "heif-convert", "avif": "avifdec"]

    /// The tool that decodes `kind`, or nil when there is none to compare with.
    static func tool(for kind: String) -> String? { tools[kind] }

    /// Times the decoder of `kind` on `files`, `jobs` processes at a time, best of `runs` after a
    /// warm-up; nil when the kind has no tool or it is not installed.
    static func measure(kind: String, files: [String], jobs: Int, runs: Int, root: String, log: (String) -> Void) throws -> DecoderFloor? {
        guard let name = tool(for: kind), let tool = Executables.find(name) else { return nil }
        let out = try BenchKit.makeFreshDirectory(root, "floor-\(kind)")
        defer { try? FileManager.default.removeItem(atPath: out) }
        // xargs runs `jobs` decoders at once; each output is removed at once, so the page cache
        // holds one frame per job, not the whole folder.
        let script = #"""
            tool="$1"; out="$2"; jobs="$3"; shift 3
            printf '%s\n' "$@" | xargs -P "$jobs" -I '{}' sh -c '
              f="$3/$(basename "$2").y4m"; "$1" "$2" "$f" > /dev/null && rm -f "$f"' sh "$tool" '{}' "$out"
            """#
        var measuredRuns: [MeasuredRun] = []
        for run in 0...max(runs, 1) {
            let measured = try MeasuredRun.run("/bin/sh", ["-c", script, "sh", tool, out, "\(jobs)"] + files)
            let left = (try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []
            guard left.isEmpty else { throw BenchmarkError("\(name) did not decode \(left.count) of the files") }
            if run > 0 { measuredRuns.append(measured) }
        }
        let best = measuredRuns.min { $0.seconds < $1.seconds }!
        let cpu = best.cpuSeconds * 1000 / Double(files.count)
        log(
            "    \(name) (the decoder alone, \(jobs) at a time): \(BenchKit.fixed(Double(files.count) / best.seconds)) photos/s, \(BenchKit.fixed(cpu)) ms CPU per photo"
        )
        return DecoderFloor(
            kind: kind, tool: name, files: files.count, jobs: jobs, seconds: best.seconds,
            photosPerSecond: Double(files.count) / best.seconds,
            cpuMillisecondsPerPhoto: cpu)
    }
}
