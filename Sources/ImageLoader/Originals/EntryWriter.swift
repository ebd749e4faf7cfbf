import FICCore
import Foundation
import Glibc
import SystemPackage

/// A new entry of the originals cache being written: a file with no name (or a hidden,
/// unpredictable one) until ``OriginalsCache`` publishes it, complete, under its final name. If
/// the writer is dropped, or the process dies, before that, nothing of it is left to serve.
///
/// Used by one task at a time (the download that owns it), from whichever thread that task is
/// on; it is `Sendable` so it can be handed to the I/O threads between chunks.
final class EntryWriter: @unchecked Sendable {
    /// The entry's file name (SHA-256 of the URL).
    let name: String
    private(set) var header: EntryHeader
    private let file: TemporaryFile
    private var checksum = BodyChecksum()
    private var written = 0
    private let limit: Int
    /// The body outgrew the cache; nothing more is written and the entry will not be stored.
    private(set) var isOverLimit = false

    init(directory: Directory, name: String, header: EntryHeader, limit: Int) throws {
        self.name = name
        self.header = header
        self.limit = limit
        file = try directory.makeTemporaryFile(for: name)
        if header.length >= limit { isOverLimit = true }
    }

    /// Bytes of the body written so far.
    var bodyBytes: Int { written }

    /// The path the entry will have, for messages.
    var path: String { file.path }

    /// Appends body bytes.
    func write(_ bytes: [UInt8]) throws {
        guard !isOverLimit, !bytes.isEmpty else { return }
        let (end, overflow) = (header.length + written).addingReportingOverflow(bytes.count)
        if overflow || end > limit {
            isOverLimit = true
            return
        }
        try file.descriptor.writeBytes(bytes, at: header.length + written, path: file.path)
        checksum.update(bytes)
        written += bytes.count
    }

    /// Writes the final header (body length and digest). Returns the file's length.
    func finish() throws -> Int {
        header.bodyLength = written
        header.bodyChecksum = checksum.finalize()
        let bytes = header.encoded()
        try file.descriptor.writeBytes(bytes, at: 0, path: file.path)
        return header.length + written
    }

    /// Gives the finished file the name ``name`` in `directory`, atomically replacing any file of
    /// that name: linked under a hidden name, then renamed. Not flushed to the disk: after a power
    /// failure the entry may be torn, which reading detects (length and digest) and treats as a miss.
    func publish(in directory: Directory) throws {
        var generator = SystemRandomNumberGenerator()
        let hidden = ".\(name).tmp-\(String(generator.next() as UInt64, radix: 16))"
        try directory.link(file.descriptor, as: hidden)
        do {
            try directory.rename(hidden, to: name)
        } catch {
            try? directory.removeFile(hidden)
            throw error
        }
    }
}
