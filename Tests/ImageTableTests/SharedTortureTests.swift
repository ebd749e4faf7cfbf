import FICCore
import FICHarness
import FICTestSupport
import Foundation
import Glibc
import SystemPackage
@testable import ImageTable
import Testing

/// Several writer processes on one small table at once (so eviction never stops), resetting it
/// now and then, one dying in the middle of drawing, and reader processes holding images for
/// random whiles (one read-only), each killed with SIGKILL or stopped with SIGSTOP at random
/// moments and restarted, while this process reads all along. Every image read
/// is compared with the pattern its entity and source name (an independent reference), and an
/// image this process holds throughout must keep its pixels. Every wait is bounded: the time
/// limit, and the writers' own 10 s writer-lock timeout.
@Suite struct SharedTortureTests {
    typealias Writer = CrashRecoveryTests.Writer

    /// Looks up every entity of the writers' key space, holding what it finds, and checks each
    /// image's pixels against its pattern. Returns how many were found.
    static func readEverything(_ table: ImageTable, round: Int) -> Int {
        var found = 0
        // Eight held at a time, so that the writers always have slots to evict.
        for batch in stride(from: 0, to: 100, by: 8) {
            var held: [StoredImage] = []
            for e in batch..<min(batch + 8, 100) {
                guard let image = table.image(for: TableKey("entity-\(e)")) else { continue }
                #expect(TestPattern.matches(image), "round \(round): entity-\(e) returned pixels that differ from what was drawn")
                held.append(image)
            }
            // Checked again while held: no other process may have drawn over any of them meanwhile.
            for image in held { #expect(TestPattern.matches(image), "round \(round): a held image changed") }
            found += held.count
        }
        return found
    }

    /// What a killed process said that was not read yet, line by line.
    static func remainingLines(of process: Writer) async -> [String] {
        var lines: [String] = []
        while true {
            let line = await process.line()
            if line.isEmpty { return lines }
            lines.append(line)
        }
    }

    /// Whether process `pid` is stopped (state `T` in `/proc/PID/stat`).
    static func isStopped(_ pid: Int32) -> Bool {
        guard let stat = currentText(ofFile: "/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first.map { "tT".contains($0) } ?? false
    }

    /// Kills `writer` with SIGKILL while it holds the table's writer lock (in the middle of
    /// reserving or committing a slot): each time the kernel says some writer holds the lock,
    /// `writer` is stopped, and its own lock lines say whether it is the holder; if two hundred
    /// stops never find it so, it is killed wherever it is. Returns whether it died holding the lock.
    static func killHoldingTheWriterLock(_ writer: Writer, sideFile: FileDescriptor, path: String) async throws -> Bool {
        let pid = writer.child.pid
        let inode = UInt64(try sideFile.status(path: path).st_ino)
        for _ in 0..<200 {
            try await waitUntil("a writer holds the writer lock") {
                (try? sideFile.isRangeLockedByOthers(.exclusive, start: SharedWriterLock.byte, length: 1, path: path)) == true
                    || !writer.isRunning
            }
            Glibc.kill(pid, SIGSTOP)
            try await waitUntil("the writer is stopped") { isStopped(pid) || !writer.isRunning }
            if ProcessLocks.holdsWriteLock(pid: pid, inode: inode, byte: SharedWriterLock.byte) {
                writer.kill()
                return true
            }
            Glibc.kill(pid, SIGCONT)
        }
        writer.kill()
        return false
    }

    @Test(.timeLimit(.minutes(5)))
    func writersKilledStoppedAndRestartedNeverTearOrChangeWhatOthersRead() async throws {
        let dir = TemporaryDirectory("torture"); defer { dir.cleanup() }
        let path = dir.file("torture.fictable")
        let max = 24
        let table = try ImageTable(path: path, configuration: SelfTestTable.configuration(max: max))
        var rng = SystemRandomNumberGenerator()
        func start(_ seed: Int) async throws -> Writer {
            let resets = seed % 3 == 0 ? ["--reset-every", "400"] : []
            let dies = seed % 4 == 1 ? ["--die-mid-write-after", "\(Int.random(in: 50...500, using: &rng))"] : []
            let writer = try Writer(
                path, max: max, seed: seed, extra: ["--announce-after", "\(Int.random(in: 100...600, using: &rng))"] + resets + dies)
            #expect(await writer.line().hasPrefix("ready"), "writer \(seed) opened the table")
            return writer
        }
        var writers: [Writer] = []
        for seed in 1...3 { writers.append(try await start(seed)) }
        var seed = 3
        // Reader processes, one of them read-only, holding images for random whiles; each says
        // "wrong …" or "changed …" if a held image was ever not what was drawn for it.
        func startReader(_ seed: Int) async throws -> Writer {
            let reader = try Writer(
                path, max: max, seed: seed, extra: ["--reader", "--wait-seconds", "60"] + (seed % 2 == 0 ? ["--read-only"] : []))
            #expect(await reader.line().hasPrefix("ready"), "reader \(seed) opened the table")
            return reader
        }
        var readers: [Writer] = []
        for seed in [100, 101] { readers.append(try await startReader(seed)) }
        let side = try FileDescriptor.open(atPath: path + "-shared", .readOnly)
        defer { side.closeQuietly() }
        var killedInsideTheLock = 0
        var readerSeed = 101
        var readerLines: [String] = []
        /// The reader's next "checked" line, keeping every line it says.
        func nextCheck(_ reader: Writer) async -> String {
            while true {
                let line = await reader.line()
                if line.isEmpty { return line }
                readerLines.append(line)
                if line.hasPrefix("checked") { return line }
            }
        }
        // Held from the start to the end, through every eviction and reset of the others.
        _ = try table.insert(entity: TableKey("kept"), source: TableKey("kept-1")) { p in
            TestPattern.fill(
                p.baseAddress!, count: table.configuration.pixelByteCount,
                seed: TestPattern.seed(entity: TableKey("kept"), source: TableKey("kept-1")))
        }
        let kept = try #require(table.image(for: TableKey("kept")))
        var read = 0
        for round in 0..<8 {
            let victim = Int.random(in: 0..<writers.count, using: &rng)
            // Wait for its announcement (or its end, when it died drawing), then read everything.
            let said = await writers[victim].line()
            #expect(said.hasPrefix("stored") || said.hasPrefix("dying") || said.isEmpty, "round \(round): \(said)")
            read += Self.readEverything(table, round: round)
            // Another is stopped, wherever it is (perhaps holding the writer lock): lookups here go on.
            // So is a reader, perhaps holding images, while the writers evict: once it goes on, it
            // checks what it held through the stop.
            let stopped = (victim + 1) % writers.count
            let pausedReader = readers[round % readers.count]
            Glibc.kill(writers[stopped].child.pid, SIGSTOP)
            Glibc.kill(pausedReader.child.pid, SIGSTOP)
            read += Self.readEverything(table, round: round)
            Glibc.kill(writers[stopped].child.pid, SIGCONT)
            Glibc.kill(pausedReader.child.pid, SIGCONT)
            #expect(await nextCheck(pausedReader).hasPrefix("checked"), "round \(round): the stopped reader went on reading")
            // A reader is killed and replaced, whatever it holds.
            let killedReader = (round + 1) % readers.count
            readers[killedReader].kill()
            readerLines += await Self.remainingLines(of: readers[killedReader])
            readerSeed += 1
            readers[killedReader] = try await startReader(readerSeed)
            // The first is killed and replaced, in the middle of a store when it can be caught there.
            if try await Self.killHoldingTheWriterLock(writers[victim], sideFile: side, path: path + "-shared") { killedInsideTheLock += 1 }
            seed += 1
            writers[victim] = try await start(seed)
        }
        for writer in writers { writer.kill() }
        for reader in readers {
            reader.kill()
            readerLines += await Self.remainingLines(of: reader)
        }
        let bad = readerLines.filter { !$0.hasPrefix("checked") }
        let readerChecks = readerLines.filter { $0.hasPrefix("checked") }.count * 500
        #expect(bad.isEmpty, "reader processes saw images that were not what was drawn for them: \(bad.prefix(10))")
        read += Self.readEverything(table, round: 8)
        #expect(TestPattern.matches(kept), "the image held throughout kept its pixels")
        #expect(read > 0, "the writers stored something this process read")
        #expect(killedInsideTheLock > 0, "writers died holding the writer lock, and the others went on")
        // Alone again: the table still stores and serves.
        let key = TableKey("after"), source = TableKey("after-1")
        _ = try table.insert(entity: key, source: source) { p in
            TestPattern.fill(p.baseAddress!, count: table.configuration.pixelByteCount, seed: TestPattern.seed(entity: key, source: source))
        }
        #expect(TestPattern.matches(try #require(table.image(for: key))))
        table.close()
        let reopened = try ImageTable(path: path, configuration: SelfTestTable.configuration(max: max))
        #expect(Self.readEverything(reopened, round: 9) >= 0)
        print(
            "torture: \(read) images read and compared here, over \(readerChecks) by reader processes, \(seed) writers (\(killedInsideTheLock) of 8 killed holding the writer lock) and \(readerSeed - 98) readers started"
        )
    }
}
