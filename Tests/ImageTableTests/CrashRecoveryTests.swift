import FICHarness
import FICTestSupport
import Foundation
import Testing
@testable import ImageTable

/// Kills writing processes with SIGKILL at random moments — while they insert, evict, remove
/// and reset — then reopens their table and compares every image it returns with the pixels
/// drawn for it (a known function of the entry's keys). On the same boot nothing is checked,
/// so these tests prove the write protocol itself; after a simulated restart everything is.
@Suite struct CrashRecoveryTests {
    /// A running `fic-selftest-writer`, its output read a line at a time with a time limit.
    final class Writer {
        /// The process (killed when the writer goes).
        let child: ChildProcess
        private let output: LinePipe

        /// Starts a writer on `path`; it announces "ready …" once it holds the table.
        init(_ path: String, max: Int, seed: Int, extra: [String] = []) throws {
            let writer = try #require(
                BuiltExecutable.path("fic-selftest-writer"), "build the test harness first (swift build --build-tests builds it)")
            output = try LinePipe()
            child = try ChildProcess.start(writer, ["--table", path, "--max", "\(max)", "--seed", "\(seed)"] + extra, outputPipe: output)
        }

        /// The next line the writer prints, or "" once it has ended; a writer silent for ten
        /// minutes (a hang) fails the test. Waited for on a thread of its own, so that the wait
        /// holds none of the cooperative pool's threads (two on a 2-core machine), which the other
        /// tests' tasks and their servers' handlers need meanwhile (a torture test's blocking reads
        /// held one for minutes, and the HTTP tests beside it timed out waiting for their answers).
        func line(sourceLocation: SourceLocation = #_sourceLocation) async -> String {
            let output = self.output, name = child.name
            guard let line = await OwnThread.run({ output.line(timeout: .seconds(600)) }) else {
                Issue.record("\(name) printed nothing for ten minutes", sourceLocation: sourceLocation)
                return ""
            }
            return line
        }

        /// Kills the writer with SIGKILL and waits for it to end.
        func kill() {
            child.kill()
        }

