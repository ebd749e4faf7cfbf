import FICCore
import Foundation
import Glibc

/// The parent's side of ``ProcessesBenchmark``: starts its processes, tells them when to begin
/// and end through flag files, and collects what they wrote.
extension ProcessesBenchmark {
    struct Children {
        /// The `fic-bench` executable, the benchmark's folder, the cache's folder, the test data.
        let benchmarks: String
        let root: String
        let cache: String
        let testdata: String

        func path(_ name: String) -> String { (root as NSString).appendingPathComponent(name) }

        /// Starts `fic-bench child ROLE` on `count` entities with `job`.
        func start(_ role: Role, count: Int, job: Job) throws -> BenchmarkProcess {
            let jobPath = job.ready + ".job"
            try JSONEncoder().encode(job).write(to: URL(fileURLWithPath: jobPath))
            return try BenchmarkProcess(
                benchmarks, [BenchmarkExecutables.childCommand, role.rawValue, "--cache", cache, "--count", "\(count)", "--job", jobPath])
        }

        /// Waits until every child has made its ready flag; throws, with its errors, if one ends first.
        func waitUntilReady(_ children: [(BenchmarkProcess, Job)]) throws {
            let deadline = BenchKit.monotonicNanoseconds() + 120_000_000_000
            for (child, job) in children {
                while !ProcessesBenchmark.exists(job.ready) {
                    if child.hasEnded() { try child.wait() }
                    guard BenchKit.monotonicNanoseconds() < deadline else {
                        throw BenchmarkError("\(child.name) was not ready within 2 minutes")
                    }
                    pauseCurrentThread(.milliseconds(1))
                }
            }
        }

        /// One ingest of `count` photos as new versions `version`, nothing else running. Returns
        /// its seconds, from its first store to its last.
        func ingest(version: String, count: Int, maximumCount: Int) throws -> Double {
            let job = Job(
                namespace: Namespace.gallery, maximumCount: maximumCount, ready: path("ingest-\(version).ready"),
                output: path("ingest-\(version).json"), photos: testdata, prefix: "i", source: version)
            let child = try start(.ingester, count: count, job: job)
            try child.wait()
            return try ProcessesBenchmark.readOutput(path("ingest-\(version).json")).report.seconds
        }

        /// Readers looking up while an ingest of `count` photos runs: the readers start, look
        /// every image up and say they are ready; so does the ingester; then both begin at once
        /// (the `go` flag), and the readers stop once the ingest is done.
        func ingestBesideReaders(round: Int, readers: Int, count: Int, readerImages: Int, maximumCount: Int)
            throws -> (seconds: Double, readers: [(report: Report, samples: [UInt64])])
        {
            let go = path("go-\(round)"), stop = path("stop-\(round)")
            let jobs = (0..<readers).map { i in
                Job(
                    namespace: Namespace.gallery, maximumCount: maximumCount, ready: path("reader-\(round)-\(i).ready"), go: go, stop: stop,
                    output: path("reader-\(round)-\(i).json"), prefix: "r",
                    seed: UInt64(i) * UInt64(readerImages / ProcessesBenchmark.rowLength / max(1, readers)))
            }
            let started = try jobs.map { try start(.reader, count: readerImages, job: $0) }
            try waitUntilReady(Array(zip(started, jobs)))
            let version = "with-readers-\(round)"
            let ingestJob = Job(
                namespace: Namespace.gallery, maximumCount: maximumCount, ready: path("ingest-\(version).ready"), go: go,
                output: path("ingest-\(version).json"), photos: testdata, prefix: "i", source: version)
            let ingester = try start(.ingester, count: count, job: ingestJob)
            try waitUntilReady([(ingester, ingestJob)])
            ProcessesBenchmark.touch(go)
            try ingester.wait()
            ProcessesBenchmark.touch(stop)
            for reader in started { try reader.wait() }
            let seconds = try ProcessesBenchmark.readOutput(ingestJob.output!).report.seconds
            return (
                seconds,
                try jobs.map { job in
                    let (report, samples) = try ProcessesBenchmark.readOutput(job.output!)
                    return (report, samples)
                }
            )
        }

        /// One reader alone for `ticks` ticks, nothing else running, of the cache or of a baseline.
        func readAlone(round: Int, ticks: Int, readerImages: Int, maximumCount: Int, of kind: ReaderKind = .cache) throws -> (
            report: Report, samples: [UInt64]
        ) {
            let name = "reader-\(kind.rawValue)-\(round)"
            let job = Job(
                namespace: Namespace.gallery, maximumCount: maximumCount, ready: path(name + ".ready"),
                output: path(name + ".json"), ticks: ticks, prefix: "r", reads: kind, countPages: true)
            try start(.reader, count: readerImages, job: job).wait()
            let (report, samples) = try ProcessesBenchmark.readOutput(job.output!)
            return (report, samples)
        }

        /// `count` images stored one by one by one process while another polls for each: when
        /// each store returned and when each was first a hit.
        func storeToHit(count: Int) throws -> (stored: [UInt64], hit: [UInt64]) {
            let maximumCount = count + 64
            let pollJob = Job(
                namespace: Namespace.storeToHit, maximumCount: maximumCount, ready: path("poller.ready"), output: path("poller.json"),
                prefix: "h")
            let poller = try start(.poller, count: count, job: pollJob)
            try waitUntilReady([(poller, pollJob)])
            let go = path("store.go")
            let storeJob = Job(
                namespace: Namespace.storeToHit, maximumCount: maximumCount, ready: path("storer.ready"), go: go,
                output: path("storer.json"), photos: testdata, prefix: "h", seed: 0x5107E)
            let storer = try start(.storer, count: count, job: storeJob)
            try waitUntilReady([(storer, storeJob)])
            ProcessesBenchmark.touch(go)
            try storer.wait()
            try poller.wait()
            let stored = try ProcessesBenchmark.readOutput(storeJob.output!).times,
                hit = try ProcessesBenchmark.readOutput(pollJob.output!).times
            guard stored.count == count, hit.count == count else {
                throw BenchmarkError("store to hit: \(stored.count) stores and \(hit.count) hits of \(count)")
            }
            return (stored, hit)
        }
    }
}
