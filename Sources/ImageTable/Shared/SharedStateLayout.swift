/// Where everything lives in a table's side file, `NAME.fictable-shared`: the coordination state
/// that several processes sharing the table read and write (the shared index, the slot words,
/// the hold masks, the recency stamps, the holder table). Pure arithmetic from the table's
/// geometry; nothing here touches a file.
///
/// ```
/// 0                                   header (one page): identity, geometry, binding to the table
/// P                                   control page: one 64-byte line per field (SharedControlField)
/// 2P                                  holder table: 128 entries of 64 bytes
/// cells = roundUp(2P + 8192, P)       cells of table chunk k at cells + k·cellChunkLength,
///                                     cellChunkLength = roundUp(slotsPerChunk·64, P): one line per slot
/// index = cells + maxChunks·cellChunkLength
///                                     index region 0, then region 1, each indexRegionLength =
///                                     roundUp(nextPow2(2·maximumCount)·8, P) bytes
/// ```
/// The cells grow with the table, chunk by chunk. The two index regions sit after the cells of
/// the largest table, so the file is sparse: only the cells of allocated chunks and the active
/// region's buckets are ever backed (see ``backedRanges(chunks:region:buckets:)``).
///
/// Every product is computed with overflow checks once, here, at creation; per-slot and
/// per-bucket offsets then stay below ``maximumLength`` for every argument in range.
package struct SharedStateLayout: Equatable, Sendable {
    /// Bytes of one cell (one cache line, so that no two slots share one).
    static let cellLength = 64
    /// Entries of the holder table (``HolderTable/capacity``).
    static let holderCapacity = HolderTable.capacity
    /// Bytes of one holder entry (``HolderTable/entryLength``).
    static let holderEntryLength = HolderTable.entryLength
    /// Bytes of one control line.
    static let controlLineLength = 64
    /// Bytes of one index bucket.
    static let bucketLength = 8
    /// The most slots a table may have: a bucket stores slot + 1 in 25 bits, and keeps it ≤ 2^24.
    static let maximumSlots = 1 << 24
    /// The smallest page size: the header and the control page each fit in one.
    static let minimumPageSize = 4096
    /// The largest page size (the header stores it in 32 bits).
    static let maximumPageSize = 1 << 30

    /// The table's page size P: every region starts on a page.
    let pageSize: Int
    /// Slots of one table chunk.
    let slotsPerChunk: Int
    /// The most slots the table has.
    let maximumCount: Int
    /// How many chunks the table has at most.
    let maximumChunks: Int
    /// Where the control page starts.
    let controlOffset: Int
    /// Where the holder table starts.
    package let holderTableOffset: Int
    /// Where the cells of chunk 0 start.
    let cellsOffset: Int
    /// Bytes between the cells of one chunk and the next (page-aligned).
    let cellChunkLength: Int
    /// Where index region 0 starts.
    let indexOffset: Int
    /// The most buckets an index has: the next power of two ≥ 2 · maximum count, so the load
    /// stays at one half or less.
    let maximumBuckets: Int
    /// log2 of ``maximumBuckets``.
    let maximumBucketsLog2: Int
    /// Bytes between index region 0 and region 1 (page-aligned).
    let indexRegionLength: Int
    /// Bytes of the whole file when both index regions are full.
    let maximumLength: Int

    /// The side-file layout of a table laid out as `table`.
    ///
    /// - Throws: ``ImageCacheError`` with code `.invalidConfiguration` when the geometry is outside
    ///   what the side file can describe.
    init(table: TableLayout) throws(ImageCacheError) {
        try self.init(pageSize: table.pageSize, slotsPerChunk: table.slotsPerChunk, maximumCount: table.maximumCount)
    }

    /// The side-file layout of a table of `maximumCount` slots in chunks of `slotsPerChunk`,
    /// laid out for `pageSize`.
    ///
    /// - Throws: ``ImageCacheError`` with code `.invalidConfiguration` when the page size is not a
    ///   power of two in 4 KiB…1 GiB, the count is not in 1…2^24, the chunk is not in 1…count, or
    ///   an offset would not fit in an `Int`.
    package init(pageSize: Int, slotsPerChunk: Int, maximumCount: Int) throws(ImageCacheError) {
        func invalid(_ why: String) -> ImageCacheError { ImageCacheError(.invalidConfiguration, "shared state: \(why)") }
        guard pageSize >= Self.minimumPageSize, pageSize <= Self.maximumPageSize, pageSize & (pageSize - 1) == 0 else {
            throw invalid("page size \(pageSize) is not a power of two between \(Self.minimumPageSize) and \(Self.maximumPageSize)")
        }
        guard (1...Self.maximumSlots).contains(maximumCount) else {
            throw invalid("maximum count \(maximumCount) is not between 1 and \(Self.maximumSlots)")
        }
        guard (1...maximumCount).contains(slotsPerChunk) else {
            throw invalid("\(slotsPerChunk) slots per chunk is not between 1 and the maximum count \(maximumCount)")
        }
        /// `a · b`, or nil when it overflows.
        func times(_ a: Int, _ b: Int) -> Int? {
            let (p, o) = a.multipliedReportingOverflow(by: b)
            return o ? nil : p
        }
        /// `a + b`, or nil when it overflows.
        func plus(_ a: Int, _ b: Int) -> Int? {
            let (s, o) = a.addingReportingOverflow(b)
            return o ? nil : s
        }
        /// `v` rounded up to a page, or nil when it overflows.
        func pageRounded(_ v: Int) -> Int? {
            guard let s = plus(v, pageSize - 1) else { return nil }
            return s & ~(pageSize - 1)
        }
        let chunks = maximumCount / slotsPerChunk + (maximumCount % slotsPerChunk == 0 ? 0 : 1)
        // 2 · maximumCount ≤ 2^25: the largest index fits in a bucket's 25 slot bits.
        let log2 = IndexDescriptor.bucketsLog2(forSlots: maximumCount)
        guard let control = times(pageSize, 1), let holders = times(pageSize, 2),
            let holderBytes = times(Self.holderCapacity, Self.holderEntryLength),
            let holdersEnd = plus(holders, holderBytes), let cells = pageRounded(holdersEnd),
            let chunkCellBytes = times(slotsPerChunk, Self.cellLength), let cellChunk = pageRounded(chunkCellBytes),
            let allCells = times(chunks, cellChunk), let index = plus(cells, allCells),
            let bucketBytes = times(1 << log2, Self.bucketLength), let region = pageRounded(bucketBytes),
            let bothRegions = times(region, 2), let total = plus(index, bothRegions)
        else {
            throw invalid(
                "a page size of \(pageSize), \(slotsPerChunk) slots per chunk and \(maximumCount) slots need more bytes than a file offset holds"
            )
        }
        self.pageSize = pageSize
        self.slotsPerChunk = slotsPerChunk
        self.maximumCount = maximumCount
        maximumChunks = chunks
        controlOffset = control
        holderTableOffset = holders
        cellsOffset = cells
        cellChunkLength = cellChunk
        indexOffset = index
        maximumBuckets = 1 << log2
        maximumBucketsLog2 = log2
        indexRegionLength = region
        maximumLength = total
    }

    /// How many slots `chunks` allocated chunks hold (the last chunk may have fewer).
    func slotCount(chunks: Int) -> Int {
        precondition((0...maximumChunks).contains(chunks), "a chunk count the table can have")
        return min(chunks * slotsPerChunk, maximumCount)
    }

    /// Where control field `field` starts.
    func controlOffset(_ field: SharedControlField) -> Int {
        controlOffset + field.rawValue * Self.controlLineLength
    }

    /// Where holder `h`'s entry starts.
    package func holderOffset(_ h: Int) -> Int {
        precondition((0..<Self.holderCapacity).contains(h), "a holder of the table")
        return holderTableOffset + h * Self.holderEntryLength
    }

    /// Where the cells of chunk `k` start.
    func cellChunkOffset(_ k: Int) -> Int {
        precondition((0..<maximumChunks).contains(k), "a chunk of the table")
        return cellsOffset + k * cellChunkLength
    }

    /// Where `slot`'s cell starts.
    @inline(__always)
    package func cellOffset(slot: Int) -> Int {
        precondition((0..<maximumCount).contains(slot), "a slot of the table")
        return cellsOffset + (slot / slotsPerChunk) * cellChunkLength + (slot % slotsPerChunk) * Self.cellLength
    }

    /// Where index region `region` (0 or 1) starts.
    func regionOffset(_ region: Int) -> Int {
        precondition(region == 0 || region == 1, "index region 0 or 1")
        return indexOffset + region * indexRegionLength
    }

    /// Where bucket `bucket` of index region `region` starts.
    func bucketOffset(region: Int, bucket: Int) -> Int {
        precondition((0..<maximumBuckets).contains(bucket), "a bucket the index can have")
        return regionOffset(region) + bucket * Self.bucketLength
    }

    /// The byte ranges that must be backed (allocated) for `chunks` chunks and an index of
    /// `buckets` buckets in `region`: everything up to the end of the allocated chunks' cells,
    /// and the active buckets, whose range ends on a page. The rest of the file is a hole.
    func backedRanges(chunks: Int, region: Int, buckets: Int) -> [Range<Int>] {
        precondition((0...maximumChunks).contains(chunks), "a chunk count the table can have")
        precondition(
            buckets > 0 && buckets <= maximumBuckets && buckets & (buckets - 1) == 0, "a power-of-two bucket count the index can have")
        let start = regionOffset(region)
        return [0..<(cellsOffset + chunks * cellChunkLength), start..<(start + roundUp(buckets * Self.bucketLength, pageSize))]
    }

    /// How long the file must be for `chunks` chunks and an index of `buckets` buckets in `region`
    /// (the end of the last of ``backedRanges(chunks:region:buckets:)``; a multiple of the page size).
    package func fileLength(chunks: Int, region: Int, buckets: Int) -> Int {
        let ranges = backedRanges(chunks: chunks, region: region, buckets: buckets)
        return max(ranges[0].upperBound, ranges[1].upperBound)
    }
}
