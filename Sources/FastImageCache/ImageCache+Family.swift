import Foundation

/// The one place where the family policy lives: a source is decoded once, at the largest pixel
/// size any format of its family needs, and every format of the family that lacks an
/// up-to-date image of the entity is drawn from that one decode. Requests, imports, the tool
/// and the benchmarks all go through here.
extension ImageCache {
    /// The configured formats of `family`, in configuration order.
    public func formats(inFamily family: String) -> [ImageFormat] {
        families[family]?.map(\.format) ?? []
    }

    /// The names of the formats of `family`, or of every configured format when `family` is nil,
    /// in configuration order: what ``storeImages(from:for:family:releasingPages:)`` fills.
    func formatNames(ofFamily family: String?) -> [String] {
        family.map { f in formats.map(\.name).filter { tables[$0]?.format.family == f } } ?? formats.map(\.name)
    }

    /// Whether every format of `family` (of the cache, when nil) holds an up-to-date image of
    /// `entity`, so that storing its images would decode nothing; false when no format matches.
    public func containsImages(for entity: some ImageEntity, family: String? = nil) -> Bool {
        let names = formatNames(ofFamily: family)
        return !names.isEmpty && names.allSatisfy { containsImage(for: entity, format: $0) }
    }

    /// The pixel size a decode must cover so that every format of the families of `formatNames`
    /// can be drawn from it: the largest width and height among those formats.
    public func decodeSize(forFamiliesOf formatNames: some Sequence<String>) -> PixelSize {
        var w = 1, h = 1
        for family in Set(formatNames.compactMap { tables[$0]?.format.family }) {
            for t in families[family] ?? [] {
                w = max(w, t.format.pixelSize.width)
                h = max(h, t.format.pixelSize.height)
            }
        }
        return PixelSize(width: w, height: h)
    }

    /// Stores the image of `entity` in every format of `family` that lacks an up-to-date one,
    /// decoding `source` once at the size the family needs. Formats that already hold an
    /// up-to-date image are left alone, and nothing is decoded when none lacks it.
    ///
    /// - Parameters:
    ///   - family: the family to fill; nil fills every configured format (all families, one decode).
    ///   - releasingPages: lets the kernel drop each stored image's pages from resident memory
    ///     right away (for bulk imports of images that will not be shown soon).
    /// - Returns: the image of each format of the family, by format name.
    /// - Throws: ``ImageCacheError``: `.decodingFailed` (the cause says why), `.drawingFailed`,
    ///   or a storage failure (`.tableFull`, `.noSpace`, `.io`, `.closed`).
    @discardableResult
    public func storeImages(from source: SourceImage, for entity: some ImageEntity, family: String? = nil, releasingPages: Bool = false) throws -> [String: CachedImage] {
        let names = formatNames(ofFamily: family)
        guard !names.isEmpty else {
            throw ImageCacheError(.unknownFormat, "no format of family '\(family ?? "")' is configured; configured: \(formats.map(\.name).joined(separator: ", "))")
        }
        var images: [String: CachedImage] = [:]
        for name in names {
            if let existing = cachedImage(for: entity, format: name) { images[name] = existing }
        }
        if images.count == names.count { return images }
        let decoded = try decodeSource(source, target: decodeSize(forFamiliesOf: names), format: names.first)
        for (name, result) in drawMissing(Set(names), for: entity, from: decoded) {
            let image = try result.get()
            if releasingPages { image.releaseResidentPages() }
            images[name] = image
        }
        return images
    }

    /// The formats to draw for `entity` when `requested` formats were asked for: those, plus every
    /// format of their families unless the provider declines a family
    /// (``ImageSourceProvider/shouldDrawFamily(_:for:)``).
    func formatsToDraw(requested: some Sequence<String>, for entity: any ImageEntity) -> Set<String> {
        var wanted = Set(requested)
        for family in Set(wanted.compactMap { tables[$0]?.format.family }) where provider?.shouldDrawFamily(family, for: entity) ?? true {
            wanted.formUnion(formats(inFamily: family).map(\.name))
        }
        return wanted
    }

    /// Draws `entity` from `decoded` into each format of `names` that lacks an up-to-date image
    /// (the others are returned as they are), in configuration order.
    func drawMissing(_ names: Set<String>, for entity: some ImageEntity, from decoded: DecodedImage) -> [String: Result<CachedImage, any Error>] {
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
}
