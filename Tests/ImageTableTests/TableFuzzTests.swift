import FICTestSupport
import Foundation
import Testing
@testable import ImageTable

/// Mutated table files — headers, index records, sizes, and pixels of a crashed session — for
/// `FIC_TABLE_FUZZ_SECONDS` (default 2; CI gives it more under Address Sanitizer). Opening, looking up,
/// verifying, repairing and inserting must never trap, and every image returned must hold
/// exactly the pixels drawn for it.
@Suite struct TableFuzzTests {
    static var seconds: Double { Double(ProcessInfo.processInfo.environment["FIC_TABLE_FUZZ_SECONDS"] ?? "") ?? 2 }
    static let c = config(24, 8, max: 12, chunkBytes: 4 * 4096)

    struct Rng {
        var x: UInt64
        mutating func next(_ n: Int) -> Int {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17
            return Int(truncatingIfNeeded: x >> 1) % max(n, 1)
        }
    }

    /// On a thread of its own: a loop of many seconds would hold a cooperative thread that the
    /// async tests running beside it need.
    @Test func mutatedTablesNeverTrapOrServeWrongPixels() async throws {
        try await OwnThread.running { try Self.mutateTables() }
    }

    static func mutateTables() throws {
        let dir = TemporaryDirectory("fuzz"); defer { dir.cleanup() }
        let template = dir.file("template.fictable")
        do {
            let table = try ImageTable(path: template, configuration: Self.c)
            for i in 0..<10 { try put(table, "e\(i)", seed: UInt64(i)) }
            table.close()
        }
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: template)))
        let layout = TableLayout(configuration: Self.c)
        let seed = ProcessInfo.processInfo.environment["FIC_FUZZ_SEED"].flatMap { UInt64($0) } ?? 0x9E37_79B9_7F4A_7C15
        var rng = Rng(x: seed | 1)
        let deadline = Date().addingTimeInterval(Self.seconds)
        var iterations = 0, rebuilt = 0, served = 0
        while Date() < deadline || iterations < 20 {
            iterations += 1
            var bytes = original
            var crashed = false
            var newSize: Int?
            for _ in 0..<(1 + rng.next(6)) {
                switch rng.next(6) {
                case 0:  // a header byte
                    bytes[rng.next(96)] = UInt8(truncatingIfNeeded: rng.next(256))
                case 1:  // a record byte, its checksum left as it is
                    let slot = rng.next(8)
                    bytes[layout.recordOffset(slot: slot) + rng.next(IndexRecord.length)] ^= UInt8(1 << rng.next(8))
                case 2:  // a record field rewritten and sealed, as a careful attacker would
                    let slot = rng.next(8), at = layout.recordOffset(slot: slot)
                    for i in 0..<(1 + rng.next(8)) {
                        bytes[at + (rng.next(IndexRecord.checksumOffset) + i) % IndexRecord.checksumOffset] = UInt8(
                            truncatingIfNeeded: rng.next(256))
                    }
                    bytes.withUnsafeMutableBytes { IndexRecord.seal($0.baseAddress! + at, slot: slot) }
                case 3:  // cut or grown (last, below)
                    newSize = rng.next(bytes.count + 20000)
                case 4:  // torn pixels left by a crash
                    let slot = rng.next(8), at = layout.slotOffset(slot: slot) + rng.next(Self.c.pixelByteCount)
                    bytes[at] ^= 0x5A
                    crashed = true
                default:  // last access, which no checksum covers
                    let at = layout.recordOffset(slot: rng.next(8)) + IndexRecord.lastAccessOffset
                    for i in 0..<8 { bytes[at + i] = UInt8(truncatingIfNeeded: rng.next(256)) }
                }
            }
            if crashed { bytes[TableHeader.openStateOffset] = 1 }
            if let size = newSize {
                if size < bytes.count {
                    bytes.removeLast(bytes.count - size)
                } else {
                    bytes += [UInt8](repeating: UInt8(truncatingIfNeeded: rng.next(256)), count: size - bytes.count)
                }
            }
            let path = dir.file("f\(iterations % 4).fictable")
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let table = try ImageTable(path: path, configuration: Self.c)
            if table.openReport.rebuildReason != nil { rebuilt += 1 }
            for i in 0..<10 {
                guard let image = table.image(for: key("e\(i)")) else { continue }
                served += 1
                #expect(hasPattern(image, seed: UInt64(i)), "iteration \(iterations): e\(i) served wrong pixels")
            }
            _ = table.verify(repair: rng.next(2) == 0)
            try put(table, "n", seed: 77)
            #expect(hasPattern(try #require(table.image(for: key("n"))), seed: 77))
            table.close()
        }
        print(
            "Fuzz tables (seed \(seed)): \(iterations) mutated files, \(rebuilt) rebuilt, \(served) images served, all with the right pixels"
        )
        #expect(served > 0 && rebuilt > 0, "the mutations reach both kept and rebuilt tables")
    }
}
