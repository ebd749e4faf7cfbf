import FICCore
import Foundation
import ImageCodec
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
/// Each format has one file, `DIRECTORY/NAMESPACE/NAME.fictable`, and beside it the state processes
/// that share it coordinate through, `NAME.fictable-shared`. The namespace folder is the
/// cache's own: it is created private to the user (0700, files 0600) and never reached through a
/// symbolic link. Several processes (or cache objects) open one namespace at once: each looks
/// images up and stores them, and an image one stores is a hit in the others on their next
/// lookup (see `ImageTable`); a format defined differently by two of them is refused with
/// `.formatConflict`. The only files the cache ever removes are its own tables of formats no
/// longer configured (files with its extension and a valid table header), and their side files
/// (with the side file's signature), and only when no other cache has the namespace open and no
/// process has the table open; never folders, links or other files.
public final class ImageCache: Sendable {
    /// The directory that holds the namespaces.
    public let directory: String
    /// The namespace: a folder of `directory` that this cache owns.
    public let namespace: String
    /// The configured formats, in the order given.
    public let formats: [ImageFormat]
    /// The provider of source images, if any.
    public let provider: (any ImageSourceProvider)?
    /// What opening each format's table found and did (rebuilds, lost entries, crash recovery), by format name.
    public let openReports: [String: TableOpenReport]
    /// Whether the cache can only be read (asked for, or on a read-only file system).
    public let isReadOnly: Bool

    /// The formats' tables and the family policy that draws into them.
    let policy: FamilyPolicy
    /// Where requests wait, are fetched, decoded and drawn.
    let lanes: Lanes
    /// Where animations too large for their tables play from.
    let rings: AnimationRings
    let logger: Logger
    private let space: CacheNamespace

    /// Opens (or creates) the cache.
    ///
    /// - Parameters:
    ///   - directory: the folder that holds the namespaces (created when missing), such as
    ///     ``CacheDirectory/user(named:environment:)``'s path.
    ///   - namespace: the folder of `directory` this cache owns: 1 to 128 letters, digits, `.`,
    ///     `-` or `_`.
    ///   - formats: the formats, each with a table file of its own; names must differ.
    ///   - provider: where missing source images come from; nil for a cache that is only read,
    ///     or filled with ``setImage(_:for:format:)`` and ``storeImages(from:for:family:releasingPages:)``.
    ///   - options: read-only opening, accepting a cache folder that is a symbolic link,
    ///     and how long to wait for a process that keeps the namespace or a table to itself.
    ///   - logger: where the cache logs (it never prints).
    /// - Throws: `ImageCacheError`: `.invalidFormat` for a bad namespace or duplicate format
    ///   names, `.formatConflict` when another process has a table of a format of the same name
    ///   open with another definition, `.inUse` when a process keeps the namespace or a table to
    ///   itself (its removal under way, a reader alone),
    ///   `.unsafePath` for a linked folder, `.readOnly`, `.noSpace` or `.io` when the files cannot
    ///   be opened or created.
    public init(
        directory: String, namespace: String = "default", formats: [ImageFormat], provider: (any ImageSourceProvider)? = nil,
        options: TableOpenOptions = .init(), logger: Logger = Logger(label: "FastImageCache")
    ) throws {
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
        let space = try CacheNamespace(directory: directory, namespace: namespace, options: options, logger: logger)
        self.space = space
        isReadOnly = space.isReadOnly
        let keys = KeyMemo()
        var opened: [FormatTable] = []
        do {
            for format in formats {
                opened.append(
                    try FormatTable(
                        format: format, namespace: space, fileExtension: Self.fileExtension, options: options, keys: keys, logger: logger))
            }
        } catch {
            for t in opened { t.table.close() }
            space.unlock()
            throw ImageCacheError.wrap(error, format: nil, code: .io)
        }
        // Alone, with its own tables open (so that no other process can remove them), it removes
        // the tables of formats it no longer has; then other caches may open the namespace.
        space.removeTablesOfOtherFormats(keeping: seen, fileExtension: Self.fileExtension, logger: logger)
        space.share()
        let tables = FormatTables(opened)
        self.openReports = Dictionary(uniqueKeysWithValues: opened.map { ($0.format.name, $0.table.openReport) })
        let policy = FamilyPolicy(
            formats: formats, tables: tables, keys: keys, provider: provider, counters: CacheCounters(),
            claimTimeout: options.claimTimeout, logger: logger)
        self.policy = policy
        let lanes = Lanes(policy: policy, logger: logger)
        self.lanes = lanes
        self.rings = AnimationRings(lanes: lanes, logger: logger)
    }

