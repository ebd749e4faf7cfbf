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
    let formats: [ImageFormat]
    /// The size one decode must cover for every format.
    let targetSize: PixelSize
    private(set) var counts = Counts()

    init(cache: ImageCache, formats: [ImageFormat]) {
        self.cache = cache
        self.formats = formats
        targetSize = PixelSize(
            width: formats.map(\.pixelSize.width).max() ?? 1,
            height: formats.map(\.pixelSize.height).max() ?? 1)
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
        let missing = formats.filter { !cache.containsImage(for: entity, format: $0.name) }
        if missing.isEmpty {
            counts.unchanged += 1
            return nil
        }
        let decoded: DecodedImage
        do {
            decoded = try ImageDecoder.decode(bytes, options: DecodingOptions(targetSize: targetSize))
        } catch let error as ImageCacheError {
            counts.refused += 1
            return error.message
        }
        do {
            for format in missing {
                let image = try cache.setImage(decoded, for: entity, format: format.name)
                image.releaseResidentPages()
            }
            counts.added += 1
            return nil
        } catch let error as ImageCacheError where error.code == .drawingFailed {
            counts.refused += 1
            return error.description
        } catch {
            throw CLIError("cannot store \(file.relativePath): \(error)")
        }
    }
}