        /// Whether it is still running (not yet reaped).
        var isRunning: Bool { child.ending() == nil }
    }

    /// Reads every entity of the writer's key space; returns how many were found, after checking
    /// that each holds exactly the pixels drawn for it and that every indexed entry was readable.
    static func checkEveryImage(_ table: ImageTable, round: Int, comment: String = "") -> Int {
        var found = 0
        for e in 0..<100 {
            guard let image = table.image(for: TableKey("entity-\(e)")) else { continue }
            #expect(TestPattern.matches(image), "round \(round)\(comment): entity-\(e) returned pixels that differ from what was drawn")
            found += 1
        }
        let indexed = table.entries().filter { $0.label.hasPrefix("entity-") }.count
        #expect(found == indexed, "round \(round)\(comment): every indexed entry is served")
        return found
    }

    @Test(.timeLimit(.minutes(3)))
    func killedWritersLeaveNoTornPixelsAndNothingToCheckOnTheSameBoot() async throws {
        let dir = TemporaryDirectory("crash"); defer { dir.cleanup() }
        let path = dir.file("crash.fictable")
        let max = 40
        var rng = SystemRandomNumberGenerator()
        var totalChecked = 0, interrupted = 0
        for round in 0..<10 {
            // Killed at a random point of its work (once it says it has stored a random number of
            // images, while it goes on writing), not of the clock. Odd rounds reset the table now
            // and then, so some kills land in or right after a reset.
            let stored = Int.random(in: 1...900, using: &rng)
            let writer = try Writer(
                path, max: max, seed: round + 1, extra: ["--announce-after", "\(stored)"] + (round % 2 == 1 ? ["--reset-every", "300"] : [])
            )
            #expect(await writer.line().hasPrefix("ready"), "the writer opened the table")
            #expect(await writer.line() == "stored \(stored)", "and stored images")
            writer.kill()
            #expect(writer.child.ending() == .signalled(SIGKILL))

            let table = try ImageTable(path: path, configuration: SelfTestTable.configuration(max: max))
            let report = table.openReport
            #expect(report.uncleanStop == .processStopped, "round \(round): \(report)")
            #expect(report.entriesToCheck == 0, "round \(round): a stop on the same boot costs no check: \(report)")
            #expect(report.droppedEntries == 0 && !report.lostImages, "round \(round): \(report)")
            interrupted += report.interruptedWrites
            totalChecked += Self.checkEveryImage(table, round: round)
            #expect(table.statistics.count <= max)
            // The table stays usable.
            let key = TableKey("after-\(round)"), source = TableKey("s")
            try table.insert(entity: key, source: source) { p in
                TestPattern.fill(
                    p.baseAddress!, count: table.configuration.pixelByteCount, seed: TestPattern.seed(entity: key, source: source))
            }
            #expect(TestPattern.matches(try #require(table.image(for: key))))
            table.close()
        }
        #expect(totalChecked > 0, "the writers stored something before being killed")
        print("killed writers: \(totalChecked) images compared, \(interrupted) interrupted writes dropped")
    }

    @Test(.timeLimit(.minutes(3)))
    func writersTakingOverAKilledWritersTableTrustItAndNeverServeTornPixels() async throws {
        let dir = TemporaryDirectory("takeover"); defer { dir.cleanup() }
        let path = dir.file("shared.fictable")
        let max = 24
        var rng = SystemRandomNumberGenerator()
        // Each writer opens the table while the one before it writes — joining it, or, should
        // that one already be dead, opening it alone after its stop — and goes on when that one
        // is killed: a chain of processes on the same boot. Each is killed once it says it has
        // stored a random number of images (while it goes on).
        var announced = Int.random(in: 1...900, using: &rng)
        var current = try Writer(path, max: max, seed: 100, extra: ["--reset-every", "500", "--announce-after", "\(announced)"])
        #expect(await current.line() == "ready stop=clean interrupted=0 check=0")
        for step in 1...6 {
            let nextAnnounced = Int.random(in: 1...900, using: &rng)
            let next = try Writer(
                path, max: max, seed: 100 + step,
                extra: ["--wait-seconds", "60", "--announce-after", "\(nextAnnounced)"] + (step % 2 == 0 ? ["--reset-every", "500"] : []))
            #expect(await current.line() == "stored \(announced)", "step \(step): the writer stored images")
            current.kill()
            let ready = await next.line()
            let joined = ready == "ready stop=clean interrupted=0 check=0"
            #expect(joined || ready.hasPrefix("ready stop=process-stopped"), "step \(step): \(ready)")
            #expect(ready.hasSuffix("check=0"), "step \(step): the next writer checks nothing: \(ready)")
            current = next
            announced = nextAnnounced
        }
        // The last one writes without resets and is killed once it has stored something.
        let last = try Writer(path, max: max, seed: 200, extra: ["--wait-seconds", "60", "--announce-after", "30"])
        current.kill()
        let lastReady = await last.line()
        #expect(lastReady == "ready stop=clean interrupted=0 check=0" || lastReady.hasPrefix("ready stop=process-stopped"), "\(lastReady)")
        #expect(await last.line() == "stored 30")
        last.kill()
        let table = try ImageTable(path: path, configuration: SelfTestTable.configuration(max: max))
        #expect(table.openReport.uncleanStop == .processStopped && table.openReport.entriesToCheck == 0, "\(table.openReport)")
        #expect(Self.checkEveryImage(table, round: 0) > 0)
    }

    @Test(.timeLimit(.minutes(2)), arguments: [false, true])
    func aWriterStoppedHalfWayThroughAnImageLeavesASlotEveryOpenerRecognises(restarted: Bool) async throws {
        let dir = TemporaryDirectory("midwrite"); defer { dir.cleanup() }
        let path = dir.file("t.fictable")
        // Four slots and 100 entities: the 31st insert overwrites the slot of an evicted entry.
        let writer = try Writer(path, max: 4, seed: 5, extra: ["--die-mid-write-after", "30"])
        #expect(await writer.line().hasPrefix("ready"))
        let dying = await writer.line()
        #expect(dying.hasPrefix("dying entity-"), "\(dying)")
        let ending = writer.child.wait(timeout: .seconds(600))
        #expect(ending == .signalled(SIGKILL), "the writer killed itself mid-write: \(ending)")
        if restarted { try simulateRestart(path) }

        let table = try ImageTable(path: path, configuration: SelfTestTable.configuration(max: 4))
        let report = table.openReport
        #expect(report.interruptedWrites == 1, "the half-drawn slot is recognised: \(report)")
        #expect(report.droppedEntries == 0, "\(report)")
        if restarted {
            #expect(report.uncleanStop == .pageCacheMayBeLost(reason: "the system has restarted since it was written"), "\(report)")
            #expect(report.entriesToCheck == table.statistics.count && report.entriesToCheck > 0, "\(report)")
        } else {
            #expect(report.uncleanStop == .processStopped, "\(report)")
            #expect(report.entriesToCheck == 0, "\(report)")
        }
        // The entity being drawn is not served half drawn; an older image of it may be, whole.
        #expect(Self.checkEveryImage(table, round: 0, comment: " (\(dying))") == table.statistics.count)
        #expect(table.statistics.count == 3, "the evicted entry went, the half-drawn one never arrived, three remain")
        table.close()
        // Dropped for good: the next open finds a clean table.
        let again = try ImageTable(path: path, configuration: SelfTestTable.configuration(max: 4))
        #expect(again.openReport == TableOpenReport(), "\(again.openReport)")
    }

    @Test(.timeLimit(.minutes(3)))
    func afterARestartEveryEntryIsCheckedAndTornPixelsAreRefused() async throws {
        let dir = TemporaryDirectory("restart"); defer { dir.cleanup() }
        let path = dir.file("t.fictable")
        let max = 40
        let writer = try Writer(path, max: max, seed: 9, extra: ["--announce-after", "100"])
        #expect(await writer.line().hasPrefix("ready"))
        #expect(await writer.line() == "stored 100")
        writer.kill()
        // What a power loss can do: the file says "open", the system has another boot, and
        // one entry's pixels reached the disk only in part.
        let c = SelfTestTable.configuration(max: max)
        let probe = try ImageTable(path: path, configuration: c, options: TableOpenOptions(readOnly: true))
        let victims = probe.entries().filter { $0.label.hasPrefix("entity-") }
        let torn = try #require(victims.first)
        probe.close()
        try simulateRestart(path)
        try patch(path, at: slotOffset(slot: torn.slot, c) + 100, [UInt8](repeating: 0x5A, count: 512))

        let table = try ImageTable(path: path, configuration: c)
        #expect(
            table.openReport.uncleanStop == .pageCacheMayBeLost(reason: "the system has restarted since it was written"),
            "\(table.openReport)")
        #expect(table.openReport.entriesToCheck == victims.count)
        #expect(table.image(for: torn.entity) == nil, "the torn entry is refused")
        #expect(Self.checkEveryImage(table, round: 0) == victims.count - 1)
        // Its process stops again before anything else is read: the marks survive on this boot.
        table.close()
        let reopened = try ImageTable(path: path, configuration: c)
        #expect(reopened.openReport.entriesToCheck == 0, "every entry was checked and its record says so: \(reopened.openReport)")
    }
}