    /// Each format's table, by format name.
    var tables: FormatTables { policy.tables }
    private var keys: KeyMemo { policy.keys }

    /// The extension of table files.
    public static let fileExtension = ".fictable"

    /// The format named `name`, if configured.
    public func format(named name: String) -> ImageFormat? { tables[name]?.format }

    func table(_ name: String) throws -> FormatTable {
        guard let t = tables[name] else {
            throw ImageCacheError(
                .unknownFormat, "no format named '\(name)' is configured; configured: \(formats.map(\.name).joined(separator: ", "))",
                format: name)
        }
        return t
    }

    // MARK: Synchronous retrieval

    /// Returns the stored image of `entity` in `format` now, or nil if it is missing or stale.
    ///
    /// This is the path a scrolling frame takes: constant time, no provider, no decoding, no
    /// waiting on writers or on the disk beyond page-ins of the pixels themselves. Each call is
    /// one of the format's ``FormatStatistics/hits`` or ``FormatStatistics/misses``.
    public func cachedImage(for entity: some ImageEntity, format: String) -> CachedImage? {
        guard let t = tables[format] else { return nil }
        return t.lookups.counted(policy.cachedImage(for: entity, in: t))
    }

    /// Returns the stored image of the entity named `entityID` in `format`, whatever source
    /// version it was drawn from, or nil. For tools that know only an identifier. Counted as
    /// ``cachedImage(for:format:)`` is.
    public func cachedImage(entityID: String, format: String) -> CachedImage? {
        guard let t = tables[format] else { return nil }
        return t.lookups.counted(t.table.pinnedImage(for: keys.key(entityID)).map { CachedImage(table: t, pinned: $0, entityID: entityID) })
    }

    /// Whether an up-to-date image of `entity` in `format` is stored (an animation that a
    /// process stopped in the middle of storing is not, until its frames are stored again).
    public func containsImage(for entity: some ImageEntity, format: String) -> Bool {
        guard let t = tables[format] else { return false }
        let (entityKey, sourceKey) = keys.keys(entity.entityID, entity.sourceImageID)
        return t.table.contains(entityKey, source: sourceKey) && !t.isLeftHalfStored(entity: entityKey, source: sourceKey)
    }

    /// The stored image of `entity` in `format` for a request: ``cachedImage(for:format:)``
    /// (not counted: a request counts its own first look), except for an animation left half
    /// stored by a process that stopped, which a request stores again (its frame 0 is then
    /// returned when the job has read the source).
    func storedForRequest(_ entity: some ImageEntity, format: String) -> CachedImage? {
        guard let image = policy.cachedImage(for: entity, format: format) else { return nil }
        return policy.isLeftHalfStored(entity, format: format) ? nil : image
    }

    // MARK: Setting and deleting

    /// Draws `source` into `format` for `entity` with the entity's draw method and stores it,
    /// replacing any older image.
    @discardableResult
    public func setImage(_ source: DecodedImage, for entity: some ImageEntity, format: String) throws -> CachedImage {
        let t = try table(format)
        return try t.draw(entity, from: source)
    }

    /// Decodes `bytes` (JPEG, PNG, WebP, HEIC, AVIF, JPEG XL, GIF or TIFF) at the size `format` needs and stores the image of
    /// `entity` drawn from it.
    @discardableResult
    public func setImage(encoded bytes: [UInt8], for entity: some ImageEntity, format: String) throws -> CachedImage {
        let t = try table(format)
        let source = try policy.decode(.encoded(bytes), target: t.format.pixelSize, format: format)
        return try t.draw(entity, from: source)
    }

