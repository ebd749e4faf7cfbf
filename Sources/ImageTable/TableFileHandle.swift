import FICCore
import Glibc
import Logging
import SystemPackage

/// The open file of a table: the descriptor (which holds the table's `flock`), the folder it is
/// named in, and its layout. Closing the descriptor, when the handle goes away, releases the lock.
final class TableFileHandle: Sendable {
    let descriptor: FileDescriptor
    let directory: Directory
    let name: String
    let header: TableHeader
    let layout: TableLayout
    let isWritable: Bool

    init(descriptor: FileDescriptor, directory: Directory, name: String, header: TableHeader, layout: TableLayout, isWritable: Bool) {
        self.descriptor = descriptor
        self.directory = directory
        self.name = name
        self.header = header
        self.layout = layout
        self.isWritable = isWritable
    }

    deinit {
        descriptor.closeQuietly()
        TableLockReleases.announce()
    }

    /// The file's path, for messages.
    var path: String { directory.child(name) }

    /// Maps chunk `k` (all of it, even where the file is shorter: only pages inside the file are read).
    func mapChunk(_ k: Int) throws -> MappedRegion {
        try MappedRegion(
            descriptor: descriptor, offset: layout.chunkOffset(k), length: layout.chunkByteCount(k), writable: isWritable, path: path)
    }

    /// Reserves disk space for chunk `k` (so that writes through the mapping cannot fail with
    /// SIGBUS on a full disk), maps it, and clears its index records: the bytes there may be left
    /// from before the file was cut short, and no record the index did not load may come back.
    ///
    /// A chunk the file already wholly holds keeps its records: an open alone loads every such
    /// chunk, so another process grew this one and its count went missing from the shared state
    /// (damaged, or its grower died between allocating and counting it, before any store). Its
    /// records are then entries other processes serve, or zero.
    func growChunk(_ k: Int) throws -> MappedRegion {
        let end = layout.chunkOffset(k) + layout.chunkByteCount(k)
        let held = Int(try descriptor.status(path: path).st_size) >= end
        try descriptor.allocate(offset: layout.chunkOffset(k), length: layout.chunkByteCount(k), path: path)
        let region = try mapChunk(k)
        if !held { region.base.initializeMemory(as: UInt8.self, repeating: 0, count: layout.recordsLength) }
        return region
    }

    /// Writes the header page with the open state and this process's session (the running boot,
    /// this file), durably.
    func writeHeader(open: Bool) throws {
        let page = header.encode(open: open, session: try session())
        try page.withUnsafeBytes { (b) throws in try descriptor.writeAll(b, at: 0, path: path) }
        try descriptor.synchronize(path: path)
    }

    /// The session a header written now records: the running boot and this file.
    func session() throws -> WriterSession {
        WriterSession.current(file: try descriptor.status(path: path))
    }

    /// The kind of file system the table lives on.
    func fileSystemKind() throws -> FileSystemKind {
        try descriptor.fileSystemKind(path: path)
    }

    /// Makes a new file hold an empty table: the header page, marked open.
    func initialize() throws {
        try descriptor.truncate(to: 0, path: path)
        try descriptor.allocate(offset: 0, length: layout.pageSize, path: path)
        try writeHeader(open: true)
    }

    /// Cuts the file back to its header (a reset), durably.
    func truncateToHeader() throws {
        try descriptor.truncate(to: layout.pageSize, path: path)
        try descriptor.synchronize(path: path)
    }

    /// Builds the table's shared state afresh from its committed `entries` in `chunks` chunks,
    /// for an opener that has the table to itself: in its side file when the table is writable,
    /// otherwise in memory (``SharedTableState/build(in:tableName:table:binding:chunks:entries:shareable:logger:)``).
    func buildSharedState(chunks: Int, entries: [SharedTableState.Entry], logger: Logger) throws -> SharedTableState {
        let st = try descriptor.status(path: path)
        let binding = SharedStateHeader.Binding(
            device: UInt64(st.st_dev), inode: UInt64(st.st_ino), tableHeaderChecksum: header.formatChecksum)
        return try SharedTableState.build(
            in: directory, tableName: name, table: layout, binding: binding, chunks: chunks, entries: entries,
            shareable: isWritable, logger: logger)
    }

    /// Bytes the file occupies on disk.
    func allocatedBytes() -> Int {
        guard let st = try? descriptor.status(path: path) else { return 0 }
        return Int(st.st_blocks) * 512
    }
}