extension CrashRecoveryTests {
    @Test func aHeldImageIsUnchangedWhileAnotherProcessRewritesTheTable() async throws {
        let dir = TemporaryDirectory("held"); defer { dir.cleanup() }
        let path = dir.file("shared.fictable")
        let c = SelfTestTable.configuration(max: 4)
        let table = try ImageTable(path: path, configuration: c)
        let key = TableKey("entity-held"), source = TableKey("mine")
        let held = try table.insert(entity: key, source: source) { p in
            TestPattern.fill(p.baseAddress!, count: c.pixelByteCount, seed: TestPattern.seed(entity: key, source: source))
        }
        table.close()
        // Another process takes the table and rewrites every slot many times over.
        let writer = try Writer(path, max: 4, seed: 7, extra: ["--announce-after", "200"])
        #expect(await writer.line().hasPrefix("ready"))
        #expect(await writer.line() == "stored 200", "the other process rewrote the four slots many times over")
        writer.kill()
        #expect(TestPattern.matches(held), "the image held across the other process's writes is unchanged")
        let reopened = try ImageTable(path: path, configuration: c)
        if let again = reopened.image(for: key) { #expect(TestPattern.matches(again)) }
        #expect(reopened.statistics.count > 0, "the other process did write")
        reopened.close()
    }
}
