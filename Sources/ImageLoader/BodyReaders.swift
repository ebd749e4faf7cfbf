#if Loader
import FICCore
import FastImageCache
import ImageCodec
import Foundation
import Glibc
import SystemPackage

/// Where and how a downloaded body is to be stored in the originals cache.
struct PendingEntry: Sendable {
    let cache: OriginalsCache
    let storedAt: Date
    let maximumAge: Int64?
    let etag: String?
    let lastModified: String?

    /// A writer for the entry of `url`, or nil when it cannot be stored.
    func makeWriter(for url: URL) throws -> EntryWriter? {
        try cache.makeWriter(for: url, storedAt: storedAt, maximumAge: maximumAge, etag: etag, lastModified: lastModified)
    }
}

/// The state of one network body being read: counts, limits, the deadline, the connection permit
/// and the entry of the originals cache being written from it. Used by the one iterator of its
/// download, from whichever thread that iterator's task is on; what changes as the body comes is
/// kept under a lock all the same (never held across a wait), so the type is `Sendable` by
/// construction rather than by that promise.
///
/// Bytes for the cache are gathered in memory and written a megabyte at a time; a body smaller
/// than that is written, checked and published in a single visit to the I/O threads at its end.
final class NetworkBody: Sendable {
    /// Bytes gathered before each write to the originals cache.
    static let writeBatch = 1 << 20

    let url: URL
    let expected: Int?
    private let loader: OriginalsLoader
    private let permit: HostPermit
    private let deadline: ContinuousClock.Instant

    private struct Progress {
        var entry: PendingEntry?
        var writer: EntryWriter?
        /// Chunks not yet written to the cache entry (kept as they came: no copying into one buffer).
        var pending: [[UInt8]] = []
        var pendingBytes = 0
        var receivedBytes = 0
    }

    private let progress: LockedBox<Progress>

    init(url: URL, expected: Int?, loader: OriginalsLoader, permit: HostPermit, deadline: ContinuousClock.Instant, entry: PendingEntry?) {
        self.url = url
        self.expected = expected
        self.loader = loader
        self.permit = permit
        self.deadline = deadline
        progress = LockedBox(Progress(entry: entry))
    }

    /// Throws `.timedOut` once the whole download has taken longer than allowed.
    func checkDeadline() throws {
        if ContinuousClock.now > deadline {
            throw ImageCacheError(
                .timedOut, "the download took longer than \(loader.configuration.totalTimeout) (the server sends too slowly)",
                path: url.absoluteString)
        }
    }

    /// Counts a chunk, enforces the size limit, and passes the bytes on to the cache entry.
    func accept(_ chunk: [UInt8]) async throws {
        let limit = loader.configuration.maximumBodyBytes
        let outcome = progress.withLockedValue { p -> (accepted: Bool, flush: Bool) in
            let (total, overflow) = p.receivedBytes.addingReportingOverflow(chunk.count)
            guard !overflow, total <= limit else { return (false, false) }
            p.receivedBytes = total
            guard p.entry != nil else { return (true, false) }
            p.pending.append(chunk)
            p.pendingBytes += chunk.count
            return (true, p.pendingBytes >= Self.writeBatch)
        }
        guard outcome.accepted else {
            throw ImageCacheError(
                .bodyTooLarge, "the body is larger than the \(limit) bytes allowed; it was not read further", path: url.absoluteString)
        }
        loader.countDownloaded(chunk.count)
        if outcome.flush { await flush(publishing: false) }
    }

    /// Writes what is pending to the cache entry (making it first), and publishes it when
    /// `publishing`, in one visit to the I/O threads. A failure there (a full disk) only stops
    /// caching this download.
    private func flush(publishing: Bool) async {
        let taken = progress.withLockedValue { p -> (entry: PendingEntry, chunks: [[UInt8]], writer: EntryWriter?)? in
            guard let entry = p.entry else { return nil }
            defer {
                p.pending = []
                p.pendingBytes = 0
            }
            return (entry, p.pending, p.writer)
        }
        guard let (entry, chunks, existing) = taken else { return }
        let url = url
        do {
            let writer = try await WorkerThreads.blockingIO.run { () throws -> EntryWriter? in
                guard let writer = try existing ?? entry.makeWriter(for: url) else { return nil }
                for chunk in chunks { try writer.write(chunk) }
                if publishing { try entry.cache.commit(writer) }
                return writer
            }
            progress.withLockedValue { p in
                p.writer = writer
                if writer == nil { p.entry = nil }
            }
        } catch {
            loader.logger.warning("cannot store a download in the originals cache: \(error)", metadata: ["url": "\(url.absoluteString)"])
            progress.withLockedValue { p in
                p.entry = nil
                p.writer = nil
            }
        }
    }

