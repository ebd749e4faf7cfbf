/// One mapped chunk of a table: its index records and its slots.
///
/// Images handed out keep their chunk alive, and so its memory mapped. When the table closes
/// or resets, held images are detached from the file (their pages become private copies), so
/// the file can be unlocked at once; if the system cannot make the copies, the chunk keeps the
/// file itself (and its lock) until the last image of it goes away.
final class TableChunk: Sendable {
    /// The mapping.
    let region: MappedRegion
    /// The file, kept only when detaching held images failed.
    private let keptFile = LockedBox<TableFileHandle?>(nil)

    init(region: MappedRegion) {
        self.region = region
    }

    /// The first byte of the chunk.
    var base: UnsafeMutableRawPointer { region.base }

    /// Keeps `file` (and its lock) open for as long as this chunk is mapped.
    func keep(_ file: TableFileHandle) {
        keptFile.withLockedValue { $0 = file }
    }
}
