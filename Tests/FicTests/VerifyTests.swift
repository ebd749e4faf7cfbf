import Foundation
import Testing

@Suite("verify")
struct VerifyTests {
    @Test("verify passes on an intact cache, then names a corrupted entry and exits 1")
    func verifyCatchesCorruption() throws {
        let folder = try TemporaryFolder()
        // Two files, ingested one at a time in name order (--jobs 1: parallel decodes store in the
        // order they finish): a-first.jpg takes slot 0.
        try folder.copyTestdata("photos/chelsea.jpg", into: "source", as: "a-first.jpg")
        try folder.copyTestdata("photos/coffee.jpg", into: "source", as: "b-second.jpg")
        let cache = folder.path("cache")
        // 8×8 px BGRA: rows of 64 bytes (32 rounded up to 64), 512 bytes of pixels, one 4096-byte slot.
        let ingest = try Fic.run(["ingest", folder.path("source"), "--cache", cache, "--format", "tiny:8x8:bgra:max=16", "--jobs", "1"])
        #expect(ingest.status == 0, "\(ingest.stderr)")

        let intact = try Fic.run(["verify", "--cache", cache])
        #expect(intact.status == 0, "\(intact.stdout)\(intact.stderr)")
        #expect(intact.stdout.contains("verified 2 entries"))
        #expect(intact.stdout.contains("all intact"))

        // Header page (4096) + 16 index records × 128 bytes rounded up to 4096 = slot 0 at 8192.
        let table = cache + "/default/tiny.fictable"
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: table))
        let offset: UInt64 = 4096 + 4096 + 100
        try handle.seek(toOffset: offset)
        let original = try #require(try handle.read(upToCount: 1)).first!
        try handle.seek(toOffset: offset)
        try handle.write(contentsOf: [original ^ 0xFF])
        try handle.close()

        let damaged = try Fic.run(["verify", "--cache", cache])
        #expect(damaged.status == 1)
        #expect(damaged.stdout.contains("damaged: a-first.jpg in format tiny"), "\(damaged.stdout)")
        #expect(!damaged.stdout.contains("b-second.jpg"))
        #expect(damaged.stdout.contains("1 damaged"))
        #expect(damaged.stderr.hasPrefix("fic: ") && damaged.stderr.contains("--repair"))

        let repaired = try Fic.run(["verify", "--cache", cache, "--repair"])
        #expect(repaired.status == 1)
        let after = try Fic.run(["verify", "--cache", cache])
        #expect(after.status == 0, "\(after.stdout)")
        #expect(after.stdout.contains("verified 1 entries"))
    }
}
