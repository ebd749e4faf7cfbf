import Foundation
import Logging

/// Stores images of several formats in memory-mapped table files and returns them without
/// decoding or copying.
///
/// ```swift
/// let thumb = try ImageFormat(name: "thumb", family: "photos", size: CGSize(width: 75, height: 75),
///                             scale: 2, style: .rgb565, maximumCount: 1000)
/// let cache = try ImageCache(directory: dir, namespace: "app", formats: [thumb],
///                            provider: FileSourceProvider())
/// if let image = cache.cachedImage(for: photo, format: "thumb") { draw(image) }   // now, or nil
/// let image = try await cache.image(for: photo, format: "thumb")                  // fetch if needed
/// ```
///
/// Each format has one file, `DIRECTORY/NAMESPACE/NAME.fictable`. Caches with different
/// namespaces in one directory never touch each other's files; files in the namespace that
/// belong to no configured format are removed when the cache opens.
public final class ImageCache: Sendable {
    /// The directory that holds the namespaces.
    public let directory: String
    /// The namespace: a folder of `directory` that this cache owns.
    public let namespace: String
    /// The configured formats, in the order given.
    public let formats: [ImageFormat]
    /// The provider of source images, if any.
    public let provider: (any ImageSourceProvider)?

    let tables: [String: FormatTable]
    let families: [String: [FormatTable]]
    let requests: RequestCoordinator
    let counters = CacheCounters()
    let logger: Logger

