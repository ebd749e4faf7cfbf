import Testing
@testable import ImageTable

/// The side file's layout against offsets worked out by hand for two geometries.
@Suite struct SharedStateLayoutTests {
    /// 4 KiB pages, 10 slots per chunk, 25 slots: 3 chunks (10, 10, 5).
    /// control 4096; holders 8192 + 128·64 = 16384 → cells 16384; cells per chunk roundUp(640) = 4096;
    /// index 16384 + 3·4096 = 28672; buckets nextPow2(50) = 64, 512 bytes → regions of 4096.
    @Test func smallPagesAndAPartialLastChunk() throws {
        let l = try SharedStateLayout(pageSize: 4096, slotsPerChunk: 10, maximumCount: 25)
        #expect(l.maximumChunks == 3)
        #expect(l.controlOffset == 4096)
        #expect(l.holderTableOffset == 8192)
        #expect(l.cellsOffset == 16384)
        #expect(l.cellChunkLength == 4096)
        #expect(l.indexOffset == 28672)
        #expect(l.maximumBuckets == 64)
        #expect(l.maximumBucketsLog2 == 6)
        #expect(l.indexRegionLength == 4096)
        #expect(l.maximumLength == 36864)

        #expect(l.controlOffset(.journal) == 4096)
        #expect(l.controlOffset(.allocatedChunks) == 4160)
        #expect(l.controlOffset(.indexDescriptor) == 4224)
        #expect(l.controlOffset(.clock) == 4288)
        #expect(l.controlOffset(.nextCommitSequence) == 4352)
        #expect(l.controlOffset(.resetEpoch) == 4416)
        #expect(l.controlOffset(.entryCounts) == 4480)
        #expect(l.controlOffset(.evictionHand) == 4544)
        #expect(l.controlOffset(.freeListHead) == 4608)
        #expect(l.holderOffset(0) == 8192)
        #expect(l.holderOffset(127) == 16320)

        #expect(l.cellOffset(slot: 0) == 16384)
        #expect(l.cellOffset(slot: 9) == 16960)
        #expect(l.cellOffset(slot: 10) == 20480)
        #expect(l.cellOffset(slot: 23) == 24768)
        #expect(l.cellOffset(slot: 24) == 24832)
        #expect(l.cellChunkOffset(2) == 24576)

        #expect(l.regionOffset(0) == 28672)
        #expect(l.regionOffset(1) == 32768)
        #expect(l.bucketOffset(region: 0, bucket: 63) == 29176)
        #expect(l.bucketOffset(region: 1, bucket: 5) == 32808)

        #expect(l.slotCount(chunks: 0) == 0)
        #expect(l.slotCount(chunks: 2) == 20)
        #expect(l.slotCount(chunks: 3) == 25)
        #expect(l.backedRanges(chunks: 2, region: 0, buckets: 16) == [0..<24576, 28672..<32768])
        #expect(l.fileLength(chunks: 2, region: 0, buckets: 16) == 32768)
        #expect(l.backedRanges(chunks: 1, region: 1, buckets: 64) == [0..<20480, 32768..<36864])
        #expect(l.fileLength(chunks: 3, region: 1, buckets: 64) == 36864)
    }

    /// 16 KiB pages, 300 slots per chunk, 1000 slots: 4 chunks (300, 300, 300, 100).
    /// holders end at 32768 + 8192 = 40960 → cells 49152; cells per chunk roundUp(19200) = 32768;
    /// index 49152 + 4·32768 = 180224; buckets nextPow2(2000) = 2048, 16384 bytes: one page each.
    @Test func largePagesAndSeveralPagesOfCellsPerChunk() throws {
        let l = try SharedStateLayout(pageSize: 16384, slotsPerChunk: 300, maximumCount: 1000)
        #expect(l.maximumChunks == 4)
        #expect(l.controlOffset == 16384)
        #expect(l.holderTableOffset == 32768)
        #expect(l.cellsOffset == 49152)
        #expect(l.cellChunkLength == 32768)
        #expect(l.indexOffset == 180224)
        #expect(l.maximumBuckets == 2048)
        #expect(l.maximumBucketsLog2 == 11)
        #expect(l.indexRegionLength == 16384)
        #expect(l.maximumLength == 212992)
        #expect(l.controlOffset(.freeListHead) == 16896)
        #expect(l.cellOffset(slot: 299) == 68288)
        #expect(l.cellOffset(slot: 300) == 81920)
        #expect(l.cellOffset(slot: 999) == 153792)
        #expect(l.bucketOffset(region: 1, bucket: 2047) == 212984)
        #expect(l.slotCount(chunks: 3) == 900)
        #expect(l.slotCount(chunks: 4) == 1000)
        // Two buckets still take a page; the cells of 4 chunks end at 180224, before the index.
        #expect(l.fileLength(chunks: 4, region: 0, buckets: 2) == 196608)
        #expect(l.backedRanges(chunks: 0, region: 0, buckets: 2048) == [0..<49152, 180224..<196608])
    }

    @Test func aTableLayoutGivesItsGeometry() throws {
        // 24×8 px × 4 bytes: rows of 128 bytes, 1024 bytes, a 4096-byte slot; 16 KiB chunks hold 4.
        let table = TableLayout(
            configuration: TableConfiguration(
                pixelWidth: 24, pixelHeight: 8, bytesPerPixel: 4, maximumCount: 12,
                identity: "t", chunkBytes: 4 * 4096, pageSize: 8192))
        let l = try SharedStateLayout(table: table)
        #expect(l.pageSize == 8192)
        #expect(l.slotsPerChunk == 2)  // 8 KiB slots (rounded to the page), 16 KiB chunks
        #expect(l.maximumCount == 12)
        #expect(l.maximumChunks == 6)
        #expect(l.maximumBuckets == 32)
    }

    @Test func theLargestTableFits() throws {
        let l = try SharedStateLayout(pageSize: 4096, slotsPerChunk: 1, maximumCount: 1 << 24)
        #expect(l.maximumChunks == 1 << 24)
        #expect(l.maximumBuckets == 1 << 25)
        #expect(l.maximumBucketsLog2 == 25)
        #expect(l.indexOffset == 16384 + (1 << 24) * 4096)
        #expect(l.maximumLength == 16384 + (1 << 24) * 4096 + 2 * (1 << 28))
        #expect(l.cellOffset(slot: (1 << 24) - 1) == 16384 + ((1 << 24) - 1) * 4096)
        let big = try SharedStateLayout(pageSize: 1 << 30, slotsPerChunk: 1, maximumCount: 1 << 24)
        #expect(big.maximumLength == 3 * (1 << 30) + (1 << 24) * (1 << 30) + 2 * (1 << 30))
    }

    @Test(arguments: [
        (4096, 1, 0), (4096, 1, (1 << 24) + 1), (4096, 0, 10), (4096, 11, 10), (4096, -1, 10),
        (2048, 1, 10), (6144, 1, 10), (1 << 31, 1, 10), (0, 1, 10), (-4096, 1, 10)
    ])
    func geometriesBeyondTheLimitsAreRefused(pageSize: Int, slotsPerChunk: Int, maximumCount: Int) {
        let error = #expect(throws: ImageCacheError.self) {
            try SharedStateLayout(pageSize: pageSize, slotsPerChunk: slotsPerChunk, maximumCount: maximumCount)
        }
        #expect(error?.code == .invalidConfiguration)
    }
}
