#if Loader
import AsyncHTTPClient
import FICCore
import FastImageCache
import Foundation
import Logging
import NIOHTTP1

/// Counters of an ``OriginalsLoader``.
public struct LoaderStatistics: Sendable, Hashable, Codable {
    /// Body bytes received from the network (not from the originals cache or files).
    public var bytesDownloaded: Int
    /// Responses with a body received from the network.
    public var downloads: Int
    /// Conditional requests the server answered with `304 Not Modified`.
    public var notModified: Int
    /// Requests refused because their URL failed recently (back-off).
    public var refusedWhileBackingOff: Int
}

/// Loads originals (encoded image files) from `http`, `https` and `file` URLs, through a disk
/// cache of originals, and hands them to an `ImageCache` as its provider.
///
/// ```swift
/// let originals = try OriginalsCache(directory: dir + "/originals", maximumBytes: 500 << 20)
/// let loader = OriginalsLoader(originals: originals)
/// let cache = try ImageCache(directory: dir, formats: formats, provider: loader)
/// let thumb = try await cache.image(for: photo, format: "thumb")   // fast lane
/// cache.prefetch(nextPhotos, format: "thumb")                     // slow lane
/// ```
///
/// A stored original that is fresh is used without the network; a stale one (older than its
/// `max-age`) is revalidated with `If-None-Match`/`If-Modified-Since`. Responses marked
/// `Cache-Control: no-store` are not stored. A URL that failed is refused for a back-off period
/// (``LoaderConfiguration/failureBackoff``), so a broken link is not fetched on every scroll.
/// Coalescing and priorities are the cache's job (its lanes); the loader fetches what it is asked.
///
/// Call ``shutdown()`` when done; a loader that is simply released shuts its client down in the
/// background.
public final class OriginalsLoader: ImageSourceProvider, Sendable {
    /// Limits and timeouts.
    public let configuration: LoaderConfiguration
    /// The disk cache of originals, if any.
    public let originals: OriginalsCache?
    let network: NetworkClient
    let failures: FailureMemory
    let logger: Logger
    /// The wall clock stored originals' freshness is judged by (HTTP's `max-age` and `Expires`
    /// are wall-clock times); tests move it instead of waiting.
    let now: @Sendable () -> Date
    private let counters = LockedBox(LoaderStatistics(bytesDownloaded: 0, downloads: 0, notModified: 0, refusedWhileBackingOff: 0))

    /// A loader with `configuration`, storing downloads in `originals` (nil: no disk cache);
    /// `now` is the wall clock that decides whether a stored original is still fresh.
    public init(
        configuration: LoaderConfiguration = LoaderConfiguration(), originals: OriginalsCache?,
        logger: Logger = Logger(label: "ImageLoader"),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.configuration = configuration
        self.now = now
        self.originals = originals
        self.logger = logger
        network = NetworkClient(configuration: configuration)
        failures = FailureMemory(base: configuration.failureBackoff, maximum: configuration.maximumFailureBackoff)
    }

    /// Closes the HTTP client's connections; later downloads fail.
    public func shutdown() async throws {
        try await network.shutdown()
    }

    /// Counters since the loader was made.
    public var statistics: LoaderStatistics { counters.withLockedValue { $0 } }

    /// Forgets every remembered failure, so failed URLs are tried again at once.
    public func forgetFailures() {
        failures.forgetAll()
    }

    func countDownloaded(_ bytes: Int) {
        counters.withLockedValue { $0.bytesDownloaded += bytes }
    }

    /// A range answered: one response, `bytes` received.
    func countRange(bytes: Int) {
        counters.withLockedValue {
            $0.downloads += 1
            $0.bytesDownloaded += bytes
        }
    }

    /// A request refused by the back-off before it was sent.
    func countRefusal() {
        counters.withLockedValue { $0.refusedWhileBackingOff += 1 }
    }

    // MARK: Loading

    /// The whole original at `url` (at most ``LoaderConfiguration/maximumBodyBytes``), from the
    /// originals cache when it holds a fresh copy, else from the network (storing it).
    ///
    /// - Throws: `ImageCacheError`: `.httpStatus`, `.network`, `.timedOut`, `.truncated`,
    ///   `.tooManyRedirects`, `.bodyTooLarge`, `.unsupportedURL`, `.recentlyFailed`,
    ///   `.cancelled`; for files `.sourceUnavailable` or `.io`.
    public func data(for url: URL) async throws -> [UInt8] {
        try await download(url).chunks.collect(limit: configuration.maximumBodyBytes)
    }

    /// Like ``data(for:)``, in memory of its own (`ImageBytes`: mapped pages once large) rather
    /// than a heap array: what a process that loads many large originals should use.
    public func bytes(for url: URL) async throws -> ImageBytes {
        let download = try await download(url)
        return try await download.chunks.collectBytes(limit: configuration.maximumBodyBytes, expectedCount: download.expectedLength)
    }

