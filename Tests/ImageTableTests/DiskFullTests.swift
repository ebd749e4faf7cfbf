import Foundation
import Testing
@testable import ImageTable

/// A table on a 256 KiB tmpfs: growing it fails with a clear error and loses nothing.
@Suite struct DiskFullTests {
    /// Whether this process may mount a tmpfs (root with CAP_SYS_ADMIN, as on the CI machines).
    static let canMountTmpfs: Bool = {
        guard getuid() == 0 else { return false }
        let probe = TemporaryDirectory("mount-probe"); defer { probe.cleanup() }
        guard mount("tmpfs", probe.path, "tmpfs", 0, "size=64k") == 0 else { return false }
        umount(probe.path)
        return true
    }()

    @Test(.enabled(if: canMountTmpfs, "mounting a small tmpfs needs root with CAP_SYS_ADMIN"))
    func aFullDiskIsReportedAndNothingIsLost() throws {
        let dir = TemporaryDirectory("full"); defer { dir.cleanup() }
        guard mount("tmpfs", dir.path, "tmpfs", 0, "size=256k") == 0 else {
            Issue.record("mount failed: errno \(errno)")
            return
        }
        defer { umount(dir.path) }
        let c = config(64, 64, max: 100, chunkBytes: 4 * 16384)  // 16 KiB slots, 4 per chunk
        let table = try ImageTable(path: dir.file("t.fictable"), configuration: c)
        var stored = 0
        var failure: ImageCacheError?
        for i in 0..<100 {
            do {
                try put(table, "e\(i)", seed: UInt64(i))
                stored += 1
            } catch let e as ImageCacheError {
                failure = e
                break
            }
        }
        #expect(failure?.code == .noSpace, "a full disk is reported as such: \(String(describing: failure))")
        #expect(failure?.errno == .noSpace)
        #expect(failure?.description.contains("disk is full") == true)
        #expect(stored >= 4 && stored < 100)
        #expect(table.statistics.count == stored)
        for i in 0..<stored { #expect(hasPattern(try #require(table.image(for: key("e\(i)"))), seed: UInt64(i))) }
        // Room made by removing an entry is reused without growing the file.
        #expect(table.remove(key("e0")))
        try put(table, "again", seed: 99)
        #expect(hasPattern(try #require(table.image(for: key("again"))), seed: 99))
        table.close()
        let reopened = try ImageTable(path: dir.file("t.fictable"), configuration: c)
        #expect(reopened.statistics.count == stored)
        reopened.close()
    }
}
