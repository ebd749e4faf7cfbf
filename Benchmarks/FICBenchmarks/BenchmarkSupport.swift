import Foundation

import Glibc

// MARK: Helpers

/// Helpers shared by the benchmarks of this module (kept in one namespace so that they cannot
/// collide with names of other files of the module).
enum BenchKit {
    /// Consumes `value` in a way the optimiser cannot see through, so that the work producing it
    /// cannot be deleted.
    @inline(never) @_optimize(none)
    static func blackHole<T>(_ value: T) {}

    // MARK: Timing

    /// Nanoseconds in a `Duration`, as a `Double`.
    @inline(__always)
    static func nanoseconds(_ duration: Duration) -> Double {
        let c = duration.components
        return Double(c.seconds) * 1e9 + Double(c.attoseconds) / 1e9
    }

    /// `CLOCK_MONOTONIC` in nanoseconds: one clock for the whole system, so that times taken in
    /// different processes can be compared.
    @inline(__always)
    static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
    }

    // MARK: Measuring

    /// Runs `body` `warmups` times untimed, then `runs` times timed with the monotonic clock, and
    /// returns nanoseconds per operation (`body` performs `operationsPerRun` operations each call).
    static func measure(warmups: Int = 1, runs: Int, operationsPerRun: Int, _ body: () throws -> Void) rethrows -> BenchTiming {
        for _ in 0..<warmups { try body() }
        let clock = ContinuousClock()
        var samples: [Double] = []
        samples.reserveCapacity(runs)
        for _ in 0..<runs {
            let start = clock.now
            try body()
            let elapsed = clock.now - start
            samples.append(nanoseconds(elapsed) / Double(operationsPerRun))
        }
        return BenchTiming(samples)
    }

    /// The `q` quantile (0…1) of `sorted`, an ascending non-empty array, by nearest rank: the
    /// smallest value that at least `q` of the values are not above.
    static func quantile<T>(_ sorted: [T], _ q: Double) -> T {
        precondition(!sorted.isEmpty, "no values")
        let rank = Int((Double(sorted.count) * q).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    // MARK: Reading pixels

    /// Sums every byte of `height` rows of `rowBytes` bytes (rows `bytesPerRow` apart), eight bytes
    /// at a time as `UInt64` words with wrapping addition; a trailing partial word is summed byte by byte.
    @inline(__always)
    static func sumPixelWords(_ base: UnsafeRawPointer, rowBytes: Int, bytesPerRow: Int, height: Int) -> UInt64 {
        var total: UInt64 = 0
        let words = rowBytes / 8
        for y in 0..<height {
            let row = base + y * bytesPerRow
            var a: UInt64 = 0, b: UInt64 = 0
            var i = 0
            while i + 1 < words {
                a &+= row.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self)
                b &+= row.loadUnaligned(fromByteOffset: i * 8 + 8, as: UInt64.self)
                i += 2
            }
            if i < words { a &+= row.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self) }
            for j in (words * 8)..<rowBytes { a &+= UInt64(row.load(fromByteOffset: j, as: UInt8.self)) }
            total &+= a &+ b
        }
        return total
    }

    // MARK: Files

    /// Image files of a test-data folder: `DIR/photos/*` when that folder exists, else `DIR/*`;
    /// JPEG, PNG and WebP files by extension, sorted by name.
    static func photos(in testdata: String) -> [String] {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        let photos = (testdata as NSString).appendingPathComponent("photos")
        let folder = fm.fileExists(atPath: photos, isDirectory: &isDirectory) && isDirectory.boolValue ? photos : testdata
        let names = (try? fm.contentsOfDirectory(atPath: folder)) ?? []
        let extensions: Set<String> = ["jpg", "jpeg", "png", "webp"]
        return
            names
            .filter { extensions.contains(($0 as NSString).pathExtension.lowercased()) }
            .sorted()
            .map { (folder as NSString).appendingPathComponent($0) }
    }

    /// A fresh, empty directory `name` inside `parent` (removed first if it exists).
    static func makeFreshDirectory(_ parent: String, _ name: String) throws -> String {
        let path = (parent as NSString).appendingPathComponent(name)
        let fm = FileManager.default
        if fm.fileExists(atPath: path) { try fm.removeItem(atPath: path) }
        try fm.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    // MARK: Memory

    /// Resident-set figures of this process, in bytes.
    enum ResidentMemory {
        /// The peak resident set size as `getrusage` reports it (`ru_maxrss`).
        static func maxRSS() -> Int {
            var usage = rusage()
            _ = getrusage(__rusage_who_t(truncatingIfNeeded: RUSAGE_SELF.rawValue), &usage)
            return Int(usage.ru_maxrss) * 1024
        }

        /// Resets the kernel's high-water mark of the resident set (`VmHWM`) to the current size
        /// (Linux 4.0 and later). Returns whether it worked.
        static func resetPeak() -> Bool {
            let fd = open("/proc/self/clear_refs", O_WRONLY)
            guard fd >= 0 else { return false }
            defer { close(fd) }
            return write(fd, "5", 1) == 1
        }

        /// `VmHWM` from `/proc/self/status`: the peak since start or since ``resetPeak()``.
        static func highWaterMark() -> Int? {
            guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
            for line in text.split(separator: "\n") where line.hasPrefix("VmHWM:") {
                let digits = line.dropFirst(6).filter(\.isNumber)
                return Int(digits).map { $0 * 1024 }
            }
            return nil
        }

        /// Current resident bytes: (total, anonymous), from `/proc/self/statm` (total minus file-backed and shared).
        static func current() -> (total: Int, anonymous: Int)? {
            let fd = open("/proc/self/statm", O_RDONLY)
            guard fd >= 0 else { return nil }
            defer { close(fd) }
            var buffer = [UInt8](repeating: 0, count: 128)
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { return nil }
            let fields = String(decoding: buffer[0..<n], as: UTF8.self).split(separator: " ")
            guard fields.count >= 3, let resident = Int(fields[1]), let shared = Int(fields[2]) else { return nil }
            let page = Int(sysconf(Int32(_SC_PAGESIZE)))
            return (resident * page, (resident - shared) * page)
        }
    }

    // MARK: Formatting

    /// `value` with `digits` decimals.
    static func fixed(_ value: Double, _ digits: Int = 1) -> String {
        String(format: "%.\(digits)f", value)
    }

    /// A byte count in MiB with one decimal.
    static func mebibytes(_ bytes: Int) -> String {
        fixed(Double(bytes) / 1_048_576) + " MiB"
    }

    /// A time in nanoseconds, in µs from 100 µs up.
    static func nanoseconds(text value: Double) -> String {
        value >= 100_000 ? String(format: "%.1f µs", value / 1000) : String(format: "%.1f ns", value)
    }
}

/// Summary of several timed runs of one operation, in nanoseconds per operation.
public struct BenchTiming: Codable, Sendable, Hashable {
    /// The fastest run.
    public var best: Double
    /// The median run.
    public var median: Double
    /// The slowest run.
    public var worst: Double
    /// Every run, in the order they were made.
    public var runs: [Double]

    init(_ samples: [Double]) {
        precondition(!samples.isEmpty, "no samples")
        let sorted = samples.sorted()
        best = sorted[0]
        worst = sorted[sorted.count - 1]
        median = sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        runs = samples
    }
}

/// Errors of the benchmarks' own plumbing.
public struct BenchmarkError: Error, CustomStringConvertible, Sendable {
    /// What went wrong.
    public var description: String
    init(_ description: String) { self.description = description }
}