    /// Starts loading the original at `url` and returns once its body can be read, as a stream
    /// of chunks: from the originals cache when it holds a fresh copy (or the server confirms a
    /// stale one), else from the network, writing the body to the originals cache as it arrives
    /// (published only once complete). For building things while the bytes arrive, such as a
    /// tile pyramid of a huge image.
    ///
    /// - Throws: what ``data(for:)`` throws, for failures before the body.
    public func download(_ url: URL) async throws -> OriginalDownload {
        switch url.scheme?.lowercased() {
        case "file":
            return try await fileDownload(url)
        case "http", "https":
            break
        default:
            throw ImageCacheError(
                .unsupportedURL, "only http, https and file URLs can be loaded, not '\(url.scheme ?? "")'", path: url.absoluteString)
        }
        if let refusal = failures.refusal(for: url) {
            counters.withLockedValue { $0.refusedWhileBackingOff += 1 }
            throw refusal
        }
        var stale: StoredOriginal?
        if let originals {
            let found = try await WorkerThreads.blockingIO.run { () throws -> Found? in
                guard let stored = originals.lookup(url) else { return nil }
                guard stored.header.isFresh(at: self.now()) else { return .stale(stored) }
                // Small bodies are read and checked at once; large ones as they are consumed.
                guard stored.header.bodyLength <= 4 << 20 else { return .fresh(stored, nil) }
                guard let body = try stored.readBody() else {
                    originals.discard(stored.name)
                    return nil
                }
                return .fresh(stored, body)
            }
            switch found {
            case .fresh(let stored, let body)?:
                return storedDownload(url, stored: stored, body: body, cache: originals)
            case .stale(let stored)?:
                stale = stored
            case nil:
                break
            }
        }
        let deadline = ContinuousClock.now + configuration.totalTimeout
        let opened: NetworkClient.Opened
        do {
            opened = try await network.open(url, etag: stale?.header.etag, lastModified: stale?.header.lastModified, deadline: deadline)
        } catch {
            let mapped = LoaderErrors.map(error, url: url)
            if mapped.code != .cancelled { failures.record(mapped, for: url) }
            throw mapped
        }
        switch opened {
        case .notModified(let headers):
            counters.withLockedValue { $0.notModified += 1 }
            guard let stale, let originals else {
                throw ImageCacheError(.network, "the server answered 304 to an unconditional request", path: url.absoluteString)
            }
            let refreshed = try await refresh(stale, url: url, headers: headers, in: originals)
            failures.forget(url)
            return refreshed
        case .body(let response, let permit, let length):
            counters.withLockedValue { $0.downloads += 1 }
            var entry: PendingEntry?
            let policy = CachePolicy(cacheControl: response.headers["cache-control"])
            if let originals, !policy.noStore, (length ?? 0) + EntryHeader.fixedLength < originals.maximumBytes {
                entry = PendingEntry(
                    cache: originals, storedAt: self.now(),
                    maximumAge: policy.maximumAge ?? configuration.defaultMaximumAge.map { $0.components.seconds },
                    etag: response.headers.first(name: "etag").flatMap { NetworkClient.isSafeHeaderValue($0) ? $0 : nil },
                    lastModified: response.headers.first(name: "last-modified").flatMap { NetworkClient.isSafeHeaderValue($0) ? $0 : nil })
            }
            let body = NetworkBody(url: url, expected: length, loader: self, permit: permit, deadline: deadline, entry: entry)
            return OriginalDownload(url: url, origin: .network, expectedLength: length, chunks: ByteChunks(.network(response.body, body)))
        }
    }

    /// What the originals cache holds for a URL.
    private enum Found: Sendable {
        /// Fresh, with its checked body when small.
        case fresh(StoredOriginal, [UInt8]?)
        /// Older than its maximum age: revalidate.
        case stale(StoredOriginal)
    }

    private func storedDownload(_ url: URL, stored: StoredOriginal, body: [UInt8]?, cache: OriginalsCache) -> OriginalDownload {
        let chunks =
            body.map { ByteChunks(.memory($0)) }
            ?? ByteChunks(.stored(stored.makeChunkReader(), StoredBody(name: stored.name, cache: cache)))
        return OriginalDownload(url: url, origin: .originalsCache, expectedLength: stored.header.bodyLength, chunks: chunks)
    }

    /// The server confirmed a stale copy: it is stored again with a new date (and whatever new
    /// validators and maximum age the answer gave), then served.
    private func refresh(_ stale: StoredOriginal, url: URL, headers: HTTPHeaders, in originals: OriginalsCache) async throws
        -> OriginalDownload
    {
        let policy = CachePolicy(cacheControl: headers["cache-control"])
        let etag = headers.first(name: "etag").flatMap { NetworkClient.isSafeHeaderValue($0) ? $0 : nil } ?? stale.header.etag
        let lastModified =
            headers.first(name: "last-modified").flatMap { NetworkClient.isSafeHeaderValue($0) ? $0 : nil } ?? stale.header.lastModified
        let maximumAge = policy.maximumAge ?? stale.header.maximumAge
        let body = try await WorkerThreads.blockingIO.run { () throws -> [UInt8]? in
            guard stale.header.bodyLength <= self.configuration.maximumBodyBytes, let body = try stale.readBody() else {
                originals.discard(stale.name)
                return nil
            }
            if !policy.noStore,
                let writer = try originals.makeWriter(
                    for: url, storedAt: self.now(), maximumAge: maximumAge, etag: etag, lastModified: lastModified)
            {
                try writer.write(body)
                try originals.commit(writer)
            }
            originals.countRevalidation()
            return body
        }
        guard let body else {
            // The stored copy was damaged after all: fetch it whole.
            return try await download(url)
        }
        return OriginalDownload(url: url, origin: .originalsCache, expectedLength: body.count, chunks: ByteChunks(.memory(body)))
    }

    private func fileDownload(_ url: URL) async throws -> OriginalDownload {
        let path = url.path(percentEncoded: false)
        let maximum = configuration.maximumBodyBytes
        let reader = try await WorkerThreads.blockingIO.run { try FileChunkReader(path: path, maximum: maximum) }
        return OriginalDownload(url: url, origin: .file, expectedLength: reader.length, chunks: ByteChunks(.file(reader)))
    }

    // MARK: ImageSourceProvider

    /// The encoded original at `url`, for the cache to decode (see ``bytes(for:)``).
    public func sourceImage(at url: URL, for entity: any ImageEntity) async throws -> SourceImage {
        .bytes(try await bytes(for: url))
    }
}
#endif
