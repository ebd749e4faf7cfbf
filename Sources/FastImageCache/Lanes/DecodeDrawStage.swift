import Foundation
import ImageCodec
import ImageTable
import Logging

/// A job's second stage, on a CPU thread of the lanes: decodes the fetched source once, at the
/// largest size its waiters' families need, and draws every format they (and their families)
/// lack, through the ``FamilyPolicy``.
struct DecodeDrawStage: Sendable {
    /// The tables and the family policy.
    let policy: FamilyPolicy
    /// Where failed prefetches are told (nobody else would hear of them).
    let logger: Logger

    /// Serves the waiters `nextBatch` hands over, batch after batch, until it hands none:
    /// waiters may join while a batch is drawn, and are served from the same decode unless they
    /// need more pixels than it has. An animation's frames after the first are handed to
    /// `storeLater`, to be stored on the slow lane.
    func process(_ source: SourceImage, nextBatch: () -> [RequestCoordinator.Waiter], storeLater: (RemainingFrames) -> Void) {
        // Nothing is opened for a job whose waiters all went (or only wanted the source).
        var first: [RequestCoordinator.Waiter]? = nextBatch()
        guard first?.isEmpty == false else { return }
        func batches() -> [RequestCoordinator.Waiter] {
            defer { first = nil }
            return first ?? nextBatch()
        }
        if let animation = policy.openAnimation(source) {
            processAnimation(source, opened: animation, nextBatch: batches, storeLater: storeLater)
            return
        }
        var decoded: DecodedImage?
        var decodedFor = PixelSize(width: 0, height: 0)
        var failure: (any Error)?
        // Held from before a decode until its images are stored: see claimMaking(_:).
        var claim: StoreClaim?
        defer { claim?.release() }
        while true {
            claim?.release()
            claim = nil
            let batch = batches()
            if batch.isEmpty { return }
            if failure == nil {
                // Decode once, at the largest size the waiting families need; decode again only
                // if waiters who joined later need more pixels than a reduced decode has.
                let needed = policy.decodeSize(forFamiliesOf: batch.map(\.format.format.name))
                let covered =
                    decoded.map { $0.scaleDenominator == 1 || (needed.width <= decodedFor.width && needed.height <= decodedFor.height) }
                    ?? false
                if !covered {
                    let wanted = wantedFormats(batch)
                    claim = claimMaking(wanted)
                    if claim != nil, let made = madeByOthers(wanted) {
                        // Another process (or cache) made them while this one fetched or waited;
                        // the claim is let go at the top of the loop.
                        resume(batch, made: made)
                        continue
                    }
                    let target = PixelSize(width: max(needed.width, decodedFor.width), height: max(needed.height, decodedFor.height))
                    do {
                        decoded = try policy.decode(source, target: target, format: batch.first?.format.format.name)
                        decodedFor = target
                    } catch {
                        failure = error
                    }
                }
            }
            guard let decoded, failure == nil else {
                fail(batch, failure ?? ImageCacheError(.decodingFailed, "the source could not be decoded"))
                continue
            }
            deliver(batch, from: decoded)
        }
    }

    /// ``process(_:nextBatch:storeLater:)`` for an animation: each batch's entities and formats
    /// get their first frame (``FamilyPolicy/storeFirstFrame(_:wanted:releasingPages:firstFrameStored:)``),
    /// callers are resumed as soon as it is stored, and the decoder, where it stopped, goes to
    /// `storeLater` with the other frames to store. A later batch that lacks a first frame opens
    /// the source again (a second decode); one that lacks none is served what is stored.
    private func processAnimation(
        _ source: SourceImage, opened: AnimatedImageDecoder, nextBatch: () -> [RequestCoordinator.Waiter],
        storeLater: (RemainingFrames) -> Void
    ) {
        var animation: AnimatedImageDecoder? = opened
        while true {
            let batch = nextBatch()
            if batch.isEmpty { return }
            let wanted = wantedFormats(batch)
            if animation == nil && policy.lacksFirstFrame(wanted) { animation = policy.openAnimation(source) }
            guard let decoder = animation else {
                // Everything is stored (or the source no longer opens as an animation: its first frame
                // is then drawn like a still image's).
                if policy.lacksFirstFrame(wanted) {
                    do {
                        let decoded = try policy.decode(
                            source, target: policy.decodeSize(forFamiliesOf: batch.map(\.format.format.name)),
                            format: batch.first?.format.format.name)
                        deliver(batch, from: decoded)
                    } catch {
                        fail(batch, error)
                    }
                } else {
                    resume(batch, made: stored(wanted))
                }
                continue
            }
            animation = nil
            do {
                if let remaining = try policy.storeFirstFrame(decoder, wanted: wanted, firstFrameStored: { resume(batch, made: $0) }) {
                    storeLater(remaining)
                }
            } catch {
                fail(batch, error)
            }
        }
    }

