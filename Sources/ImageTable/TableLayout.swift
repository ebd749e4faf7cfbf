/// Where everything of a table lives in its file.
///
/// ```
/// 0                         header (one page)
/// pageSize                  chunk 0: index records of its slots (128 bytes each, padded to a page),
///                                    then its slots (each a whole number of pages)
/// pageSize + chunkLength    chunk 1 …
/// ```
/// The file grows one chunk at a time, index and pixels together, so a table of a few images is
/// a few pages long whatever its maximum count. Every offset is a multiple of the page size.
struct TableLayout: Equatable {
    let pageSize: Int
    let slotLength: Int
    let slotsPerChunk: Int
    let maximumCount: Int
    /// Bytes of index records at the start of each chunk.
    let recordsLength: Int
    /// Bytes of a full chunk (records and slots).
    let chunkLength: Int

    init(configuration c: TableConfiguration) {
        pageSize = c.pageSize
        slotLength = c.slotLength
        slotsPerChunk = c.slotsPerChunk
        maximumCount = c.maximumCount
        recordsLength = roundUp(c.slotsPerChunk * IndexRecord.length, c.pageSize)
        chunkLength = recordsLength + c.slotsPerChunk * c.slotLength
    }

    /// How many chunks the table has at most.
    var maximumChunks: Int { (maximumCount + slotsPerChunk - 1) / slotsPerChunk }

    /// The first slot of chunk `k`.
    func firstSlot(ofChunk k: Int) -> Int { k * slotsPerChunk }

    /// How many slots chunk `k` has (the last one may have fewer).
    func slotCount(ofChunk k: Int) -> Int { min(slotsPerChunk, maximumCount - firstSlot(ofChunk: k)) }

    /// Where chunk `k` starts in the file.
    func chunkOffset(_ k: Int) -> Int { pageSize + k * chunkLength }

    /// The bytes of chunk `k` (shorter for a last chunk with fewer slots).
    func chunkByteCount(_ k: Int) -> Int { recordsLength + slotCount(ofChunk: k) * slotLength }

    /// The file offset of `slot`'s index record.
    func recordOffset(slot: Int) -> Int { chunkOffset(slot / slotsPerChunk) + (slot % slotsPerChunk) * IndexRecord.length }

    /// The file offset of `slot`'s pixels.
    func slotOffset(slot: Int) -> Int { chunkOffset(slot / slotsPerChunk) + recordsLength + (slot % slotsPerChunk) * slotLength }

    /// The offset of `slot`'s record within its chunk's mapping.
    func recordOffsetInChunk(slot: Int) -> Int { (slot % slotsPerChunk) * IndexRecord.length }

    /// The offset of `slot`'s pixels within its chunk's mapping.
    func slotOffsetInChunk(slot: Int) -> Int { recordsLength + (slot % slotsPerChunk) * slotLength }
}
