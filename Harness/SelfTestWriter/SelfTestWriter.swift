#if Tool
import ArgumentParser
import FICHarness
import Foundation
import ImageTable

/// The writer process the crash-recovery tests kill: it writes, replaces, removes and resets
/// entries of one table as fast as it can until it is killed (or, with --die-mid-write-after,
/// kills itself half way through drawing an image). With --reader it only reads and holds, as
/// the shared-table torture test's readers do. A program of the test harness that no product
/// ships.
@main
struct SelfTestWriter: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fic-selftest-writer",
        abstract: "Writes to a table until killed (used by the crash-recovery tests).")

    @Option(help: "The table file.") var table: String
    @Option(help: "Maximum count of the table.") var max: Int = 40
    @Option(help: "Seed of the sequence of operations.") var seed: UInt64 = 1
    @Option(help: "Empty the table (a reset) every N operations; 0 never.") var resetEvery: Int = 0
    @Option(help: "After N inserts, stop the process with SIGKILL half way through drawing the next image.") var dieMidWriteAfter: Int?
    @Option(help: "Wait up to this many seconds for another process to let go of the table.") var waitSeconds: Int = 0
    @Option(help: "Print \"stored N\" once N images have been stored.") var announceAfter: Int?
    @Option(help: "Only claim the storing of this entity, print \"claimed\", and hold the claim until killed.") var claim: String?
    @Flag(
        help:
            "Only read, until killed: hold up to four images at a time for a random while, checking each one's pixels when found and again before letting go (\"wrong …\" or \"changed …\" when they differ from what was drawn); print \"checked N\" every 500 images."
    ) var reader = false
    @Flag(help: "Open the table read-only.") var readOnly = false

    /// The process that started this one (as it was when ``run()`` began).
    static let parent = getppid()

    /// Ends this process once the one that started it has gone (a test that crashed or hung and
    /// was killed): nothing else would ever kill it.
    static func exitIfOrphaned() {
        if getppid() != parent { Glibc.exit(3) }
    }

    /// The reader's loop (see `--reader`); it never returns.
    func read(_ t: ImageTable, rng seed: UInt64) -> Never {
        var rng = seed
        func next() -> UInt64 {
            rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17
            return rng
        }
        func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
        var checked = 0
        while true {
            Self.exitIfOrphaned()
            var held: [(String, StoredImage)] = []
            for _ in 0..<(1 + next() % 4) {
                let name = "entity-\(next() % 100)"
                guard let image = t.image(for: TableKey(name)) else { continue }
                if !TestPattern.matches(image) { say("wrong \(name)") }
                held.append((name, image))
            }
            usleep(useconds_t(next() % 4000))
            for (name, image) in held where !TestPattern.matches(image) { say("changed \(name)") }
            for _ in held {
                checked += 1
                if checked % 500 == 0 { say("checked \(checked)") }
            }
        }
    }

    func run() throws {
        _ = Self.parent  // read now, while the parent is alive (a static is read on first use)
        let options = TableOpenOptions(readOnly: readOnly, lockTimeout: .seconds(waitSeconds))
        let t = try ImageTable(path: table, configuration: SelfTestTable.configuration(max: max), options: options)
        var rng = seed | 1
        var version = 0
        var inserts = 0
        var operations = 0
        // Announced once the table is open (and its lock held), with what opening found.
        let report = t.openReport
        let stop =
            switch report.uncleanStop {
            case nil: "clean"
            case .processStopped?: "process-stopped"
            case .pageCacheMayBeLost?: "page-cache-may-be-lost"
            }
        FileHandle.standardOutput.write(
            Data("ready stop=\(stop) interrupted=\(report.interruptedWrites) check=\(report.entriesToCheck)\n".utf8))
        if let claim {
            guard let held = t.claimStoring(TableKey(claim), timeout: .seconds(600)) else {
                throw ValidationError("could not claim \(claim)")
            }
            FileHandle.standardOutput.write(Data("claimed\n".utf8))
            withExtendedLifetime(held) {
                while true {
                    Self.exitIfOrphaned()
                    sleep(1)
                }
            }
        }
        if reader { read(t, rng: rng) }
        while true {
            rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17
            operations += 1
            if operations % 64 == 0 { Self.exitIfOrphaned() }
            if resetEvery > 0 && operations % resetEvery == 0 {
                try t.removeAll()
                continue
            }
            let entity = TableKey("entity-\(rng % 100)")
            if rng % 10 == 0 {
                t.remove(entity)
                continue
            }
            version += 1
            let source = TableKey("version-\(seed)-\(version)")
            let count = t.configuration.pixelByteCount
            let dies = inserts == dieMidWriteAfter
            try t.insert(entity: entity, source: source, label: "entity-\(rng % 100)") { p in
                TestPattern.fill(p.baseAddress!, count: dies ? count / 2 : count, seed: TestPattern.seed(entity: entity, source: source))
                if dies {
                    FileHandle.standardOutput.write(Data("dying entity-\(rng % 100)\n".utf8))
                    kill(getpid(), SIGKILL)
                }
            }
            inserts += 1
            if inserts == announceAfter {
                FileHandle.standardOutput.write(Data("stored \(inserts)\n".utf8))
            }
        }
    }
}
#endif
