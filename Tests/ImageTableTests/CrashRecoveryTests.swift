import Foundation
import Testing
@testable import ImageTable

/// Kills a writing process with SIGKILL at random moments, then reopens its table and checks
/// that every image it returns holds exactly the pixels drawn for it.
@Suite struct CrashRecoveryTests {
    /// The `fic` executable, built next to the test bundle.
    static var fic: String? {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = dir.appendingPathComponent("fic").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return nil
    }

    @Test func killedWritersNeverLeaveWrongPixels() throws {
        let fic = try #require(Self.fic, "build the fic executable first (swift build --build-tests builds it)")
        let dir = TemporaryDirectory("crash"); defer { dir.cleanup() }
        let path = dir.file("crash.fictable")
        let max = 40
        var rng = SystemRandomNumberGenerator()
        var totalChecked = 0
        for round in 0..<6 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: fic)
            process.arguments = ["selftest-writer", "--table", path, "--max", "\(max)", "--seed", "\(round + 1)"]
            let out = Pipe()
            process.standardOutput = out
            try process.run()
            let ready = out.fileHandleForReading.availableData
            #expect(String(decoding: ready, as: UTF8.self).contains("ready"), "the writer started writing")
            usleep(UInt32.random(in: 20_000...150_000, using: &rng))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal)

            let table = try ImageTable(path: path, configuration: SelfTestWriterConfiguration.configuration(max: max))
            var found = 0
            for e in 0..<100 {
                guard let image = table.image(for: TableKey("entity-\(e)")) else { continue }
                #expect(TestPattern.matches(image), "round \(round): entity-\(e) returned pixels that differ from what was drawn")
                found += 1
            }
            #expect(table.statistics.count <= max)
            // The writer's entities, that is: the previous round's "after" entry may have survived a short run.
            let indexed = table.entries().filter { $0.label.hasPrefix("entity-") }.count
            #expect(found == indexed, "every indexed entry is readable and verified")
            // The table stays usable.
            let key = TableKey("after-\(round)"), source = TableKey("s")
            try table.insert(entity: key, source: source) { p in
                TestPattern.fill(p.baseAddress!, count: table.configuration.pixelByteCount, seed: TestPattern.seed(entity: key, source: source))
            }
            #expect(TestPattern.matches(try #require(table.image(for: key))))
            table.close()
            totalChecked += found
        }
        #expect(totalChecked > 0, "the writers stored something before being killed")
    }
}

extension CrashRecoveryTests {
    @Test func aHeldImageIsUnchangedWhileAnotherProcessRewritesTheTable() throws {
        let fic = try #require(Self.fic, "build the fic executable first (swift build --build-tests builds it)")
        let dir = TemporaryDirectory("held"); defer { dir.cleanup() }
        let path = dir.file("shared.fictable")
        let c = SelfTestWriterConfiguration.configuration(max: 4)
        let table = try ImageTable(path: path, configuration: c)
        let key = TableKey("entity-held"), source = TableKey("mine")
        let held = try table.insert(entity: key, source: source) { p in
            TestPattern.fill(p.baseAddress!, count: c.pixelByteCount, seed: TestPattern.seed(entity: key, source: source))
        }
        table.close()
        // Another process takes the table and rewrites every slot many times over.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: fic)
        process.arguments = ["selftest-writer", "--table", path, "--max", "4", "--seed", "7"]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        #expect(String(decoding: out.fileHandleForReading.availableData, as: UTF8.self).contains("ready"))
        usleep(300_000)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(TestPattern.matches(held), "the image held across the other process's writes is unchanged")
        let reopened = try ImageTable(path: path, configuration: c)
        if let again = reopened.image(for: key) { #expect(TestPattern.matches(again)) }
        #expect(reopened.statistics.count > 0, "the other process did write")
        reopened.close()
    }
}

/// The geometry `fic selftest-writer` uses (kept in step with Sources/fic/SelfTestWriter.swift).
enum SelfTestWriterConfiguration {
    static func configuration(max: Int) -> TableConfiguration {
        TableConfiguration(pixelWidth: 96, pixelHeight: 64, bytesPerPixel: 4, maximumCount: max, identity: "selftest-writer", chunkBytes: 64 << 10)
    }
}
