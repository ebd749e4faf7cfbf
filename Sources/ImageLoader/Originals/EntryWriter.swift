#if Loader
import FICCore
import Foundation
import Glibc
import SystemPackage

/// A new entry of the originals cache being written: a file with no name (or a hidden,
/// unpredictable one) until ``OriginalsCache`` publishes it, complete, under its final name. If
/// the writer is dropped, or the process dies, before that, nothing of it is left to serve.
///
/// Used by one download at a time, which hands it to the I/O threads between chunks; what it
/// has written so far is kept under a lock with the writes themselves, so a writer shared by
/// mistake still writes whole chunks in order and counts them right.
final class EntryWriter: Sendable {
    /// The entry's file name (SHA-256 of the URL).
    let name: String
    private let file: TemporaryFile
    private let limit: Int

    private struct Progress {
        var header: EntryHeader
        var checksum = BodyChecksum()
        var written = 0
        /// The body outgrew the cache; nothing more is written and the entry will not be stored.
        var isOverLimit = false
    }

    private let progress: LockedBox<Progress>

    init(directory: Directory, name: String, header: EntryHeader, limit: Int) throws {
        self.name = name
        self.limit = limit
        file = try directory.makeTemporaryFile(for: name)
        progress = LockedBox(Progress(header: header, isOverLimit: header.length >= limit))
    }

    /// The entry's header (final once ``finish()`` has returned).
    var header: EntryHeader { progress.withLockedValue { $0.header } }

    /// The body outgrew the cache; nothing more is written and the entry will not be stored.
    var isOverLimit: Bool { progress.withLockedValue { $0.isOverLimit } }

    /// Bytes of the body written so far.
    var bodyBytes: Int { progress.withLockedValue { $0.written } }

    /// The path the entry will have, for messages.
    var path: String { file.path }

    /// Appends body bytes.
    func write(_ bytes: [UInt8]) throws {
        try progress.withLockedValue { p throws in
            guard !p.isOverLimit, !bytes.isEmpty else { return }
            let (end, overflow) = (p.header.length + p.written).addingReportingOverflow(bytes.count)
            if overflow || end > limit {
                p.isOverLimit = true
                return
            }
            try file.descriptor.writeBytes(bytes, at: p.header.length + p.written, path: file.path)
            p.checksum.update(bytes)
            p.written += bytes.count
        }
    }

    /// Writes the final header (body length and digest). Returns the file's length.
    func finish() throws -> Int {
        try progress.withLockedValue { p throws in
            p.header.bodyLength = p.written
            p.header.bodyChecksum = p.checksum.finalize()
            let bytes = p.header.encoded()
            try file.descriptor.writeBytes(bytes, at: 0, path: file.path)
            return p.header.length + p.written
        }
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
#endif
