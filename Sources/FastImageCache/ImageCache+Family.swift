import Foundation

/// The family policy's public face: a source is decoded once, at the largest pixel size any
/// format of its family needs, and every format of the family that lacks an up-to-date image of
/// the entity is drawn from that one decode. The policy itself is ``FamilyPolicy``; requests,
/// imports, the tool and the benchmarks all go through it.
extension ImageCache {
    /// The configured formats of `family`, in configuration order.
    public func formats(inFamily family: String) -> [ImageFormat] {
        policy.families[family]?.map(\.format) ?? []
    }

    /// Whether every format of `family` (of the cache, when nil) holds an up-to-date image of
    /// `entity`, so that storing its images would decode nothing; false when no format matches.
    public func containsImages(for entity: some ImageEntity, family: String? = nil) -> Bool {
        let names = policy.formatNames(ofFamily: family)
        return !names.isEmpty && names.allSatisfy { containsImage(for: entity, format: $0) }
    }

    /// The pixel size a decode must cover so that every format of the families of `formatNames`
    /// can be drawn from it: the largest width and height among those formats.
    public func decodeSize(forFamiliesOf formatNames: some Sequence<String>) -> PixelSize {
        policy.decodeSize(forFamiliesOf: formatNames)
    }

    /// Stores the image of `entity` in every format of `family` that lacks an up-to-date one,
    /// decoding `source` once at the size the family needs. Formats that already hold an
    /// up-to-date image are left alone, and nothing is decoded when none lacks it. An animation
    /// has every frame stored before this returns (unlike a request, which leaves the frames
    /// after the first to the slow lane); in a format it is too large for, it plays from a ring.
    ///
    /// - Parameters:
    ///   - source: the source image: encoded bytes to decode, or an image already decoded.
    ///   - entity: the entity whose images are stored, drawn with its
    ///     ``ImageEntity/draw(_:format:canvas:)``.
    ///   - family: the family to fill; nil fills every configured format (all families, one decode).
    ///   - releasingPages: lets the kernel drop each stored image's pages from resident memory
    ///     right away (for bulk imports of images that will not be shown soon).
    /// - Returns: the image of each format of the family, by format name, whether the source was
    ///   decoded, and the decoder's warnings (``StoredImages``).
    /// - Throws: `ImageCacheError`: `.decodingFailed` (the cause says why), `.drawingFailed`,
    ///   or a storage failure (`.tableFull`, `.noSpace`, `.io`, `.closed`).
    ///
    /// Several processes and threads may store at once. While one decodes a source for an entity,
    /// another that stores the same entity's images (from bytes to decode, in the same formats)
    /// waits for it and returns its images instead of decoding the source again
    /// (``CacheStatistics/storesThatWaited``, ``CacheStatistics/storesMadeByOthers``). The wait
    /// ends when the other finishes or dies; only one stopped in the middle keeps it waiting, for
    /// at most `TableOpenOptions.claimTimeout` (a minute unless the cache was opened with
    /// another), after which this one decodes.
    @discardableResult
    public func storeImages(from source: SourceImage, for entity: some ImageEntity, family: String? = nil, releasingPages: Bool = false)
        throws -> StoredImages
    {
        try policy.storeImages(from: source, for: entity, family: family, releasingPages: releasingPages)
    }

    /// Stores the image of `entity` in every format of `family` that lacks an up-to-date one, like
    /// ``storeImages(from:for:family:releasingPages:)``, from an image `decode` makes: for callers
    /// that decode sources themselves (with options of their own, say). `decode` is given the
    /// pixel size the family needs and is called only when some format lacks the image, after any
    /// other process or thread making the same entity's images has finished, so that a source is
    /// decoded once among all of them.
    ///
    /// - Throws: what `decode` throws, as it is; otherwise as
    ///   ``storeImages(from:for:family:releasingPages:)``.
    @discardableResult
    public func storeImages(
        for entity: some ImageEntity, family: String? = nil, releasingPages: Bool = false,
        decoding decode: (PixelSize) throws -> DecodedImage
    ) throws -> StoredImages {
        try policy.storeImages(for: entity, family: family, releasingPages: releasingPages, claiming: true) { .decoded(try decode($0)) }
    }
}
