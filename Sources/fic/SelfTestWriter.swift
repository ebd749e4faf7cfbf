import ArgumentParser
import Foundation
import ImageTable

/// A hidden subcommand used by the crash-recovery tests: it writes, replaces and removes
/// entries of one table as fast as it can until it is killed.
struct SelfTestWriter: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "selftest-writer",
        abstract: "Writes to a table until killed (used by the crash-recovery tests).",
        shouldDisplay: false)

    @Option(help: "The table file.") var table: String
    @Option(help: "Maximum count of the table.") var max: Int = 40
    @Option(help: "Seed of the sequence of operations.") var seed: UInt64 = 1

    func run() throws {
        let t = try ImageTable(path: table, configuration: Self.configuration(max: max))
        var rng = seed | 1
        var version = 0
        var announced = false
        while true {
            rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17
            let entity = TableKey("entity-\(rng % 100)")
            if rng % 10 == 0 {
                t.remove(entity)
                continue
            }
            version += 1
            let source = TableKey("version-\(version)")
            let count = t.configuration.pixelByteCount
            try t.insert(entity: entity, source: source, label: "entity-\(rng % 100)") { p in
                TestPattern.fill(p.baseAddress!, count: count, seed: TestPattern.seed(entity: entity, source: source))
            }
            if !announced {
                FileHandle.standardOutput.write(Data("ready\n".utf8))
                announced = true
            }
        }
    }

    /// The table geometry the writer and the tests share.
    static func configuration(max: Int) -> TableConfiguration {
        TableConfiguration(pixelWidth: 96, pixelHeight: 64, bytesPerPixel: 4, maximumCount: max, identity: "selftest-writer", chunkBytes: 64 << 10)
    }
}
