import FICCore
import SystemPackage

/// A table's side file, `NAME.fictable-shared`, open and mapped whole: the state the processes
/// that share the table coordinate through (``SharedStateLayout``). Everything in it is derived
/// from the table's records, so an opener that has the table to itself makes it afresh rather
/// than trusting what it finds.
final class SharedStateFile {
    /// The file's path, for messages.
    let path: String
    /// The open file: its description also holds this process's holder and writer locks.
    let descriptor: FileDescriptor
    /// The whole file, mapped (its unallocated parts are holes).
    let mapping: MappedRegion
    let layout: SharedStateLayout

    private init(path: String, descriptor: FileDescriptor, mapping: MappedRegion, layout: SharedStateLayout) {
        self.path = path
        self.descriptor = descriptor
        self.mapping = mapping
        self.layout = layout
    }

    deinit {
        descriptor.closeQuietly()
    }

    /// The side file's name for the table `tableName`.
    static func name(ofTable tableName: String) -> String { tableName + "-shared" }

    /// Makes the side file of the table `tableName` in `directory` afresh, for an opener that has
    /// the table to itself, and builds it from the table's committed `entries` in
    /// `allocatedChunks` chunks (``SharedStateBuilder``).
    ///
    /// A new file is made and renamed over whatever had the name, so the bytes of a file this
    /// package did not write (a link, a hard link to something else, garbage) are never written.
    /// The file is as long as the layout's largest extent but sparse: only the parts the build
    /// writes are allocated on the disk, first, so that a full disk is an error here rather than
    /// a fault when a page is first written through the mapping.
    ///
    /// - Throws: ``ImageCacheError``: `.noSpace`, `.io`, `.unsafePath`, or `.invalidArgument`
    ///   from the build.
    static func create(
        in directory: Directory, tableName: String, layout: SharedStateLayout, binding: SharedStateHeader.Binding,
        nonce: UInt64 = .random(in: 1...UInt64.max), allocatedChunks: Int,
        entries: [SharedStateBuilder.Entry]
    ) throws -> (SharedStateFile, SharedStateBuilder.Summary) {
        let name = name(ofTable: tableName)
        let file = try directory.makeTemporaryFile(for: name)
        let (mapping, summary) = try build(
            file.descriptor, path: file.path, layout: layout, binding: binding, nonce: nonce,
            allocatedChunks: allocatedChunks, entries: entries)
        try file.commit()
        return (SharedStateFile(path: file.path, descriptor: file.takeDescriptor(), mapping: mapping, layout: layout), summary)
    }

    /// Opens and maps the side file of the table `tableName` in `directory` that the process
    /// which has the table open made, for a process joining it: a regular file of the side
    /// file's full length whose header validates against `layout` and `binding` (the table's
    /// file and format) and says the build finished.
    ///
    /// - Throws: ``ImageCacheError`` `.inUse` when there is no such file (the other process keeps
    ///   its state to itself, or the file is not this table's), `.io` on a failed call.
    static func open(in directory: Directory, tableName: String, layout: SharedStateLayout, binding: SharedStateHeader.Binding) throws
        -> SharedStateFile
    {
        let name = name(ofTable: tableName)
        let path = directory.child(name)
        func unshared(_ why: String) -> ImageCacheError {
            ImageCacheError(.inUse, "another process has the table open without sharing it (\(why)); close it first", path: path)
        }
        guard let st = try directory.status(of: name) else { throw unshared("it made no shared state") }
        guard st.isRegularFile, Int(st.st_size) >= layout.maximumLength else {
            throw unshared("what has the shared state's name is not one")
        }
        let descriptor: FileDescriptor
        do {
            descriptor = try directory.openFile(name, writable: true)
        } catch {
            throw unshared("its shared state cannot be opened for writing here: \(error)")
        }
        let mapping: MappedRegion
        do {
            mapping = try MappedRegion(descriptor: descriptor, offset: 0, length: layout.maximumLength, writable: true, path: path)
        } catch {
            descriptor.closeQuietly()
            throw error
        }
        // From here the file object owns the descriptor (and closes it, should the header fail).
        let file = SharedStateFile(path: path, descriptor: descriptor, mapping: mapping, layout: layout)
        if case .failure(let mismatch) = file.header(binding: binding) {
            throw unshared("its shared state is not this table's: \(mismatch)")
        }
        return file
    }

