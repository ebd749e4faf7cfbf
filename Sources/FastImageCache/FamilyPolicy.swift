import Foundation
import ImageCodec
import ImageTable
import Logging

/// The configured formats with their open tables, and the one place where the family policy
/// lives: a source is decoded once, at the largest pixel size any format of its family needs,
/// and every format of the family that lacks an up-to-date image of the entity is drawn from
/// that one decode.
///
/// A value of its own rather than methods of ``ImageCache``, so that the lanes' decoding stage
/// can hold it without holding the cache (which holds the lanes): the cache, its synchronous
/// imports, its background imports and its requests all draw through this one value.
struct FamilyPolicy: Sendable {
    /// The configured formats, in the order given.
    let formats: [ImageFormat]
    /// Each format's table, by format name.
    let tables: FormatTables
    /// The tables of each family, in configuration order.
    let families: [String: [FormatTable]]
    /// The memo of entity keys shared with the tables.
    let keys: KeyMemo
    /// Asked whether a family should be drawn beside the format requested.
    let provider: (any ImageSourceProvider)?
    /// Counts the decodes.
    let counters: CacheCounters
    /// The cache's logger: recoverable damage a decode went past is logged there.
    let logger: Logger
    /// How long a store waits for another maker of the same images before it makes them itself
    /// (`TableOpenOptions.claimTimeout`; only a stopped maker keeps it waiting that long: the
    /// claim dies with its holder).
    let claimTimeout: Duration

    init(
        formats: [ImageFormat], tables: FormatTables, keys: KeyMemo, provider: (any ImageSourceProvider)?, counters: CacheCounters,
        claimTimeout: Duration, logger: Logger
    ) {
        self.claimTimeout = claimTimeout
        self.formats = formats
        self.tables = tables
        self.families = Dictionary(grouping: formats.compactMap { tables[$0.name] }, by: { $0.format.family })
        self.keys = keys
        self.provider = provider
        self.counters = counters
        self.logger = logger
    }

    /// The stored, up-to-date image of `entity` in `format`, or nil: the frame path's lookup,
    /// and the cache's own looks, which are not counted as the callers' hits or misses
    /// (``FormatStatistics/misses``: the callers' lookups count themselves).
    func cachedImage(for entity: some ImageEntity, format: String) -> CachedImage? {
        tables[format].flatMap { cachedImage(for: entity, in: $0) }
    }

    /// The stored, up-to-date image of `entity` in the table `t`, or nil (not counted).
    @inline(__always)
    func cachedImage(for entity: some ImageEntity, in t: FormatTable) -> CachedImage? {
        let (entityKey, sourceKey) = keys.keys(entity.entityID, entity.sourceImageID)
        guard let pin = t.table.pinnedImage(for: entityKey, source: sourceKey) else { return nil }
        return CachedImage(table: t, pinned: pin, entityID: entity.entityID)
    }

    /// The names of the formats of `family`, or of every configured format when `family` is nil,
    /// in configuration order.
    func formatNames(ofFamily family: String?) -> [String] {
        family.map { f in formats.map(\.name).filter { tables[$0]?.format.family == f } } ?? formats.map(\.name)
    }

    /// The largest width and height among the formats of the families of `formatNames`.
    func decodeSize(forFamiliesOf formatNames: some Sequence<String>) -> PixelSize {
        var w = 1, h = 1
        for family in Set(formatNames.compactMap { tables[$0]?.format.family }) {
            for t in families[family] ?? [] {
                w = max(w, t.format.pixelSize.width)
                h = max(h, t.format.pixelSize.height)
            }
        }
        return PixelSize(width: w, height: h)
    }

    /// The formats to draw for `entity` when `requested` formats were asked for: those, plus every
    /// format of their families unless the provider declines a family
    /// (``ImageSourceProvider/shouldDrawFamily(_:for:)``).
    func formatsToDraw(requested: some Sequence<String>, for entity: any ImageEntity) -> Set<String> {
        var wanted = Set(requested)
        for family in Set(wanted.compactMap { tables[$0]?.format.family }) where provider?.shouldDrawFamily(family, for: entity) ?? true {
            wanted.formUnion((families[family] ?? []).map(\.format.name))
        }
        return wanted
    }

    /// Whether the animation of `entity` in format `name` was left half stored by a process that
    /// stopped (``FormatTable/isLeftHalfStored(entity:source:)``).
    func isLeftHalfStored(_ entity: some ImageEntity, format name: String) -> Bool {
        guard let t = tables[name] else { return false }
        let (entityKey, sourceKey) = keys.keys(entity.entityID, entity.sourceImageID)
        return t.isLeftHalfStored(entity: entityKey, source: sourceKey)
    }

    /// Draws `entity` from `decoded` into each format of `names` that lacks an up-to-date image
    /// (the others are returned as they are), in configuration order.
    func drawMissing(_ names: Set<String>, for entity: some ImageEntity, from decoded: DecodedImage) -> [String: Result<
        CachedImage, any Error
    >] {
        var results: [String: Result<CachedImage, any Error>] = [:]
        for name in formats.map(\.name) where names.contains(name) {
            if let existing = cachedImage(for: entity, format: name) {
                results[name] = .success(existing)
            } else if let t = tables[name] {
                results[name] = Result { try t.draw(entity, from: decoded) }
            }
        }
        return results
    }

