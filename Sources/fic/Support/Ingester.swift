import FastImageCache
import Foundation

/// Adds image files to a cache one at a time: read, hash, decode once at the largest size of
/// the family, draw every format that lacks the image, let go of everything before the next
/// file. Peak memory is one file's bytes plus one decoded image, however many files there are.
struct Ingester {
    /// How many files were added, skipped as unchanged, or refused.
    struct Counts {
        var added = 0
        var unchanged = 0
        var refused = 0
    }

    let cache: ImageCache
    private(set) var counts = Counts()

    init(cache: ImageCache) {
        self.cache = cache
    }

    /// Stores `file` in every format. Returns nil when it was stored (or already was), or the
    /// reason it was refused.
    ///
    /// - Throws: ``CLIError`` for failures of the cache itself (disk full, I/O), which stop the run.
    mutating func ingest(_ file: ImageFiles.Found) throws -> String? {
        let bytes: Data
        do {
            bytes = try Data(contentsOf: URL(fileURLWithPath: file.path))
        } catch {
            counts.refused += 1
            return "cannot read it: \(error.localizedDescription)"
        }
        let entity = FileEntity(entityID: file.relativePath, sourceImageID: FileEntity.contentHash(bytes), url: URL(fileURLWithPath: file.path))
        if cache.formats.allSatisfy({ cache.containsImage(for: entity, format: $0.name) }) {
            counts.unchanged += 1
            return nil
        }
        do {
            try cache.storeImages(from: .encoded([UInt8](bytes)), for: entity, releasingPages: true)
            counts.added += 1
            return nil
        } catch let error as ImageCacheError where error.code == .decodingFailed || error.code == .drawingFailed {
            counts.refused += 1
            return (error.underlying as? ImageCacheError)?.message ?? error.description
        } catch {
            throw CLIError("cannot store \(file.relativePath): \(error)")
        }
    }
}
