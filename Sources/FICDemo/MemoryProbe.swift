#if Tool
import Foundation

/// Reads this process's memory from `/proc/self/smaps_rollup`.
package struct MemorySample {
    /// Pages written by this process and mapped only by it: heap, decoded images, dirty file pages.
    package var privateDirty = 0
    /// Resident pages backed by files (the mapped tables): `Rss − Anonymous`. Clean ones are
    /// dropped by the kernel under pressure and read back from the file.
    package var fileBacked = 0

    /// The current figures (zeros where `/proc` is unavailable).
    package static func now() -> MemorySample {
        guard let text = try? String(contentsOfFile: "/proc/self/smaps_rollup", encoding: .utf8) else { return MemorySample() }
        var fields: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count >= 2, parts[0].hasSuffix(":"), let kb = Int(parts[1]) else { continue }
            fields[String(parts[0].dropLast())] = kb * 1024
        }
        return MemorySample(
            privateDirty: fields["Private_Dirty"] ?? 0,
            fileBacked: (fields["Rss"] ?? 0) - (fields["Anonymous"] ?? 0))
    }
}

/// The most memory a phase used above what the process used when it started.
package struct MemoryPeak {
    package let baseline: MemorySample
    private(set) var privateDirty = 0
    private(set) var fileBacked = 0

    package init() { baseline = MemorySample.now() }

    /// Takes a sample and keeps the maxima above the baseline.
    package mutating func sample() {
        let now = MemorySample.now()
        privateDirty = max(privateDirty, now.privateDirty - baseline.privateDirty)
        fileBacked = max(fileBacked, now.fileBacked - baseline.fileBacked)
    }
}
#endif