    /// The same state as ``create(in:tableName:layout:binding:nonce:allocatedChunks:entries:)``
    /// makes, in a file that lives in this process's memory only: for a table no other process
    /// can share (opened read-only, or whose side file could not be made), so that it works with
    /// the same code. `path` names it in messages.
    static func makePrivate(
        path: String, layout: SharedStateLayout, binding: SharedStateHeader.Binding,
        nonce: UInt64 = .random(in: 1...UInt64.max), allocatedChunks: Int,
        entries: [SharedStateBuilder.Entry]
    ) throws -> (SharedStateFile, SharedStateBuilder.Summary) {
        let descriptor = try FileDescriptor.memoryFile(named: "fictable-shared")
        do {
            let (mapping, summary) = try build(
                descriptor, path: path, layout: layout, binding: binding, nonce: nonce,
                allocatedChunks: allocatedChunks, entries: entries)
            return (SharedStateFile(path: path, descriptor: descriptor, mapping: mapping, layout: layout), summary)
        } catch {
            descriptor.closeQuietly()
            throw error
        }
    }

    /// Sizes the empty file `descriptor` (sparse), backs what the build writes, maps it and builds.
    private static func build(
        _ descriptor: FileDescriptor, path: String, layout: SharedStateLayout, binding: SharedStateHeader.Binding,
        nonce: UInt64, allocatedChunks: Int, entries: [SharedStateBuilder.Entry]
    ) throws -> (MappedRegion, SharedStateBuilder.Summary) {
        try descriptor.truncate(to: layout.maximumLength, path: path)
        let buckets = 1 << IndexDescriptor.bucketsLog2(forSlots: layout.slotCount(chunks: allocatedChunks))
        for range in layout.backedRanges(chunks: allocatedChunks, region: 0, buckets: buckets) {
            try descriptor.allocate(offset: range.lowerBound, length: range.count, path: path)
        }
        let mapping = try MappedRegion(descriptor: descriptor, offset: 0, length: layout.maximumLength, writable: true, path: path)
        let summary = try SharedStateBuilder.build(
            into: UnsafeMutableRawBufferPointer(start: mapping.base, count: mapping.length), layout: layout, binding: binding,
            nonce: nonce, allocatedChunks: allocatedChunks, entries: entries)
        return (mapping, summary)
    }

    /// Whether the side file named `name` in `directory` may be replaced or removed: there is
    /// none, or it is provably one this package wrote (a regular file that starts with the side
    /// file's magic). Anything else there (a link, a folder, someone's file) is never touched.
    static func mayReplace(_ name: String, in directory: Directory) -> Bool {
        guard let st = try? directory.status(of: name) else { return true }
        guard st.isRegularFile, let fd = try? directory.openFile(name, writable: false) else { return false }
        defer { fd.closeQuietly() }
        var magic: UInt64 = 0
        let read = (try? withUnsafeMutableBytes(of: &magic) { try fd.readAll(into: $0, at: 0, path: nil) }) ?? 0
        return read == 8 && UInt64(littleEndian: magic) == SharedStateHeader.magic
    }

    /// Removes the side file of the table `tableName` from `directory` when it is provably one
    /// this package wrote (``mayReplace(_:in:)``), with the table, which the caller has removed.
    static func remove(ofTable tableName: String, in directory: Directory) {
        let name = name(ofTable: tableName)
        guard (try? directory.status(of: name)) != nil, mayReplace(name, in: directory) else { return }
        try? directory.removeFile(name)
    }

    /// The header as it is now in the file, or why it does not validate against `binding`.
    func header(binding: SharedStateHeader.Binding) -> Result<SharedStateHeader, SharedStateHeader.Mismatch> {
        SharedStateHeader.decode(
            UnsafeRawBufferPointer(start: mapping.base, count: SharedStateHeader.length), layout: layout, binding: binding)
    }

    /// The slots' cells.
    var cells: SlotCells { SlotCells(base: mapping.base, layout: layout) }
}
