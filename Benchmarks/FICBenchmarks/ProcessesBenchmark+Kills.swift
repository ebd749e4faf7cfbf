import FICCore
import FICHarness
import FastImageCache
import Foundation
import Glibc
import ImageTable

/// The killed-writer measurement of ``ProcessesBenchmark``.
extension ProcessesBenchmark.Children {
    /// What ``killedWriters(locked:random:)`` measured, in ms from each kill to the other writer's
    /// next completed store.
    struct Kills {
        var holdingLock: [Double] = []
        var atRandom: [Double] = []
        /// From instants at which nothing was killed.
        var noKill: [Double] = []
        /// Whether each writer killed at random held the lock.
        var atRandomHeldLock: [Bool] = []
        /// From each kill holding the lock until the killed writer was reaped.
        var holdingLockExit: [Double] = []
        /// `SIGSTOP`s it took to find the writers holding the lock.
        var stops = 0
        /// The other writer's median time between two stores, µs.
        var storePeriodMedianUs = 0.0
    }

    /// Writer B stores in a loop for the whole measurement. Writer A, started again for each
    /// kill, stores in a loop too; it is stopped at random moments until it is found holding
    /// the table's writer lock, then killed (`locked` times); then killed at random moments
    /// (`random` times). Each figure is B's first store completed after the kill.
    func killedWriters(locked: Int, random: Int) throws -> Kills {
        let namespace = ProcessesBenchmark.Namespace.killedWriter, maximumCount = 256, entities = 64
        let stop = path("writers.stop")
        let bJob = ProcessesBenchmark.Job(
            namespace: namespace, maximumCount: maximumCount, ready: path("writer-b.ready"), stop: stop,
            output: path("writer-b.json"), photos: testdata, prefix: "b")
        let b = try start(.writer, count: entities, job: bJob)
        try waitUntilReady([(b, bJob)])

        // The writer lock's byte is in the table's side file; this process's own open file
        // description of it asks the kernel whether another description holds it.
        let folder = try Directory.open((cache as NSString).appendingPathComponent(namespace), create: false)
        let sideName = ProcessesBenchmark.formatName + ImageCache.fileExtension + "-shared"
        guard let status = try folder.status(of: sideName) else { throw BenchmarkError("the table has no side file \(sideName)") }
        let side = try folder.openFile(sideName, writable: false)
        defer { side.closeQuietly() }
        let sidePath = folder.child(sideName)

        var kills = Kills()
        /// Stops `a` and says whether it holds the writer lock. The query says that a
        /// description holds the lock, not whose: B may be storing. A's own lock lines say
        /// whether it is A's.
        func stopAndAskWhetherItHoldsTheLock(_ a: BenchmarkProcess) throws -> Bool {
            a.child.signal(SIGSTOP)
            kills.stops += 1
            guard a.child.waitUntilStopped() else { throw BenchmarkError("writer A ended: \(a.lastErrors())") }
            return try side.isRangeLockedByOthers(.exclusive, start: SharedWriterLock.byte, length: 1, path: sidePath)
                && ProcessLocks.holdsWriteLock(pid: a.child.pid, inode: UInt64(status.st_ino), byte: SharedWriterLock.byte)
        }

        var pauses = SplitMix64(seed: 0x6B1115)
        var killedHoldingLock: [UInt64] = [], killedAtRandom: [UInt64] = [], probes: [UInt64] = []
        for i in 0..<(locked + random) {
            let aJob = ProcessesBenchmark.Job(
                namespace: namespace, maximumCount: maximumCount, ready: path("writer-a-\(i).ready"),
                photos: testdata, prefix: "a")
            let a = try start(.writer, count: entities, job: aJob)
            try waitUntilReady([(a, aJob)])
            // An instant at which nothing is killed: how long B takes to store again anyway.
            pauseCurrentThread(.microseconds(Int.random(in: 1000...10_000, using: &pauses)))
            probes.append(BenchKit.monotonicNanoseconds())
            if i < locked {
                var found = false
                for _ in 0..<50_000 {
                    pauseCurrentThread(.microseconds(Int.random(in: 50...1500, using: &pauses)))
                    if try stopAndAskWhetherItHoldsTheLock(a) {
                        let killed = BenchKit.monotonicNanoseconds()
                        killedHoldingLock.append(killed)
                        a.child.kill()
                        kills.holdingLockExit.append(Double(BenchKit.monotonicNanoseconds() - killed) / 1e6)
                        found = true
                        break
                    }
                    a.child.signal(SIGCONT)
                }
                guard found else { throw BenchmarkError("writer A was never found holding the writer lock") }
            } else {
                // Stopped first only to learn whether it holds the lock: killed whatever it is doing.
                pauseCurrentThread(.microseconds(Int.random(in: 1000...30_000, using: &pauses)))
                kills.atRandomHeldLock.append(try stopAndAskWhetherItHoldsTheLock(a))
                killedAtRandom.append(BenchKit.monotonicNanoseconds())
                a.child.kill()
            }
            // B stores on alone for a while before the next A starts.
            pauseCurrentThread(.milliseconds(20))
        }
        ProcessesBenchmark.touch(stop)
        try b.wait()

        let completed = try ProcessesBenchmark.readOutput(bJob.output!).times
        func nextStore(after kill: UInt64) throws -> Double {
            var low = 0, high = completed.count
            while low < high {
                let middle = (low + high) / 2
                if completed[middle] <= kill { low = middle + 1 } else { high = middle }
            }
            guard low < completed.count else { throw BenchmarkError("writer B stored nothing after a kill") }
            return Double(completed[low] - kill) / 1e6
        }
        kills.holdingLock = try killedHoldingLock.map(nextStore)
        kills.atRandom = try killedAtRandom.map(nextStore)
        kills.noKill = try probes.map(nextStore)
        let periods = zip(completed.dropFirst(), completed).map { Double($0 - $1) / 1000 }
        kills.storePeriodMedianUs = periods.isEmpty ? .nan : BenchTiming(periods).median
        return kills
    }
}