    /// Deletes the image of `entity` in `format`. Returns whether there was one.
    /// An animation's other frames and its record go with it.
    @discardableResult
    public func deleteImage(for entity: some ImageEntity, format: String) -> Bool {
        guard let t = tables[format] else { return false }
        let key = keys.key(entity.entityID)
        rings.drop(entity: key)
        t.removeAnimation(of: key)
        return t.table.remove(key)
    }

    /// Deletes the images of `entity` in every format (with an animation's frames and record).
    public func deleteImages(for entity: some ImageEntity) {
        let key = keys.key(entity.entityID)
        rings.drop(entity: key)
        for t in tables.values {
            t.removeAnimation(of: key)
            t.table.remove(key)
        }
    }

    /// Empties every table and drops the animations' rings; an animation's frames still being
    /// stored are not stored. Images still held stay valid until released.
    public func reset() throws {
        rings.dropAll()
        for t in tables.values {
            do { try t.table.removeAll() } catch { throw ImageCacheError.wrap(error, format: t.format.name, code: .io) }
        }
    }

    /// Flushes and closes every table, then unlocks the namespace; pending requests fail with
    /// `.closed`. Images still held stay valid and unchanged (they are detached from the files).
    ///
    /// Optional: a process that ends without it (killed, or returning from `main`) loses only the
    /// recency since the last ``synchronize()`` and the image it was writing; the next open on
    /// the same boot serves every other stored image with no check (see `TableOpenReport.UncleanStop`).
    public func close() {
        lanes.close()
        rings.dropAll()
        for t in tables.values { t.table.close() }
        space.unlock()
    }

    // MARK: Usage

    /// Counters and sizes per format, and the number of source fetches and decodes.
    public var statistics: CacheStatistics {
        let perFormat = formats.compactMap { f -> FormatStatistics? in
            guard let s = tables[f.name]?.table.statistics else { return nil }
            let a = tables[f.name]?.animationCounts.withLockedValue { $0 } ?? FormatTable.AnimationCounts()
            let lookups = tables[f.name]?.lookups.snapshot ?? (hits: 0, misses: 0)
            return FormatStatistics(
                format: f.name, count: s.count, maximumCount: s.maximumCount, diskBytes: s.fileBytes, hits: lookups.hits,
                misses: lookups.misses, evictions: s.evictions, inserts: s.inserts,
                animationsTooLarge: a.tooLarge, ringAnimations: a.ring, ringFrameDecodes: a.ringFrameDecodes, ringRestarts: a.ringRestarts)
        }
        let counts = policy.counters.snapshot()
        return CacheStatistics(
            formats: perFormat, sourceFetches: counts.fetches, sourceDecodes: counts.decodes, animationRings: rings.count,
            storesThatWaited: counts.storesThatWaited, storesMadeByOthers: counts.storesMadeByOthers)
    }

    /// Lets the kernel drop every mapped page of every table from the process's resident memory
    /// (for example after a bulk import, or when the system is short of memory). Nothing is lost:
    /// pages are read back from the files when images are next used. The animations' rings are
    /// dropped too: they decode their frames again when next played.
    public func releaseResidentMemory() {
        rings.dropAll()
        for t in tables.values { t.table.releaseResidentMemory() }
    }

    /// Makes the process's `malloc` (glibc's) return every freed block of 128 KiB or more to the
    /// system at once, as it does for the first ones, instead of raising that size as it goes and
    /// keeping later blocks in its heap.
    ///
    /// A process that decodes large images one after another (HEIC and AVIF planes are tens of
    /// MB each) otherwise holds freed planes resident: `fic ingest` of 40 large HEICs peaked at
    /// 161 MB without this and 129 MB with it, in the same time. Process-wide, so it is the
    /// application's choice: call it once at start (`fic` does). Returns false when the process's
    /// allocator is not glibc's.
    @discardableResult
    public static func returnFreedMemoryPromptly() -> Bool {
        MallocTuning.fixMappingThreshold(128 << 10)
    }

    /// Bytes the cache's files occupy on disk.
    public var diskUsage: Int { statistics.diskBytes }
}
