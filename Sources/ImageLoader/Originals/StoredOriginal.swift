#if Loader
import FICCore
import Foundation
import SystemPackage

/// An entry of the originals cache, opened and with its header checked; the body is checked
/// against its checksum as it is read. The open file stays readable even if another process
/// evicts or replaces the entry meanwhile.
final class StoredOriginal: Sendable {
    let name: String
    let header: EntryHeader
    private let descriptor: FileDescriptor
    let path: String

    init(name: String, header: EntryHeader, descriptor: FileDescriptor, path: String) {
        self.name = name
        self.header = header
        self.descriptor = descriptor
        self.path = path
    }

    deinit {
        descriptor.closeQuietly()
    }

    /// The whole body, or nil when it does not match its checksum (torn or altered file).
    func readBody() throws -> [UInt8]? {
        let body = try descriptor.readBytes(count: header.bodyLength, at: header.length, path: path)
        guard body.count == header.bodyLength, BodyChecksum.of(body) == header.bodyChecksum else { return nil }
        return body
    }

    /// Reads the body in chunks of at most `chunkBytes`, checking the checksum at the end.
    func makeChunkReader(chunkBytes: Int = 1 << 18) -> ChunkReader {
        ChunkReader(original: self, chunkBytes: chunkBytes)
    }

    /// Reads a stored body piece by piece, for one download at a time, which hands it to the I/O
    /// threads for each chunk; where it is in the body is kept under a lock with the read itself.
    final class ChunkReader: Sendable {
        private let original: StoredOriginal
        private let chunkBytes: Int

        private struct Progress {
            var offset = 0
            var checksum = BodyChecksum()
        }

        private let progress = LockedBox(Progress())

        init(original: StoredOriginal, chunkBytes: Int) {
            self.original = original
            self.chunkBytes = chunkBytes
        }

        /// The next chunk; nil at the end of a body that matched its checksum.
        ///
        /// - Throws: `.corruptData` when the body does not match its checksum, or is shorter than
        ///   its header says.
        func next() throws -> [UInt8]? {
            try progress.withLockedValue { p throws -> [UInt8]? in
                let remaining = original.header.bodyLength - p.offset
                if remaining == 0 {
                    guard p.checksum.finalize() == original.header.bodyChecksum else {
                        throw ImageCacheError(
                            .corruptData, "the stored original does not match its checksum; it was removed, request it again",
                            path: original.path)
                    }
                    return nil
                }
                let chunk = try original.descriptor.readBytes(
                    count: min(chunkBytes, remaining), at: original.header.length + p.offset, path: original.path)
                guard chunk.count == min(chunkBytes, remaining) else {
                    throw ImageCacheError(.corruptData, "the stored original is shorter than its header says", path: original.path)
                }
                p.checksum.update(chunk)
                p.offset += chunk.count
                return chunk
            }
        }
    }
}
#endif