    /// The body ended: checks its length, publishes the cache entry, returns the permit.
    func finish() async throws {
        let received = progress.withLockedValue { $0.receivedBytes }
        if let expected, received != expected {
            throw ImageCacheError(
                .truncated, "the connection ended after \(received) of the \(expected) bytes the server announced; try again later",
                path: url.absoluteString)
        }
        permit.release()
        loader.failures.forget(url)
        await flush(publishing: true)
        progress.withLockedValue { p in
            p.entry = nil
            p.writer = nil
        }
    }

    /// The download failed: returns the error to throw, remembering it for the back-off unless
    /// it was a cancellation. Nothing is stored.
    func fail(_ error: any Error) -> ImageCacheError {
        let received = progress.withLockedValue { p in
            p.entry = nil
            p.writer = nil
            p.pending = []
            p.pendingBytes = 0
            return p.receivedBytes
        }
        permit.release()
        let mapped = LoaderErrors.map(error, url: url, received: received, expected: expected)
        if mapped.code != .cancelled { loader.failures.record(mapped, for: url) }
        return mapped
    }
}

/// Reading a stored original: a body that fails its checksum removes the entry.
final class StoredBody: Sendable {
    let name: String
    let cache: OriginalsCache

    init(name: String, cache: OriginalsCache) {
        self.name = name
        self.cache = cache
    }

    /// The body did not check out.
    func failed() {
        let (cache, name) = (cache, name)
        WorkerThreads.blockingIO.submit { cache.discard(name) }
    }
}

/// Reads a `file` URL in chunks on the I/O threads, for one download at a time (where it is in
/// the file is under a lock all the same, so sharing it by mistake cannot tear the count).
final class FileChunkReader: Sendable {
    private let descriptor: FileDescriptor
    private let path: String
    let length: Int
    private let chunkBytes: Int
    private let offset = LockedBox(0)

    /// Opens the regular file at `path`; refuses files larger than `maximum` bytes.
    init(path: String, maximum: Int, chunkBytes: Int = 1 << 18) throws {
        // Opened as every image file is (a FIFO or device refused without blocking); what the
        // loader reports is a source it cannot use, or an I/O failure.
        let fd: FileDescriptor, size: Int
        do {
            (fd, size) = try ImageFile.open(path: path)
        } catch let error as ImageCacheError {
            switch error.errno {
            case .noSuchFileOrDirectory?:
                throw ImageCacheError(.sourceUnavailable, "the file does not exist", path: path, errno: error.errno)
            case .isDirectory?, .invalidArgument?: throw ImageCacheError(.sourceUnavailable, "not a regular file", path: path)
            default: throw ImageCacheError(.io, "cannot open the file", path: path, errno: error.errno)
            }
        }
        guard size <= maximum else {
            fd.closeQuietly()
            throw ImageCacheError(.bodyTooLarge, "the file is \(size) bytes, more than the \(maximum) allowed", path: path)
        }
        length = size
        descriptor = fd
        self.path = path
        self.chunkBytes = chunkBytes
    }

    deinit {
        descriptor.closeQuietly()
    }

    /// The whole file (read on the calling thread).
    func readAll() throws -> [UInt8] {
        let bytes = try descriptor.readBytes(count: length, at: 0, path: path)
        guard bytes.count == length else { throw ImageCacheError(.truncated, "the file shrank while it was read", path: path) }
        return bytes
    }

    /// The next chunk, read on the I/O threads; nil at the end.
    func next() async throws -> [UInt8]? {
        let at = offset.withLockedValue { $0 }
        let remaining = length - at
        guard remaining > 0 else { return nil }
        let count = min(chunkBytes, remaining)
        let (descriptor, path) = (descriptor, path)
        let chunk = try await WorkerThreads.blockingIO.run { () throws -> [UInt8] in
            let chunk = try descriptor.readBytes(count: count, at: at, path: path)
            guard chunk.count == count else { throw ImageCacheError(.truncated, "the file shrank while it was read", path: path) }
            return chunk
        }
        offset.withLockedValue { $0 = at + count }
        return chunk
    }
}
#endif