    /// Opens (or creates) the cache.
    ///
    /// - Throws: ``ImageCacheError``: `.invalidFormat` for a bad namespace or duplicate format
    ///   names, `.inUse` when another process has the cache open, `.storage`/`.noSpace` when the
    ///   files cannot be created.
    public init(directory: String, namespace: String = "default", formats: [ImageFormat], provider: (any ImageSourceProvider)? = nil, logger: Logger = Logger(label: "FastImageCache")) throws {
        try ImageFormat.validateName(namespace, what: "namespace")
        var seen = Set<String>()
        for f in formats where !seen.insert(f.name).inserted {
            throw ImageCacheError(.invalidFormat, "two formats are named '\(f.name)'", format: f.name)
        }
        self.directory = directory
        self.namespace = namespace
        self.formats = formats
        self.provider = provider
        self.logger = logger
        let folder = (directory as NSString).appendingPathComponent(namespace)
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw ImageCacheError(.io, "cannot create the cache directory", path: folder, underlying: error)
        }
        Self.removeStrayFiles(in: folder, keeping: seen, logger: logger)
        var tables: [String: FormatTable] = [:]
        do {
            for format in formats {
                let path = (folder as NSString).appendingPathComponent(format.name + Self.fileExtension)
                tables[format.name] = try FormatTable(format: format, path: path, logger: logger)
            }
        } catch {
            for t in tables.values { t.table.close() }
            throw ImageCacheError.wrap(error, format: nil, code: .io)
        }
        self.tables = tables
        self.families = Dictionary(grouping: formats.compactMap { tables[$0.name] }, by: { $0.format.family })
        self.requests = RequestCoordinator()
    }

    /// The extension of table files.
    public static let fileExtension = ".fictable"

    private static func removeStrayFiles(in folder: String, keeping names: Set<String>, logger: Logger) {
        guard let items = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for item in items {
            let isTable = item.hasSuffix(fileExtension) && names.contains(String(item.dropLast(fileExtension.count)))
            if isTable { continue }
            let path = (folder as NSString).appendingPathComponent(item)
            do {
                try FileManager.default.removeItem(atPath: path)
                logger.info("removed a file that belongs to no configured format", metadata: ["path": "\(path)"])
            } catch {
                logger.warning("could not remove a stray cache file: \(error)", metadata: ["path": "\(path)"])
            }
        }
    }

    /// The format named `name`, if configured.
    public func format(named name: String) -> ImageFormat? { tables[name]?.format }

    func table(_ name: String) throws -> FormatTable {
        guard let t = tables[name] else {
            throw ImageCacheError(.unknownFormat, "no format named '\(name)' is configured; configured: \(formats.map(\.name).joined(separator: ", "))", format: name)
        }
        return t
    }

    // MARK: Synchronous retrieval

    /// Returns the stored image of `entity` in `format` now, or nil if it is missing or stale.
    ///
    /// This is the path a scrolling frame takes: constant time, no provider, no decoding, no
    /// waiting on writers or on the disk beyond page-ins of the pixels themselves.
    public func cachedImage(for entity: some ImageEntity, format: String) -> CachedImage? {
        guard let t = tables[format] else { return nil }
        guard let stored = t.table.image(for: TableKey(entity.entityID), source: TableKey(entity.sourceImageID)) else { return nil }
        return CachedImage(table: t, storage: stored)
    }

    /// Returns the stored image of the entity named `entityID` in `format`, whatever source
    /// version it was drawn from, or nil. For tools that know only an identifier.
    public func cachedImage(entityID: String, format: String) -> CachedImage? {
        guard let t = tables[format], let stored = t.table.image(for: TableKey(entityID)) else { return nil }
        return CachedImage(table: t, storage: stored)
    }

    /// Whether an up-to-date image of `entity` in `format` is stored.
    public func containsImage(for entity: some ImageEntity, format: String) -> Bool {
        tables[format]?.table.contains(TableKey(entity.entityID), source: TableKey(entity.sourceImageID)) ?? false
    }

    // MARK: Setting and deleting

    /// Draws `source` into `format` for `entity` with the entity's draw method and stores it,
    /// replacing any older image.
    @discardableResult
    public func setImage(_ source: DecodedImage, for entity: some ImageEntity, format: String) throws -> CachedImage {
        let t = try table(format)
        return try t.draw(entity, from: source)
    }

    /// Decodes `bytes` (JPEG, PNG or WebP) at the size `format` needs and stores the image of
    /// `entity` drawn from it.
    @discardableResult
    public func setImage(encoded bytes: [UInt8], for entity: some ImageEntity, format: String) throws -> CachedImage {
        let t = try table(format)
        let source = try decodeSource(.encoded(bytes), target: t.format.pixelSize, format: format)
        return try t.draw(entity, from: source)
    }

    /// Deletes the image of `entity` in `format`. Returns whether there was one.
    @discardableResult
    public func deleteImage(for entity: some ImageEntity, format: String) -> Bool {
        tables[format]?.table.remove(TableKey(entity.entityID)) ?? false
    }

    /// Deletes the images of `entity` in every format.
    public func deleteImages(for entity: some ImageEntity) {
        let key = TableKey(entity.entityID)
        for t in tables.values { t.table.remove(key) }
    }

    /// Empties every table. Images still held stay valid until released.
    public func reset() throws {
        for t in tables.values {
            do { try t.table.removeAll() } catch { throw ImageCacheError.wrap(error, format: t.format.name, code: .io) }
        }
    }

    /// Flushes and closes every table; pending requests fail with `.closed`.
    public func close() {
        requests.cancelAll()
        for t in tables.values { t.table.close() }
    }

    // MARK: Usage

    /// Counters and sizes per format, and the number of source fetches and decodes.
    public var statistics: CacheStatistics {
        let perFormat = formats.compactMap { f -> FormatStatistics? in
            guard let s = tables[f.name]?.table.statistics else { return nil }
            return FormatStatistics(format: f.name, count: s.count, maximumCount: s.maximumCount, diskBytes: s.fileBytes, hits: s.hits, misses: s.misses, evictions: s.evictions, inserts: s.inserts)
        }
        let (fetches, decodes) = counters.snapshot()
        return CacheStatistics(formats: perFormat, sourceFetches: fetches, sourceDecodes: decodes)
    }

    /// Lets the kernel drop every mapped page of every table from the process's resident memory
    /// (for example after a bulk import, or when the system is short of memory). Nothing is lost:
    /// pages are read back from the files when images are next used.
    public func releaseResidentMemory() {
        for t in tables.values { t.table.releaseResidentMemory() }
    }

    /// Bytes the cache's files occupy on disk.
    public var diskUsage: Int { statistics.diskBytes }

    // MARK: Decoding

    func decodeSource(_ source: SourceImage, target: PixelSize, format: String?) throws -> DecodedImage {
        switch source {
        case .decoded(let image):
            return image
        case .encoded(let bytes):
            counters.countDecode()
            do {
                return try ImageDecoder.decode(bytes, options: DecodingOptions(targetSize: target))
            } catch {
                throw ImageCacheError.decoding(error, format: format)
            }
        }
    }
}

/// One format and its open table.
final class FormatTable: Sendable {
    let format: ImageFormat
    let table: ImageTable

    init(format: ImageFormat, path: String, logger: Logger) throws {
        self.format = format
        let p = format.pixelSize
        table = try ImageTable(path: path, configuration: TableConfiguration(
            pixelWidth: p.width, pixelHeight: p.height, bytesPerPixel: format.style.bytesPerPixel,
            maximumCount: format.maximumCount, identity: format.identity), logger: logger)
    }

    /// Draws `source` for `entity` straight into a new slot of the table.
    func draw(_ entity: some ImageEntity, from source: DecodedImage) throws -> CachedImage {
        let p = format.pixelSize
        let bytesPerRow = table.configuration.bytesPerRow
        let format = self.format
        do {
            let stored = try table.insert(entity: TableKey(entity.entityID), source: TableKey(entity.sourceImageID), label: entity.entityID) { pixels in
                let canvas = try ImageCanvas(pixels: pixels, pixelWidth: p.width, pixelHeight: p.height, bytesPerRow: bytesPerRow, pixelFormat: format.style, scale: CGFloat(format.scale))
                canvas.clear()
                try entity.draw(source, format: format, canvas: canvas)
                canvas.finish()
            }
            return CachedImage(table: self, storage: stored)
        } catch {
            throw ImageCacheError.wrap(error, format: format.name, code: .drawingFailed)
        }
    }
}
