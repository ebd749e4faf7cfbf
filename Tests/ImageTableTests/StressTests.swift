import FICHarness
import Foundation
import Testing
@testable import ImageTable

/// Readers, writers, deletes and resets on one table at once, for `FIC_STRESS_SECONDS`
/// (default 2). Run under Thread Sanitizer in CI.
@Suite struct Stress {
    static var seconds: Double { Double(ProcessInfo.processInfo.environment["FIC_STRESS_SECONDS"] ?? "") ?? 2 }

    @Test func concurrentReadersWritersDeletesAndResets() throws {
        let dir = TemporaryDirectory("stress"); defer { dir.cleanup() }
        let table = try ImageTable(path: dir.file("s.fictable"), configuration: config(32, 32, max: 24, chunkBytes: 16 << 10))
        let deadline = Date().addingTimeInterval(Self.seconds)
        let counts = Counts()
        let group = DispatchGroup()
        for worker in 0..<6 {
            group.enter()
            Thread {
                defer { group.leave() }
                var rng = UInt64(worker + 1) &* 0x9E37_79B9_7F4A_7C15
                var held: [StoredImage] = []
                while Date() < deadline {
                    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17
                    let entity = TableKey("e\(rng % 40)")
                    switch (worker, rng % 100) {
                    case (0...2, _):
                        // Readers: check pixels, sometimes hold images across other threads' work.
                        if let image = table.image(for: entity) {
                            if !TestPattern.matches(image) { counts.add(bad: 1) }
                            counts.add(reads: 1)
                            if rng % 7 == 0 { held.append(image) }
                        }
                        if held.count > 6 { held.removeFirst(3) }
                        for image in held where !TestPattern.matches(image) { counts.add(bad: 1) }
                    case (_, 0):
                        if worker == 5 { try? table.removeAll(); counts.add(resets: 1) }
                    case (_, 1...10):
                        table.remove(entity)
                    default:
                        let source = TableKey("v\(rng % 1000)")
                        do {
                            let image = try table.insert(entity: entity, source: source) { p in
                                TestPattern.fill(
                                    p.baseAddress!, count: table.configuration.pixelByteCount,
                                    seed: TestPattern.seed(entity: entity, source: source))
                            }
                            if !TestPattern.matches(image) { counts.add(bad: 1) }
                            counts.add(writes: 1)
                        } catch let e as ImageCacheError where e.code == .tableFull {
                            counts.add(full: 1)
                        } catch {
                            counts.add(bad: 1, note: "\(error)")
                        }
                    }
                }
                for image in held where !TestPattern.matches(image) { counts.add(bad: 1) }
            }.start()
        }
        group.wait()
        let c = counts.snapshot
        #expect(c.bad == 0, "wrong pixels or unexpected errors: \(c)")
        #expect(c.reads > 0 && c.writes > 0, "\(c)")
        #expect(table.statistics.count <= 24)
        table.close()
        let reopened = try ImageTable(path: dir.file("s.fictable"), configuration: config(32, 32, max: 24, chunkBytes: 16 << 10))
        for e in 0..<40 {
            if let image = reopened.image(for: TableKey("e\(e)")) { #expect(TestPattern.matches(image)) }
        }
    }
}

final class Counts: Sendable {
    struct Snapshot: CustomStringConvertible {
        var reads = 0, writes = 0, resets = 0, full = 0, bad = 0
        var notes: [String] = []
        var description: String { "reads \(reads), writes \(writes), resets \(resets), table full \(full), bad \(bad) \(notes.prefix(3))" }
    }
    private let value = LockedBox(Snapshot())
    func add(reads: Int = 0, writes: Int = 0, resets: Int = 0, full: Int = 0, bad: Int = 0, note: String? = nil) {
        value.withLockedValue { value in
            if let note { value.notes.append(note) }
            value.reads += reads; value.writes += writes; value.resets += resets; value.full += full; value.bad += bad
        }
    }
    var snapshot: Snapshot { value.withLockedValue { $0 } }
}
