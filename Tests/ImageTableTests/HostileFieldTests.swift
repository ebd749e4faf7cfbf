import Foundation
import Testing
@testable import ImageTable

/// Every field of the header and of an index record set to 0, all ones and random, with and
/// without a matching checksum: opening, looking up, verifying, repairing and inserting never
/// trap, and every image returned holds exactly the pixels drawn for it.
@Suite struct HostileFieldTests {
    static let c = config(24, 8, max: 12, chunkBytes: 4 * 4096)
    static let headerFields: [(offset: Int, width: Int)] = [
        (0, 8), (8, 4), (12, 4), (16, 4), (20, 4), (24, 4), (28, 4), (32, 8), (40, 8), (48, 8), (56, 8), (64, 8), (72, 4), (76, 4), (80, 8),
        (88, 4),
        (92, 4), (96, 8), (104, 8), (112, 8), (120, 8)  // the open state's session: boot, device, inode
    ]
    static let recordFields: [(offset: Int, width: Int)] = [
        (0, 8), (8, 8), (16, 8), (24, 8), (32, 8), (40, 8), (48, 4), (52, 1), (53, 8), (104, 8), (112, 8), (120, 8)
    ]

    enum Value: CaseIterable { case zero, ones, random }

    static func bytes(_ value: Value, width: Int, seed: UInt64) -> [UInt8] {
        switch value {
        case .zero: return [UInt8](repeating: 0, count: width)
        case .ones: return [UInt8](repeating: 0xFF, count: width)
        case .random:
            var x = seed | 1
            return (0..<width).map { _ in
                x ^= x << 13; x ^= x >> 7; x ^= x << 17; return UInt8(truncatingIfNeeded: x)
            }
        }
    }

    /// A closed table of six entries.
    static func makeTable(_ path: String) throws {
        let table = try ImageTable(path: path, configuration: c)
        for i in 0..<6 { try put(table, "e\(i)", seed: UInt64(i)) }
        table.close()
    }

    /// Opens the damaged table and uses it every way there is; returns the report.
    @discardableResult
    static func exercise(_ path: String) throws -> TableOpenReport {
        let table = try ImageTable(path: path, configuration: c)
        for i in 0..<6 {
            if let image = table.image(for: key("e\(i)")) { #expect(hasPattern(image, seed: UInt64(i)), "e\(i) returned wrong pixels") }
        }
        _ = table.verify(repair: false)
        _ = table.entries()
        _ = table.statistics
        _ = table.verify(repair: true)
        try put(table, "new", seed: 99)
        #expect(hasPattern(try #require(table.image(for: key("new"))), seed: 99))
        let report = table.openReport
        table.close()
        let again = try ImageTable(path: path, configuration: c)
        for i in 0..<6 {
            if let image = again.image(for: key("e\(i)")) { #expect(hasPattern(image, seed: UInt64(i))) }
        }
        again.close()
        return report
    }

    @Test(arguments: Value.allCases, [false, true])
    func headerFields(value: Value, sealed: Bool) throws {
        for (n, field) in Self.headerFields.enumerated() {
            let dir = TemporaryDirectory("fields"); defer { dir.cleanup() }
            let path = dir.file("t.fictable")
            try Self.makeTable(path)
            var page = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)).prefix(TableHeader.readLength))
            page.replaceSubrange(
                field.offset..<(field.offset + field.width), with: Self.bytes(value, width: field.width, seed: UInt64(n + 1)))
            if sealed && field.offset != 80 {
                let sum = page.withUnsafeBytes { TableHeader.checksum($0) }
                withUnsafeBytes(of: sum.littleEndian) { page.replaceSubrange(80..<88, with: $0) }
            }
            try patch(path, at: 0, page)
            try Self.exercise(path)
        }
    }

    @Test(arguments: Value.allCases, [false, true])
    func recordFields(value: Value, sealed: Bool) throws {
        let layout = TableLayout(configuration: Self.c)
        for (n, field) in Self.recordFields.enumerated() {
            let dir = TemporaryDirectory("fields"); defer { dir.cleanup() }
            let path = dir.file("t.fictable")
            try Self.makeTable(path)
            for slot in [0, 3, 5] {
                let offset = layout.recordOffset(slot: slot)
                var record = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))[offset..<(offset + IndexRecord.length)])
                record.replaceSubrange(
                    field.offset..<(field.offset + field.width), with: Self.bytes(value, width: field.width, seed: UInt64(n * 7 + slot + 1))
                )
                if sealed && field.offset < IndexRecord.checksumOffset {
                    record.withUnsafeMutableBytes { IndexRecord.seal($0.baseAddress!, slot: slot) }
                }
                try patch(path, at: offset, record)
            }
            try Self.exercise(path)
        }
    }

    @Test func sizesCutAndGrownAnywhere() throws {
        let layout = TableLayout(configuration: Self.c)
        let full = layout.chunkOffset(2)
        for size in [
            0, 1, 100, 4095, 4096, 4097, 5000, 8191, 8192, 8193, layout.slotOffset(slot: 2) + 1, full - 1, full, full + 1, full + 1 << 20
        ] {
            let dir = TemporaryDirectory("sizes"); defer { dir.cleanup() }
            let path = dir.file("t.fictable")
            try Self.makeTable(path)
            let handle = try #require(FileHandle(forUpdatingAtPath: path))
            try handle.truncate(atOffset: UInt64(size))
            try handle.close()
            try Self.exercise(path)
        }
    }
}
