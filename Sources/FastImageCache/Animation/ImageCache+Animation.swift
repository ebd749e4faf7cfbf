/// Animated images (GIF, animated WebP, APNG), stored as Fast Image Cache stores everything:
/// each frame is decoded once, drawn at the format's size into a slot of the format's table, and
/// returned zero-copy. Playing is one constant-time lookup per frame.
///
/// ```swift
/// let first = try await cache.image(for: sticker, format: "thumb")        // frame 0, as for any image
/// if let animation = cache.animation(for: sticker, format: "thumb") {
///     let timeline = animation.timeline
///     let start = ContinuousClock.now
///     // on each display refresh (nil: not stored yet, keep showing the previous frame):
///     let n = timeline.frame(at: ContinuousClock.now - start)
///     if let frame = cache.cachedImage(for: sticker, format: "thumb", frame: n) { draw(frame) }
/// }
/// ```
///
/// The family policy decodes the animation once, frame by frame, and draws every frame into each
/// format of the family; ``image(for:format:priority:)`` returns when the first frame is stored,
/// and the other frames are then stored by a job of their own on the slow lane, one frame per
/// step, so that they never hold up an image wanted on screen; the decoder goes on where it
/// stopped. A request for the entity meanwhile is served the first frame and decodes nothing.
/// (``storeImages(from:for:family:releasingPages:)``, for imports, stores every frame before
/// it returns.)
///
/// An animation whose frames (and record) would take more than a quarter of a format's
/// ``ImageFormat/maximumCount`` stores its first frame and its record there, and plays from a
/// *ring* (``StoredAnimation/playsFromRing``): when its later frames are asked for, the provider
/// is asked for the source again, and a few frames (6) are decoded ahead of the one asked for on
/// the slow lane, drawn at the format's size and kept in memory; playing past the last frame
/// starts the decode again. At most 16 rings exist, the least recently played going first, and
/// one not asked for 10 s goes at the next ring lookup. See
/// ``FormatStatistics/ringAnimations``. A still image is an animation of one frame: nothing
/// about it changes.
extension ImageCache {
    /// The animation stored for `entity` in `format`: its frame count, durations, loop count,
    /// and whether it plays from a ring; a one-frame animation for a still image (or an animation
    /// kept as its first frame only); nil when no up-to-date image of the entity is stored.
    ///
    /// Read from the table (a small record stored beside the frames), so a new process knows it
    /// without decoding. Available as soon as the first frame is stored; frames still being
    /// stored, or not yet decoded into the ring, are nil from ``cachedImage(for:format:frame:)``
    /// until they are.
    public func animation(for entity: some ImageEntity, format: String) -> StoredAnimation? {
        guard let t = tables[format] else { return nil }
        let (entityKey, sourceKey) = policy.keys.keys(entity.entityID, entity.sourceImageID)
        guard t.table.contains(entityKey, source: sourceKey) else { return nil }
        return t.record(entity: entityKey, source: sourceKey) ?? .still
    }

    /// Frame `frame` (from 0) of the animation of `entity` in `format`, or nil when it is not
    /// stored (yet), is stale, or is beyond the last frame. Frame 0 is ``cachedImage(for:format:)``.
    /// A frame held stays valid, as any image does.
    ///
    /// Constant time, no decoding on the calling thread: the frame path. A frame stored in the
    /// table is returned zero-copy. For an animation that plays from a ring
    /// (``StoredAnimation/playsFromRing``) the frame comes from the ring; a frame not in it yet
    /// is nil, and the miss makes the ring decode ahead from it on the slow lane (the first miss
    /// makes the ring, which asks the provider for the source again).
    ///
    /// Each call is one of the format's ``FormatStatistics/hits`` or ``FormatStatistics/misses``.
    public func cachedImage(for entity: some ImageEntity, format: String, frame: Int) -> CachedImage? {
        if frame == 0 { return cachedImage(for: entity, format: format) }
        guard let t = tables[format] else { return nil }
        return t.lookups.counted(frame > 0 ? laterFrame(frame, of: entity, in: t) : nil)
    }

    /// Frame `frame` (from 1) of `entity`'s animation in `t`, from its ring or the table, or nil
    /// (``cachedImage(for:format:frame:)``, not counted).
    private func laterFrame(_ frame: Int, of entity: some ImageEntity, in t: FormatTable) -> CachedImage? {
        let (entityKey, sourceKey) = policy.keys.keys(entity.entityID, entity.sourceImageID)
        let ring = AnimationRings.Key(format: t.format.name, entity: entityKey, source: sourceKey)
        if case .frame(let image) = rings.frame(frame, of: ring) { return image }
        if let pin = t.table.pinnedImage(for: AnimationKeys.frame(frame, of: entityKey), source: sourceKey) {
            return CachedImage(table: t, pinned: pin, entityID: entity.entityID, frame: frame)
        }
        // The first lookup of a later frame of an animation that plays from a ring makes the ring.
        guard provider != nil, let animation = t.record(entity: entityKey, source: sourceKey), animation.playsFromRing,
            frame < animation.frameCount, t.table.contains(entityKey, source: sourceKey),
            let url = entity.sourceImageURL(for: t.format)
        else { return nil }
        return rings.start(ring, table: t, entity: entity, url: url, frameCount: animation.frameCount, asking: frame)
    }

    /// Frame `frame` of the animation stored for the entity whose identifier is `entityID`, from
    /// whichever version of its source is stored (tools that know only the identifier, as
    /// ``cachedImage(entityID:format:)``), or nil. A frame left from another version is not
    /// returned. An animation that plays from a ring is served from its ring only while one plays
    /// it (made by ``cachedImage(for:format:frame:)``, which knows the entity's source and drawing).
    ///
    /// Each call is one of the format's ``FormatStatistics/hits`` or ``FormatStatistics/misses``.
    public func cachedImage(entityID: String, format: String, frame: Int) -> CachedImage? {
        if frame == 0 { return cachedImage(entityID: entityID, format: format) }
        guard let t = tables[format] else { return nil }
        return t.lookups.counted(frame > 0 ? laterFrame(frame, ofEntityID: entityID, in: t) : nil)
    }

    /// Frame `frame` (from 1) of the animation stored for `entityID` in `t`, or nil
    /// (``cachedImage(entityID:format:frame:)``, not counted).
    private func laterFrame(_ frame: Int, ofEntityID entityID: String, in t: FormatTable) -> CachedImage? {
        let entityKey = policy.keys.key(entityID)
        guard let first = t.table.image(for: entityKey) else { return nil }
        if case .frame(let image) = rings.frame(
            frame, of: AnimationRings.Key(format: t.format.name, entity: entityKey, source: first.source))
        {
            return image
        }
        guard let pin = t.table.pinnedImage(for: AnimationKeys.frame(frame, of: entityKey), source: first.source) else { return nil }
        return CachedImage(table: t, pinned: pin, entityID: entityID, frame: frame)
    }

    /// The animation stored for the entity whose identifier is `entityID` (whichever version of
    /// its source is stored), as ``animation(for:format:)``.
    public func animation(entityID: String, format: String) -> StoredAnimation? {
        guard let t = tables[format] else { return nil }
        let entityKey = policy.keys.key(entityID)
        guard let first = t.table.image(for: entityKey) else { return nil }
        return t.record(entity: entityKey, source: first.source) ?? .still
    }
}