    /// Decodes `source` to cover `target` (the codec's own reduction where it has one), counting
    /// the decode; an already decoded source is returned as it is.
    ///
    /// - Throws: ``ImageCacheError`` `.decodingFailed`, naming `format`.
    func decode(_ source: SourceImage, target: PixelSize, format: String?) throws -> DecodedImage {
        let options = DecodingOptions(targetSize: target)
        let decode: () throws -> DecodedImage
        switch source {
        case .decoded(let image):
            return image
        case .encoded(let bytes):
            decode = { try ImageDecoder.decode(bytes, options: options) }
        case .bytes(let bytes):
            decode = { try ImageDecoder.decode(bytes, options: options) }  // with the file's path, when read from one
        }
        counters.countDecode()
        let image: DecodedImage
        do {
            image = try decode()
        } catch {
            throw ImageCacheError.decoding(error, format: format)
        }
        for warning in image.warnings {
            logger.warning("Decoded past recoverable damage: \(warning)", metadata: ["format": "\(image.source.format.rawValue)"])
        }
        return image
    }

    /// Stores the image of `entity` in every format of `family` (every format when nil) that
    /// lacks an up-to-date one, decoding `source` once; see
    /// ``ImageCache/storeImages(from:for:family:releasingPages:)``. An animation stores every
    /// frame before this returns (see ``storeFirstFrame(_:wanted:releasingPages:firstFrameStored:)``
    /// and ``RemainingFrames``); failures after the first frame leave the frames stored before them.
    func storeImages(from source: SourceImage, for entity: some ImageEntity, family: String?, releasingPages: Bool) throws -> StoredImages {
        let decodes: Bool
        if case .decoded = source { decodes = false } else { decodes = true }
        return try storeImages(for: entity, family: family, releasingPages: releasingPages, claiming: decodes) { _ in source }
    }

    /// Stores the image of `entity` in every format of `family` that lacks an up-to-date one,
    /// from the source `source` gives for the pixel size the family needs; `source` is called only
    /// when some format lacks the image. When `claiming`, the making is claimed first
    /// (``StoreClaim``): while another process or thread makes the same entity's images, this
    /// waits for it, and finds them made rather than making them again.
    func storeImages(
        for entity: some ImageEntity, family: String?, releasingPages: Bool, claiming: Bool,
        source: (PixelSize) throws -> SourceImage
    ) throws -> StoredImages {
        let names = formatNames(ofFamily: family)
        guard !names.isEmpty else {
            throw ImageCacheError(
                .unknownFormat,
                "no format of family '\(family ?? "")' is configured; configured: \(formats.map(\.name).joined(separator: ", "))")
        }
        var images = stored(entity, in: names)
        if images.count == names.count { return StoredImages(images: images, decoded: false) }
        let claim = claiming ? claimStoring(entity, formats: names) : nil
        defer { claim?.release() }
        if claim != nil {
            // Another may have stored them between the look above and the claim, waited for or not.
            images = stored(entity, in: names)
            if images.count == names.count {
                counters.countStoreMadeByOthers()
                return StoredImages(images: images, decoded: false)
            }
        }
        let target = decodeSize(forFamiliesOf: names)
        let opened = try open(try source(target), target: target, format: names.first)
        var first: [String: Result<CachedImage, any Error>] = [:]
        var warnings = opened.warnings
        let remaining = storeFirstFrame(opened, wanted: [(entity, Set(names))], releasingPages: releasingPages) {
            first = $0[entity.entityID] ?? [:]
        }
        if let remaining {
            while remaining.storeNextFrame() {}
            // What failed after the first frame ended the animation there: the frames before it are stored.
            let later = remaining.finish()
            warnings = remaining.warnings + later.map { "\($0)" }
        }
        for name in names where images[name] == nil {
            images[name] = try (first[name] ?? .failure(ImageCacheError(.drawingFailed, "no image was drawn", format: name))).get()
        }
        return StoredImages(images: images, decoded: true, warnings: warnings)
    }

    /// The up-to-date images of `entity` in the formats `names`, by name; an animation a process
    /// stopped in the middle of storing does not count (it is stored again).
    func stored(_ entity: some ImageEntity, in names: [String]) -> [String: CachedImage] {
        var images: [String: CachedImage] = [:]
        for name in names {
            if let existing = cachedImage(for: entity, format: name), !isLeftHalfStored(entity, format: name) { images[name] = existing }
        }
        return images
    }

    /// Claims the making of `entity`'s images in the formats `names` (see ``StoreClaim``), through
    /// the table of the format whose name sorts first, so that every process that stores the same
    /// formats claims through the same file whatever order it configured them in.
    func claimStoring(_ entity: some ImageEntity, formats names: [String]) -> StoreClaim? {
        guard let first = names.min(), let t = tables[first] else { return nil }
        let (entityKey, _) = keys.keys(entity.entityID, entity.sourceImageID)
        return t.table.claimStoring(entityKey, timeout: claimTimeout, waiting: counters.countStoreThatWaited)
    }
}
