#if Loader
import FICCore
import FastImageCache
import Foundation

/// An image known only by its URL: identified by the URL, its version a hash of its bytes, so
/// that a changed file at the same URL is drawn again.
public struct URLImageEntity: ImageEntity, Hashable {
    /// Where the original is.
    public let url: URL
    /// The version of the original (a hash of its bytes, or any text that changes with it).
    public let sourceImageID: String

    /// An entity for `url` whose original has the version `sourceImageID`.
    public init(url: URL, sourceImageID: String) {
        self.url = url
        self.sourceImageID = sourceImageID
    }

    /// An entity for `url` versioned by the SHA-256 of `bytes` (its first 128 bits).
    public init(url: URL, contents bytes: some ContiguousBytes) {
        self.url = url
        sourceImageID = bytes.withUnsafeBytes { SHA256Hex.digest(of: $0, length: 16) }
    }

    /// The URL's absolute string.
    public var entityID: String { url.absoluteString }

    /// The URL, for every format.
    public func sourceImageURL(for format: ImageFormat) -> URL? { url }
}

/// How far an ingest has come.
public struct IngestProgress: Sendable, Hashable {
    /// URLs to ingest.
    public var total: Int
    /// URLs finished (stored, already stored, or failed).
    public var finished = 0
    /// URLs whose images were stored now.
    public var stored = 0
    /// URLs whose images were stored before (nothing drawn).
    public var unchanged = 0
    /// URLs that failed.
    public var failed = 0
    /// Bytes downloaded from the network so far.
    public var bytesDownloaded = 0
    /// Bytes read from the originals cache or from files so far (no network).
    public var bytesRead = 0
}

/// One URL ingested.
public struct IngestedImage: Sendable {
    /// The URL.
    public let url: URL
    /// The entity its images are stored under.
    public let entity: URLImageEntity
    /// Where its bytes came from.
    public let origin: DownloadOrigin
    /// The original's size.
    public let bytes: Int
    /// Whether every format already held an up-to-date image (nothing was drawn).
    public let wasStored: Bool
}

extension OriginalsLoader {
    /// Loads each of `urls` through the originals cache and stores its images in `cache` (every
    /// format of `family`, or every format), with at most `maximumInFlight` URLs at once. The
    /// library side of importing a list of URLs: a second run over the same list downloads
    /// nothing the originals cache still holds.
    ///
    /// Decoding and drawing run on the cache's CPU threads at `priority`, so an import does not
    /// hold up images wanted on screen. A URL listed twice is loaded once.
    ///
    /// - Parameters:
    ///   - urls: the originals to load: http, https or file URLs.
    ///   - cache: the cache that stores the images, each under a ``URLImageEntity``.
    ///   - family: the family whose formats are filled; nil fills every format of the cache.
    ///   - maximumInFlight: the most URLs loaded at once.
    ///   - priority: the priority of the decoding and drawing on the cache's CPU threads.
    ///   - progress: called as bytes arrive and as each URL finishes, from any thread but
    ///     one call at a time and in order (every count only grows); keep it short, and do not
    ///     start another ingest from it.
    /// - Returns: one result per URL, in the order given.
    public func ingest(
        _ urls: [URL], into cache: ImageCache, family: String? = nil, maximumInFlight: Int = 8,
        priority: RequestPriority = .normal,
        progress: @escaping @Sendable (IngestProgress) -> Void = { _ in }
    ) async -> [Result<IngestedImage, ImageCacheError>] {
        var firstIndex: [URL: Int] = [:]
        var unique: [URL] = []
        var copies: [Int] = []
        for url in urls {
            if let i = firstIndex[url] {
                copies[i] += 1
            } else {
                firstIndex[url] = unique.count
                unique.append(url)
                copies.append(1)
            }
        }
        let state = LockedBox(IngestProgress(total: urls.count))
        // Reported under the lock, so reports arrive one at a time and in order: each count only grows.
        let report: @Sendable ((inout IngestProgress) -> Void) -> Void = { change in
            state.withLockedValue { p in
                change(&p)
                progress(p)
            }
        }
        var results = [Result<IngestedImage, ImageCacheError>?](repeating: nil, count: unique.count)
        await withTaskGroup(of: (Int, Result<IngestedImage, ImageCacheError>).self) { group in
            var next = 0
            func startNext() {
                guard next < unique.count else { return }
                let (i, url) = (next, unique[next])
                next += 1
                group.addTask {
                    (i, await self.ingestOne(url, into: cache, family: family, priority: priority, report: report))
                }
            }
            for _ in 0..<max(1, maximumInFlight) { startNext() }
            for await (i, result) in group {
                results[i] = result
                let copies = copies[i]
                report { p in
                    p.finished += copies
                    switch result {
                    case .success(let image): if image.wasStored { p.unchanged += copies } else { p.stored += copies }
                    case .failure: p.failed += copies
                    }
                }
                startNext()
            }
        }
        return urls.map {
            results[firstIndex[$0]!] ?? .failure(ImageCacheError(.cancelled, "the ingest was cancelled", path: $0.absoluteString))
        }
    }

    private func ingestOne(
        _ url: URL, into cache: ImageCache, family: String?, priority: RequestPriority,
        report: @Sendable ((inout IngestProgress) -> Void) -> Void
    ) async -> Result<IngestedImage, ImageCacheError> {
        do {
            let download = try await download(url)
            // In memory of its own (mapped pages once large), never a growing heap array.
            let bytes = try await download.chunks.collectBytes(
                limit: configuration.maximumBodyBytes, expectedCount: download.expectedLength
            ) { chunk in
                report { p in
                    if download.origin == .network { p.bytesDownloaded += chunk.count } else { p.bytesRead += chunk.count }
                }
            }
            let entity = URLImageEntity(url: url, contents: bytes)
            let wasStored = cache.containsImages(for: entity, family: family)
            if !wasStored {
                try await cache.storeImages(from: .bytes(bytes), for: entity, family: family, releasingPages: true, priority: priority)
            }
            return .success(IngestedImage(url: url, entity: entity, origin: download.origin, bytes: bytes.count, wasStored: wasStored))
        } catch let error as ImageCacheError {
            return .failure(error.adding(path: url.absoluteString))
        } catch {
            return .failure(LoaderErrors.map(error, url: url))
        }
    }
}
#endif
