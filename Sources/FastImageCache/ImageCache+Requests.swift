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
    /// - Parameter priority: `.high` (default) and `.normal`/`.veryHigh` run in the fast lane;
    ///   `.low`/`.veryLow` in the slow lane.
    /// - Throws: ``ImageCacheError`` (`.unknownFormat`, `.sourceUnavailable`, `.decodingFailed`,
    ///   `.drawingFailed`, `.tableFull`, `.noSpace`, `.cancelled`, `.closed`, or a provider's code).
    public func image(for entity: some ImageEntity, format: String, priority: RequestPriority = .high) async throws -> CachedImage {
        if let image = cachedImage(for: entity, format: format) { return image }
        let (t, url) = try requestTarget(entity, format: format)
        let boxed: any ImageEntity = entity
        let handle = RequestHandle()
        return try await withTaskCancellationHandler {
            try await handle.handoff.wait {
                let (id, effects) = requests.register(
                    url: url, entity: boxed, format: t, priority: priority, handle: handle,
                    alreadyStored: { self.cachedImage(for: entity, format: format) })
                perform(effects)
                if let id {
                    handle.id = id
                    if Task.isCancelled { perform(requests.cancel(waiter: id)) }
                }
            }
        } onCancel: {
            if let id = handle.id { perform(requests.cancel(waiter: id)) }
        }
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
        let (_, effects) = requests.register(
            url: url, entity: entity, format: t, priority: priority, handle: nil,
            alreadyStored: { self.cachedImage(for: entity, format: format) })
        perform(effects)
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
        perform(requests.changePriority(entityID: entity.entityID, format: format) { min($0, .low) })
    }

    /// Sets the priority of every request for `entity` in `format` (every format when nil),
    /// callers and prefetches alike; their jobs move between lanes as needed.
    public func setPriority(_ priority: RequestPriority, for entity: some ImageEntity, format: String? = nil) {
        perform(requests.changePriority(entityID: entity.entityID, format: format) { _ in priority })
    }

    /// Cancels the requests for `entity` in `format` (every format when nil): waiting callers
    /// throw `.cancelled`, prefetches are dropped; fetches nobody else waits for are cancelled.
    public func cancelRequest(for entity: some ImageEntity, format: String? = nil) {
        for (id, _) in requests.waiters(entityID: entity.entityID, format: format) {
            perform(requests.cancel(waiter: id))
        }
    }

    /// Cancels only the prefetches for `entity` in `format` (every format when nil); callers
    /// waiting for it are not affected.
    public func cancelPrefetch(for entity: some ImageEntity, format: String? = nil) {
        for (id, _) in requests.waiters(entityID: entity.entityID, format: format, prefetchesOnly: true) {
            perform(requests.cancel(waiter: id))
        }
    }

    /// How many fetches and decodes the lanes run at once. Changing the fetch widths takes effect
    /// at once; the number of CPU threads is fixed when the cache opens.
    public var requestLanes: RequestLanes {
        get { requests.lanes }
        set { perform(requests.setLanes(newValue)) }
    }

    /// What the lanes hold now: queued and running fetches per lane, decodes, waiters.
    public var requestStatistics: RequestQueueStatistics { requests.statistics }

    // MARK: The lanes at work

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

    /// Carries out what the coordinator decided: starts fetches, wakes CPU threads, resumes
    /// callers, cancels fetches and tells the provider.
    func perform(_ effects: RequestCoordinator.Effects) {
        for task in effects.cancelledTasks { task.cancel() }
        if let provider {
            for (url, entity) in effects.abandoned { provider.didCancelRequest(at: url, for: entity) }
        }
        for (handle, result) in effects.resumes { handle.deliver(result) }
        for (url, error) in effects.failedPrefetches {
            logger.debug("prefetch failed: \(error)", metadata: ["url": "\(url.absoluteString)"])
        }
        for start in effects.starts {
            let task = Task(priority: start.priority.taskPriority) { await self.fetch(start) }
            requests.attach(task, to: start.job)
        }
        for _ in 0..<effects.cpuWakeups {
            requests.cpu.submit { self.runCPUWork() }
        }
    }

    /// Fetches one job's source (on a fetch slot), then hands it to the CPU lane.
    private func fetch(_ start: RequestCoordinator.FetchStart) async {
        let result: Result<SourceImage, any Error>
        if let provider {
            counters.countFetch()
            do {
                let source = try await provider.sourceImage(at: start.url, for: start.entity)
                try Task.checkCancellation()
                result = .success(source)
            } catch {
                result = .failure(error)
            }
        } else {
            result = .failure(ImageCacheError(.sourceUnavailable, "the cache has no provider"))
        }
        perform(requests.fetched(start.job, result))
    }

    /// Runs the most urgent CPU work: a job's decode and draws, or queued work.
    func runCPUWork() {
        let (work, effects) = requests.nextCPUWork()
        perform(effects)
        switch work {
        case nil:
            return
        case .work(let body):
            body()
        case .job(let id, let source):
            process(id, source: source)
        }
    }

    /// Decodes a job's source and draws for its waiters until none is left.
    private func process(_ jobID: UInt64, source: SourceImage) {
        var decoded: DecodedImage?
        var decodedFor = PixelSize(width: 0, height: 0)
        var failure: (any Error)?
        while true {
            let (batch, effects) = requests.takeWaiters(of: jobID)
            perform(effects)
            if batch.isEmpty { return }
            if failure == nil {
                // Decode once, at the largest size the waiting families need; decode again only
                // if waiters who joined later need more pixels than a reduced decode has.
                let needed = decodeSize(forFamiliesOf: batch.map(\.format.format.name))
                let covered = decoded.map { $0.scaleDenominator == 1 || (needed.width <= decodedFor.width && needed.height <= decodedFor.height) } ?? false
                if !covered {
                    let target = PixelSize(width: max(needed.width, decodedFor.width), height: max(needed.height, decodedFor.height))
                    do {
                        decoded = try decodeSource(source, target: target, format: batch.first?.format.format.name)
                        decodedFor = target
                    } catch {
                        failure = error
                    }
                }
            }
            guard let decoded, failure == nil else {
                let error = failure ?? ImageCacheError(.decodingFailed, "the source could not be decoded")
                for w in batch {
                    if let h = w.handle {
                        h.deliver(.failure(ImageCacheError.wrap(error, format: w.format.format.name, code: .sourceUnavailable)))
                    }
                }
                if batch.contains(where: \.isPrefetch) { logger.debug("prefetch failed: \(error)") }
                continue
            }
            deliver(batch, from: decoded)
        }
    }

    /// Draws what each waiter asked for, plus what the family policy adds, then resumes callers.
    private func deliver(_ batch: [RequestCoordinator.Waiter], from source: DecodedImage) {
        var made: [String: [String: Result<CachedImage, any Error>]] = [:] // entity → format → image
        for (entityID, waiters) in Dictionary(grouping: batch, by: { $0.entity.entityID }) {
            let entity = waiters[0].entity
            let wanted = formatsToDraw(requested: waiters.map(\.format.format.name), for: entity)
            made[entityID] = drawMissing(wanted, for: entity, from: source)
        }
        for w in batch {
            let result = made[w.entity.entityID]?[w.format.format.name] ?? .failure(ImageCacheError(.drawingFailed, "no image was drawn", format: w.format.format.name))
            if let h = w.handle {
                h.deliver(result)
            } else if case .failure(let error) = result {
                logger.debug("prefetch failed: \(error)", metadata: ["entity": "\(w.entity.entityID)"])
            }
        }
    }
}
