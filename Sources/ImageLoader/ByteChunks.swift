#if Loader
import AsyncHTTPClient
import FICCore
import FastImageCache
import Foundation
import ImageCodec
import NIOCore

/// Where the bytes of a download come from.
public enum DownloadOrigin: String, Sendable, Hashable, Codable {
    /// Downloaded over HTTP(S) (and written to the originals cache as they arrive, when allowed).
    case network
    /// Read from the originals cache: no network was used (or only a `304 Not Modified`).
    case originalsCache
    /// Read from a `file` URL.
    case file
}

/// An original being downloaded or read: what is known before the body, and the body as a
/// stream of byte chunks.
public struct OriginalDownload: Sendable {
    /// The URL asked for.
    public let url: URL
    /// Where the bytes come from.
    public let origin: DownloadOrigin
    /// The body's length, when known in advance.
    public let expectedLength: Int?
    /// The body, chunk by chunk, as it arrives. Iterate it once.
    public let chunks: ByteChunks
}

/// The body of an ``OriginalDownload`` as an `AsyncSequence` of byte chunks, read as they arrive
/// (the next chunk is not requested before the last was consumed, so memory stays at one chunk
/// however large the body). The end of the sequence means the body is complete: a connection that
/// ends early, a stalled or too slow server, a body over the limit or a stored copy that fails its
/// checksum all throw an `ImageCacheError` instead. Stopping early cancels the download, and
/// nothing of it is stored. The sequence can be iterated once; a second iterator throws.
public struct ByteChunks: AsyncSequence, Sendable {
    /// A chunk of the body.
    public typealias Element = [UInt8]

    enum Source: Sendable {
        case network(HTTPClientResponse.Body, NetworkBody)
        case stored(StoredOriginal.ChunkReader, StoredBody)
        case file(FileChunkReader)
        case memory([UInt8])
    }

    let source: Source
    private let claimed = LockedBox(false)

    init(_ source: Source) {
        self.source = source
    }

    /// Reads the chunks.
    public func makeAsyncIterator() -> AsyncIterator {
        let first = claimed.withLockedValue { c -> Bool in
            defer { c = true }
            return !c
        }
        guard first else { return AsyncIterator(state: .refused) }
        switch source {
        case .network(let body, let context): return AsyncIterator(state: .network(body.makeAsyncIterator(), context))
        case .stored(let reader, let context): return AsyncIterator(state: .stored(reader, context))
        case .file(let reader): return AsyncIterator(state: .file(reader))
        case .memory(let bytes): return AsyncIterator(state: .memory(bytes))
        }
    }

    /// Collects the whole body (at most `limit` bytes; more throws `.bodyTooLarge`).
    public func collect(limit: Int = .max) async throws -> [UInt8] {
        var all: [UInt8] = []
        for try await chunk in self {
            guard chunk.count <= limit - all.count else {
                throw ImageCacheError(.bodyTooLarge, "the body is larger than the \(limit) bytes allowed")
            }
            if all.isEmpty { all = chunk } else { all += chunk }
        }
        return all
    }

    /// Reads every chunk into memory of its own (`ImageBytes`: mapped pages once large, never a
    /// growing heap array), reserving `expectedCount` (a download's announced length, trusted no
    /// further than `limit`) up front. `onChunk` sees each chunk as it arrives.
    ///
    /// - Throws: what iterating throws; `.bodyTooLarge` past `limit` bytes.
    public func collectBytes(limit: Int = .max, expectedCount: Int? = nil, onChunk: ([UInt8]) -> Void = { _ in }) async throws -> ImageBytes
    {
        let builder = try ImageBytesBuilder(expectedCount: expectedCount.map { Swift.min(Swift.max(0, $0), limit) })
        for try await chunk in self {
            guard chunk.count <= limit - builder.count else {
                throw ImageCacheError(.bodyTooLarge, "the body is larger than the \(limit) bytes allowed")
            }
            try builder.append(chunk)
            onChunk(chunk)
        }
        return try builder.finish()
    }

    /// Reads the chunks, one at a time.
    public struct AsyncIterator: AsyncIteratorProtocol {
        enum State {
            case network(HTTPClientResponse.Body.AsyncIterator, NetworkBody)
            case stored(StoredOriginal.ChunkReader, StoredBody)
            case file(FileChunkReader)
            case memory([UInt8])
            case refused
            case done
        }

        var state: State

        /// The next chunk, or nil when the body is complete.
        public mutating func next() async throws -> [UInt8]? {
            switch state {
            case .done:
                return nil
            case .refused:
                state = .done
                throw ImageCacheError(.invalidArgument, "the chunks of a download can be read only once")
            case .memory(let bytes):
                state = .done
                return bytes.isEmpty ? nil : bytes
            case .file(let reader):
                do {
                    guard let chunk = try await reader.next() else {
                        state = .done
                        return nil
                    }
                    return chunk
                } catch {
                    state = .done
                    throw error
                }
            case .stored(let reader, let context):
                do {
                    guard let chunk = try await WorkerThreads.blockingIO.run({ try reader.next() }) else {
                        state = .done
                        return nil
                    }
                    return chunk
                } catch {
                    state = .done
                    context.failed()
                    throw error
                }
            case .network(var iterator, let context):
                do {
                    while true {
                        let buffer = try await iterator.next()
                        state = .network(iterator, context)
                        guard let buffer else {
                            try Task.checkCancellation()
                            try await context.finish()
                            state = .done
                            return nil
                        }
                        try context.checkDeadline()
                        guard buffer.readableBytes > 0 else { continue }
                        let chunk = Array(buffer.readableBytesView)
                        try await context.accept(chunk)
                        return chunk
                    }
                } catch {
                    state = .done
                    throw context.fail(error)
                }
            }
        }
    }
}
#endif
