import Foundation

/// Requests in the words of the original: get an image for the screen now (fast lane), prefetch
/// (slow lane), move a request back to the slow lane, cancel.
extension ImageCache {
    /// Returns the image of `entity` in `format`, asking the provider for the source when it is
    /// missing or stale. On the fast lane by default.
    ///
    /// Concurrent requests for one source URL share one fetch and one decode, whatever their
    /// entities, formats and priorities: a request for a source already queued or being fetched
    /// joins it and, when more urgent, promotes it (to the fast lane if needed), without a second
    /// fetch. The source is decoded once, at the largest size any waiting format's family needs,
    /// and every format of that family lacking the image is drawn from it too (unless the
    /// provider declines). Decoding and drawing run on the cache's own threads, never on the
    /// caller's.
    ///
    /// Cancelling the calling task abandons this request (it throws `.cancelled`); the fetch is
    /// cancelled, and the provider told, only when its last waiter (caller or prefetch) has gone.
    ///
    /// Counted once in the format's statistics: a hit when the image was stored, else a miss
    /// (``FormatStatistics/misses``), however it is then served.
    ///
    /// - Parameters:
    ///   - entity: the entity whose image is wanted.
    ///   - format: the name of one of the cache's formats.
    ///   - priority: `.high` (default) and `.normal`/`.veryHigh` run in the fast lane;
    ///     `.low`/`.veryLow` in the slow lane.
    /// - Throws: `ImageCacheError` (`.unknownFormat`, `.sourceUnavailable`, `.decodingFailed`,
    ///   `.drawingFailed`, `.tableFull`, `.noSpace`, `.cancelled`, `.closed`, or a provider's code).
    public func image(for entity: some ImageEntity, format: String, priority: RequestPriority = .high) async throws -> CachedImage {
        // One hit or one miss of the format asked for, whatever the lanes look at later.
        let stored = storedForRequest(entity, format: format)
        tables[format]?.lookups.count(found: stored != nil)
        if let stored { return stored }
        let (t, url) = try requestTarget(entity, format: format)
        return try await lanes.image(
            url: url, entity: entity, format: t, priority: priority,
            alreadyStored: { self.storedForRequest(entity, format: format) })
    }

    /// Asks for the image of `entity` in `format` to be made in the background, on the slow lane
    /// by default, and returns at once. Nothing happens when it is stored already; a prefetch of
    /// something already requested only raises the request's priority if need be. Failures are
    /// logged, not reported: a later ``image(for:format:priority:)`` reports them.
    public func prefetch(_ entity: some ImageEntity, format: String, priority: RequestPriority = .low) {
        if containsImage(for: entity, format: format) { return }
        let t: FormatTable, url: URL
        do {
            (t, url) = try requestTarget(entity, format: format)
        } catch {
            logger.debug("prefetch skipped: \(error)", metadata: ["entity": "\(entity.entityID)"])
            return
        }
        lanes.prefetch(
            url: url, entity: entity, format: t, priority: priority,
            alreadyStored: { self.storedForRequest(entity, format: format) })
    }

    /// Prefetches each of `entities` in `format`, in order.
    public func prefetch(_ entities: some Sequence<some ImageEntity>, format: String, priority: RequestPriority = .low) {
        for entity in entities { prefetch(entity, format: format, priority: priority) }
    }

    /// Moves the requests for `entity` in `format` (every format when nil) back to the slow lane,
    /// for example when its cell scrolls off screen: callers keep waiting, but their job now
    /// waits behind everything the fast lane has (`moveTaskToSlowQueue` of the original). A
    /// fetch already running is not interrupted.
    public func deprioritize(_ entity: some ImageEntity, format: String? = nil) {
        lanes.changePriority(entityID: entity.entityID, format: format) { min($0, .low) }
    }

    /// Sets the priority of every request for `entity` in `format` (every format when nil),
    /// callers and prefetches alike; their jobs move between lanes as needed.
    public func setPriority(_ priority: RequestPriority, for entity: some ImageEntity, format: String? = nil) {
        lanes.changePriority(entityID: entity.entityID, format: format) { _ in priority }
    }

    /// Cancels the requests for `entity` in `format` (every format when nil): waiting callers
    /// throw `.cancelled`, prefetches are dropped; fetches nobody else waits for are cancelled.
    public func cancelRequest(for entity: some ImageEntity, format: String? = nil) {
        lanes.cancel(entityID: entity.entityID, format: format, prefetchesOnly: false)
    }

    /// Cancels only the prefetches for `entity` in `format` (every format when nil); callers
    /// waiting for it are not affected.
    public func cancelPrefetch(for entity: some ImageEntity, format: String? = nil) {
        lanes.cancel(entityID: entity.entityID, format: format, prefetchesOnly: true)
    }

    /// How many fetches and decodes the lanes run at once. Changing the fetch widths takes effect
    /// at once; the number of CPU threads is fixed when the cache opens.
    public var requestLanes: RequestLanes {
        get { lanes.widths }
        set { lanes.widths = newValue }
    }

    /// What the lanes hold now: queued and running fetches per lane, decodes, waiters.
    public var requestStatistics: RequestQueueStatistics { lanes.statistics }

    // MARK: Where a request goes

    /// The table and the source URL a request needs, or why it cannot be made.
    private func requestTarget(_ entity: some ImageEntity, format: String) throws -> (FormatTable, URL) {
        let t = try table(format)
        guard provider != nil else {
            throw ImageCacheError(.sourceUnavailable, "the image is not cached and the cache has no provider", format: format)
        }
        guard let url = entity.sourceImageURL(for: t.format) else {
            throw ImageCacheError(.sourceUnavailable, "entity '\(entity.entityID)' has no source image URL", format: format)
        }
        return (t, url)
    }
}
