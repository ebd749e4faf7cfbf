#if Tool
import FICCommandLine
import FICCore
import FastImageCache
import Foundation
import ImageLoader

/// The URL half of `fic ingest`: originals loaded through the originals cache (a second run over
/// the same list downloads nothing it still holds) and stored in every format of the family by
/// the library's own ingest (`OriginalsLoader.ingest`), with progress in images and bytes.
enum URLIngest {
    /// What an ingest of URLs did.
    struct Outcome {
        /// URLs whose images were stored now.
        var added = 0
        /// URLs whose images were already stored.
        var unchanged = 0
        /// URLs that failed (each reported on stderr).
        var failed = 0
        /// Bytes downloaded from the network.
        var bytesDownloaded = 0
        /// Bytes read from the originals cache or from files.
        var bytesRead = 0
    }

    /// `text` (a command-line argument) as an http, https or file URL with a host (or a path, for
    /// file URLs), or nil: then it is a folder or file of images.
    static func parse(_ text: String) -> URL? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased() else { return nil }
        switch scheme {
        case "http", "https": return url.host?.isEmpty == false ? url : nil
        case "file": return url.path.isEmpty ? nil : url
        default: return nil
        }
    }

    /// Ingests `urls` into `cache` (every format of `family`), `jobs` URLs at a time, keeping
    /// originals in `originals` (at most `originalsLimit` bytes). Each failure is reported on
    /// stderr with its URL and reason.
    static func run(_ urls: [URL], cache: ImageCache, family: String, originals: String, originalsLimit: Int, jobs: Int) async throws
        -> Outcome
    {
        let store: OriginalsCache
        do {
            store = try OriginalsCache(directory: originals, maximumBytes: originalsLimit)
        } catch let error as ImageCacheError {
            throw CLIError("cannot open the originals cache: \(error)")
        }
        let loader = OriginalsLoader(originals: store, logger: CacheOpener.quietLogger)
        let bar = LockedBox(ProgressBar(total: urls.count))
        let last = LockedBox(Outcome())
        let results = await loader.ingest(urls, into: cache, family: family, maximumInFlight: max(jobs, 1) * 4) { p in
            let label = "\(Formatting.bytes(p.bytesDownloaded)) downloaded, \(Formatting.bytes(p.bytesRead)) read"
            bar.withLockedValue { $0.update(p.finished, label: label) }
            last.withLockedValue { seen in  // reports may arrive out of order; every count only grows
                seen.bytesDownloaded = max(seen.bytesDownloaded, p.bytesDownloaded)
                seen.bytesRead = max(seen.bytesRead, p.bytesRead)
            }
        }
        do { try await loader.shutdown() } catch { Terminal.error("note: the HTTP client did not shut down cleanly: \(error)") }
        bar.withLockedValue { $0.clear() }
        var outcome = last.withLockedValue { $0 }
        for (url, result) in zip(urls, results) {
            switch result {
            case .success(let image):
                if image.wasStored { outcome.unchanged += 1 } else { outcome.added += 1 }
            case .failure(let error):
                outcome.failed += 1
                Terminal.error("refused \(url.absoluteString): \(error.message)")
            }
        }
        return outcome
    }
}
#endif