    /// Claims the making of the images `wanted` (a batch's entities and formats; ``StoreClaim``),
    /// as stores from a source do, so that processes requesting the same entity at once decode it
    /// once: one that finds the claim held waits for it (at most ``FamilyPolicy/claimTimeout``).
    /// Only a batch of one entity claims: one thread claiming two entities could meet another
    /// claiming them the other way round. Nil when nothing is claimed.
    private func claimMaking(_ wanted: [(entity: any ImageEntity, formats: Set<String>)]) -> StoreClaim? {
        guard wanted.count == 1, let (entity, names) = wanted.first else { return nil }
        return policy.claimStoring(entity, formats: Array(names))
    }

    /// Every image of `wanted`, when all are stored (made by another while this one waited for
    /// its claim, or before), counted as a store made by others; otherwise nil.
    private func madeByOthers(_ wanted: [(entity: any ImageEntity, formats: Set<String>)]) -> [String: [String: Result<
        CachedImage, any Error
    >]]? {
        var made: [String: [String: Result<CachedImage, any Error>]] = [:]
        for (entity, names) in wanted {
            let images = policy.stored(entity, in: Array(names))
            guard images.count == names.count else { return nil }
            made[entity.entityID] = images.mapValues { .success($0) }
        }
        policy.counters.countStoreMadeByOthers()
        return made
    }

    /// Per entity of `batch`, the formats its waiters asked for plus those the family policy adds.
    private func wantedFormats(_ batch: [RequestCoordinator.Waiter]) -> [(entity: any ImageEntity, formats: Set<String>)] {
        Dictionary(grouping: batch, by: { $0.entity.entityID }).values.map { waiters in
            (waiters[0].entity, policy.formatsToDraw(requested: waiters.map(\.format.format.name), for: waiters[0].entity))
        }
    }

    /// The stored images of `wanted`, by entity identifier, then format name.
    private func stored(_ wanted: [(entity: any ImageEntity, formats: Set<String>)]) -> [String: [String: Result<CachedImage, any Error>]] {
        var made: [String: [String: Result<CachedImage, any Error>]] = [:]
        for (entity, names) in wanted {
            for name in names {
                if let image = policy.cachedImage(for: entity, format: name) { made[entity.entityID, default: [:]][name] = .success(image) }
            }
        }
        return made
    }

    /// Fails every caller of `batch` with `error`.
    private func fail(_ batch: [RequestCoordinator.Waiter], _ error: any Error) {
        for w in batch {
            if let h = w.handle {
                h.deliver(.failure(ImageCacheError.wrap(error, format: w.format.format.name, code: .sourceUnavailable)))
            }
        }
        if batch.contains(where: \.isPrefetch) { logger.debug("prefetch failed: \(error)") }
    }

    /// Draws what each waiter asked for, plus what the family policy adds, then resumes callers.
    private func deliver(_ batch: [RequestCoordinator.Waiter], from source: DecodedImage) {
        var made: [String: [String: Result<CachedImage, any Error>]] = [:]  // entity → format → image
        for (entity, wanted) in wantedFormats(batch) {
            made[entity.entityID] = policy.drawMissing(wanted, for: entity, from: source)
        }
        resume(batch, made: made)
    }

    /// Resumes the callers of `batch` with the images `made` (by entity identifier, then format
    /// name); prefetches that failed are logged.
    private func resume(_ batch: [RequestCoordinator.Waiter], made: [String: [String: Result<CachedImage, any Error>]]) {
        for w in batch {
            let result =
                made[w.entity.entityID]?[w.format.format.name]
                ?? .failure(ImageCacheError(.drawingFailed, "no image was drawn", format: w.format.format.name))
            if let h = w.handle {
                h.deliver(result)
            } else if case .failure(let error) = result {
                logger.debug("prefetch failed: \(error)", metadata: ["entity": "\(w.entity.entityID)"])
            }
        }
    }
}
