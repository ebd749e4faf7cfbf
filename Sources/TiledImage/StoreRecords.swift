import FICCore
import Glibc

/// Which pyramidal TIFFs of a ``TilePyramidStore`` folder the store built itself, so that it
/// evicts those and never a file someone else put there: one record per TIFF in the hidden folder
/// `.fic-store`, named as the TIFF and holding its device, inode, change time and size. A TIFF
/// replaced by another file, or changed by another tool, no longer matches its record and is no
/// longer the store's. A record's modification time is its pyramid's last use.
///
/// The records' folder's `flock` (exclusive) keeps one process's eviction apart from another's,
/// and from a build recording its file.
enum StoreRecords {
    /// The hidden folder of the records, in the store's folder.
    static let folderName = ".fic-store"
    /// The first line of a record.
    private static let magic = "fic-pyramid-store 1"
    /// The longest record read.
    private static let maximumLength = 256

    /// The records' folder of `store`: made when `create`, else nil when there is none yet.
    static func folder(in store: Directory, create: Bool) throws -> Directory? {
        if !create, try store.status(of: folderName) == nil { return nil }
        return try store.subdirectory(folderName, create: create)
    }

    /// What a record says of a file: enough to tell it from any other (an inode number is reused
    /// once its file is gone; with the change time in nanoseconds and the size it is not).
    private static func text(of status: Glibc.stat) -> String {
        "\(magic)\n\(status.st_dev) \(status.st_ino) \(status.statusChangeNanoseconds) \(status.st_size)\n"
    }

    /// Records the file of `status`, named `name` in the store, as the store's own (replacing any
    /// earlier record of that name at once).
    static func record(_ name: String, status: Glibc.stat, in records: Directory) throws {
        let temporary = try records.makeTemporaryFile(for: name)
        let bytes = Array(text(of: status).utf8)
        try bytes.withUnsafeBytes { try temporary.descriptor.writeAll($0, at: 0, path: temporary.path) }
        try temporary.commit()
    }

    /// Whether the file of `status` is the one recorded as `name` (false when there is no record,
    /// or it cannot be read).
    static func owns(_ name: String, status: Glibc.stat, in records: Directory) -> Bool {
        guard let fd = try? records.openFile(name, writable: false) else { return false }
        defer { fd.closeQuietly() }
        var bytes = [UInt8](repeating: 0, count: maximumLength)
        guard let count = try? bytes.withUnsafeMutableBytes({ try fd.readAll(into: $0, at: 0, path: nil) }) else { return false }
        return bytes[..<count].elementsEqual(text(of: status).utf8)
    }
}
