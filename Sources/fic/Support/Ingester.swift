#if Tool
import FICCommandLine
import FastImageCache
import Foundation
import ImageCodec

/// Adds one image file to a cache: estimate from its header what decoding it needs, wait for that
/// much of the shared memory budget, read it (one `pread` into memory of its own), hash it, decode
/// it once at the largest size of the family, store every format that lacks the image, and let go
/// of everything before the budget is released. Safe to use from many tasks at once.
struct Ingester: Sendable {
    /// What became of one file.
    enum Outcome: Sendable {
        /// Stored in every format; `warnings` lists recoverable damage decoded past.
        case added(warnings: [String])
        /// Already stored from the same bytes.
        case unchanged
        /// Not stored, and why.
        case refused(String)
    }

    /// What became of one file, and the memo row to keep for it (nil: not to be trusted).
    struct Ingested: Sendable {
        let outcome: Outcome
        let row: SourceMemo.Row?
    }

    let cache: ImageCache
    let budget: DecodeMemoryBudget
    /// The decoding options: the size of the family's largest format.
    let options: DecodingOptions
    /// The entity of a file (its relative path, the hash of its bytes, the file): how it is drawn.
    let entity: @Sendable (String, String, URL) -> any ImageEntity

    init(
        cache: ImageCache, budget: DecodeMemoryBudget,
        entity: @escaping @Sendable (String, String, URL) -> any ImageEntity = { FileEntity(entityID: $0, sourceImageID: $1, url: $2) }
    ) {
        self.cache = cache
        self.budget = budget
        self.entity = entity
        options = DecodingOptions(targetSize: cache.decodeSize(forFamiliesOf: cache.formats.map(\.name)))
    }

    /// Stores `file` in every format.
    ///
    /// - Throws: ``CLIError`` for failures of the cache itself (disk full, I/O), which stop the
    ///   run; `CancellationError` when the task is cancelled while it waits for memory.
    func ingest(_ file: ImageFiles.Found) async throws -> Ingested {
        let estimate: DecodeMemoryEstimate
        do {
            estimate = try ImageDecoder.estimatedMemory(ofFileAt: file.path, options: options)
        } catch let error as ImageCacheError {
            return Ingested(outcome: .refused(Self.reason(error)), row: nil)
        }
        let reservation = try await budget.reserve(estimate.totalBytes)
        defer { reservation.release() }
        return try store(file)
    }

    /// Reads, decodes and stores `file`; everything it allocates is gone when it returns.
    private func store(_ file: ImageFiles.Found) throws -> Ingested {
        let hashed: SourceMemo.Hashed
        do {
            hashed = try SourceMemo.readAndHash(file.path)
        } catch let error as ImageCacheError {
            return Ingested(outcome: .refused(Self.reason(error)), row: nil)
        }
        return Ingested(outcome: try store(file, hashed.bytes, hash: hashed.hash), row: hashed.row)
    }

    /// Decodes and stores `bytes`, the content of `file`, unless every format holds them already.
    private func store(_ file: ImageFiles.Found, _ bytes: ImageBytes, hash: String) throws -> Outcome {
        let entity = self.entity(file.relativePath, hash, URL(fileURLWithPath: file.path))
        if cache.containsImages(for: entity) {
            return .unchanged
        }
        // One decode of a still image or of an animation's frames, by the cache's family policy,
        // once any other process or thread storing the same image (a viewer on the same cache,
        // another ingest) has finished.
        do {
            let stored = try cache.storeImages(from: .bytes(bytes), for: entity, releasingPages: true)
            return stored.decoded ? .added(warnings: stored.warnings) : .unchanged
        } catch let error as ImageCacheError where [.decodingFailed, .drawingFailed, .sourceUnavailable].contains(error.code) {
            return .refused((error.underlying as? ImageCacheError).map(Self.reason) ?? error.message)
        } catch {
            throw CLIError("cannot store \(file.relativePath): \(error)")
        }
    }

    /// The reason shown for a refused file.
    private static func reason(_ error: ImageCacheError) -> String {
        error.code == .io ? "cannot read it: \(error.message)" : error.message
    }
}
#endif
