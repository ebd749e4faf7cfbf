/// Animated images (GIF, animated WebP, APNG), stored as Fast Image Cache stores everything:
/// each frame is decoded once, drawn at the format's size into a slot of the format's table, and
/// returned zero-copy. Playing is one constant-time lookup per frame.
///
/// ```swift
/// let first = try await cache.image(for: sticker, format: "thumb")        // frame 0, as for any image
/// if let animation = cache.animation(for: sticker, format: "thumb") {
///     let timeline = animation.timeline
///     let start = ContinuousClock.now
///     // on each display refresh:
///     let n = timeline.frame(at: ContinuousClock.now - start)
///     if let frame = cache.cachedImage(for: sticker, format: "thumb", frame: n) { draw(frame) }
/// }
/// ```
///
/// The family policy decodes the animation once, frame by frame, and draws every frame into each
/// format of the family; ``image(for:format:priority:)`` returns when the first frame is stored,
/// and the same job then stores the others. An animation whose frames (and record) would take
/// more than a quarter of a format's ``ImageFormat/maximumCount`` keeps only its first frame in
/// that format, counted in ``FormatStatistics/animationsTooLarge``. A still image is an animation
/// of one frame: nothing about it changes.
extension ImageCache {
    /// The animation stored for `entity` in `format`: its frame count, durations and loop count;
    /// a one-frame animation for a still image (or an animation stored as its first frame only);
    /// nil when no up-to-date image of the entity is stored.
    ///
    /// Read from the table (a small record stored beside the frames), so a new process knows it
    /// without decoding. Available as soon as the first frame is stored; frames still being
    /// stored are nil from ``cachedImage(for:format:frame:)`` until they are.
    public func animation(for entity: some ImageEntity, format: String) -> StoredAnimation? {
        guard let t = tables[format] else { return nil }
        let (entityKey, sourceKey) = policy.keys.keys(entity.entityID, entity.sourceImageID)
        guard t.table.contains(entityKey, source: sourceKey) else { return nil }
        return t.record(entity: entityKey, source: sourceKey) ?? .still
    }

    /// Frame `frame` (from 0) of the animation of `entity` in `format`, zero-copy, or nil when it
    /// is not stored (yet), is stale, or is beyond the last frame. Frame 0 is
    /// ``cachedImage(for:format:)``. A frame held stays valid, as any image does.
    ///
    /// Constant time, no decoding: the frame path.
    public func cachedImage(for entity: some ImageEntity, format: String, frame: Int) -> CachedImage? {
        guard frame > 0 else { return frame == 0 ? cachedImage(for: entity, format: format) : nil }
        guard let t = tables[format] else { return nil }
        let (entityKey, sourceKey) = policy.keys.keys(entity.entityID, entity.sourceImageID)
        guard let stored = t.table.image(for: AnimationKeys.frame(frame, of: entityKey), source: sourceKey) else { return nil }
        return CachedImage(table: t, storage: stored)
    }

    /// Frame `frame` of the animation stored for the entity whose identifier is `entityID`, from
    /// whichever version of its source is stored (tools that know only the identifier, as
    /// ``cachedImage(entityID:format:)``), or nil. A frame left from another version is not returned.
    public func cachedImage(entityID: String, format: String, frame: Int) -> CachedImage? {
        guard frame > 0 else { return frame == 0 ? cachedImage(entityID: entityID, format: format) : nil }
        guard let t = tables[format] else { return nil }
        let entityKey = policy.keys.key(entityID)
        guard let first = t.table.image(for: entityKey),
              let stored = t.table.image(for: AnimationKeys.frame(frame, of: entityKey), source: first.source) else { return nil }
        return CachedImage(table: t, storage: stored)
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
