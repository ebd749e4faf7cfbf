import Foundation

extension ImageCache {
    /// Returns the image of `entity` in `format`, asking the provider for the source when it is
    /// missing or stale.
    ///
    /// Concurrent requests for one source URL share one fetch and one decode; the source is
    /// decoded once, at the largest size any waiting format's family needs, and every format of
    /// that family lacking the image is drawn from it too (unless the provider declines).
    /// Cancelling the calling task abandons this request; the fetch is cancelled, and the
    /// provider told, only when its last waiter has gone.
    ///
    /// - Throws: ``ImageCacheError`` (`.unknownFormat`, `.sourceUnavailable`, `.decodingFailed`,
    ///   `.drawingFailed`, `.tableFull`, `.noSpace`, `.cancelled`, `.closed`).
    public func image(for entity: some ImageEntity, format: String) async throws -> CachedImage {
        if let image = cachedImage(for: entity, format: format) { return image }
        let t = try table(format)
        guard let provider else {
            throw ImageCacheError(.sourceUnavailable, "the image is not cached and the cache has no provider", format: format)
        }
        guard let url = entity.sourceImageURL(for: t.format) else {
            throw ImageCacheError(.sourceUnavailable, "entity '\(entity.entityID)' has no source image URL", format: format)
        }
        let boxed: any ImageEntity = entity
        let idBox = WaiterIDBox()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<CachedImage, any Error>) in
                let id = requests.register(
                    url: url, entity: boxed, format: t, continuation: continuation,
                    alreadyStored: { self.cachedImage(for: entity, format: format) },
                    start: { job in Task { await self.run(job, provider: provider) } })
                if let id {
                    idBox.set(id)
                    if Task.isCancelled { requests.cancel(waiter: id, url: url, provider: provider) }
                }
            }
        } onCancel: {
            if let id = idBox.get() { requests.cancel(waiter: id, url: url, provider: provider) }
        }
    }

    /// Cancels the waiting requests for `entity` in `format` (every format when nil). Each
    /// cancelled request throws `.cancelled`; fetches nobody else waits for are cancelled.
    public func cancelRequest(for entity: some ImageEntity, format: String? = nil) {
        for (id, url) in requests.waiters(entityID: entity.entityID, format: format) {
            requests.cancel(waiter: id, url: url, provider: provider)
        }
    }

    /// Fetches, decodes and draws for one job until no waiter is left.
    func run(_ job: RequestCoordinator.Job, provider: any ImageSourceProvider) async {
        var source: SourceImage?
        var decoded: DecodedImage?
        var decodedFor = PixelSize(width: 0, height: 0)
        var failure: (any Error)?
        do {
            counters.countFetch()
            source = try await provider.sourceImage(at: job.url, for: job.entity)
            try Task.checkCancellation()
        } catch {
            failure = error
        }
        if requests.isAbandoned(job) { return }
        while true {
            let batch = requests.takeWaiters(of: job)
            if batch.isEmpty { return }
            if let source, failure == nil {
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
                for w in batch {
                    w.continuation.resume(throwing: ImageCacheError.wrap(failure ?? CancellationError(), format: w.format.format.name, code: .sourceUnavailable))
                }
                continue
            }
            deliver(batch, from: decoded, provider: provider)
        }
    }

    /// Draws what each waiter asked for, plus the family's missing formats, then resumes them.
    private func deliver(_ batch: [RequestCoordinator.Waiter], from source: DecodedImage, provider: any ImageSourceProvider) {
        var made: [String: [String: Result<CachedImage, any Error>]] = [:] // entity → format → image
        for (entityID, waiters) in Dictionary(grouping: batch, by: { $0.entity.entityID }) {
            let entity = waiters[0].entity
            var wanted = Set(waiters.map(\.format.format.name))
            for family in Set(waiters.map(\.format.format.family)) where provider.shouldDrawFamily(family, for: entity) {
                wanted.formUnion(formats(inFamily: family).map(\.name))
            }
            made[entityID] = drawMissing(wanted, for: entity, from: source)
        }
        for w in batch {
            let result = made[w.entity.entityID]?[w.format.format.name] ?? .failure(ImageCacheError(.drawingFailed, "no image was drawn", format: w.format.format.name))
            w.continuation.resume(with: result)
        }
    }
}

/// Passes a waiter id from the registering closure to the cancellation handler.
final class WaiterIDBox: Sendable {
    private let id = LockedBox<UInt64?>(nil)
    func set(_ value: UInt64) { id.withLockedValue { $0 = value } }
    func get() -> UInt64? { id.withLockedValue { $0 } }
}
