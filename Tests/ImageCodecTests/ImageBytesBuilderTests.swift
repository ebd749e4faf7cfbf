import ImageCodec
import Testing

/// Bytes that arrive in pieces, gathered into memory of their own.
@Suite struct ImageBytesBuilderTests {
    private func pieces(_ total: Int, size: Int) -> [[UInt8]] {
        let all = (0..<total).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
        return stride(from: 0, to: total, by: size).map { Array(all[$0..<min(total, $0 + size)]) }
    }

    @Test func gathersThePiecesInOrder() throws {
        let chunks = pieces(3_000_000, size: 65_537)
        let builder = try ImageBytesBuilder()
        for chunk in chunks { try builder.append(chunk) }
        #expect(builder.count == 3_000_000)
        let bytes = try builder.finish()
        #expect(builder.count == 0, "finishing hands the bytes over")
        #expect(bytes.count == 3_000_000 && bytes.path == nil)
        bytes.withUnsafeBytes { #expect(Array($0) == chunks.flatMap { $0 }) }
    }

    @Test func anAnnouncedLengthIsOneBufferNeverGrown() throws {
        let chunks = pieces(5_000_000, size: 16_384)
        let probe = AllocationProbe()
        let bytes = try AllocationProbe.$current.withValue(probe) { () throws -> ImageBytes in
            let builder = try ImageBytesBuilder(expectedCount: 5_000_000)
            for chunk in chunks { try builder.append(chunk) }
            return try builder.finish()
        }
        #expect(probe.sizes == [5_000_000], "one buffer of the announced size: \(probe.sizes)")
        bytes.withUnsafeBytes { #expect(Array($0) == chunks.flatMap { $0 }) }
    }

    @Test func aShortAnnouncementGrowsAndNothingIsEmpty() throws {
        let builder = try ImageBytesBuilder(expectedCount: 1000)
        for chunk in pieces(300_000, size: 4096) { try builder.append(chunk) }
        let bytes = try builder.finish()
        bytes.withUnsafeBytes { #expect(Array($0) == pieces(300_000, size: 300_000)[0]) }
        let empty = try ImageBytesBuilder().finish()
        #expect(empty.count == 0)
        empty.withUnsafeBytes { #expect($0.isEmpty) }
    }
}
