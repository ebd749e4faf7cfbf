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
    /// need more pixels than it has. Every source is stored the same way, a still image as an
    /// animation of one frame (``FamilyPolicy/storeFirstFrame(_:wanted:releasingPages:firstFrameStored:)``):
    /// callers are resumed as soon as the first frame is stored, and an animation's frames after
    /// it are handed to `storeLater`, to be stored on the slow lane.
    func process(_ source: SourceImage, nextBatch: () -> [RequestCoordinator.Waiter], storeLater: (RemainingFrames) -> Void) {
        // Nothing is opened for a job whose waiters all went (or only wanted the source).
        var first: [RequestCoordinator.Waiter]? = nextBatch()
        guard first?.isEmpty == false else { return }
        func batches() -> [RequestCoordinator.Waiter] {
            defer { first = nil }
            return first ?? nextBatch()
        }
        var opened: OpenedSource?
        var failure: (any Error)?
        // Held from before a decode until its images are stored: see claimMaking(_:).
        var claim: StoreClaim?
        defer { claim?.release() }
        while true {
            claim?.release()
            claim = nil
            let batch = batches()
            if batch.isEmpty { return }
            let wanted = wantedFormats(batch)
            if failure == nil {
                // Decode once, at the largest size the waiting families need; decode again only
                // if waiters who joined later need more pixels than a reduced decode has, or lack
                // an animation whose frames after the first already went to the slow lane.
                let needed = policy.decodeSize(forFamiliesOf: batch.map(\.format.format.name))
                let usable = opened.map { $0.covers(needed) && ($0.hasFramesToStore || !policy.lacksFirstFrame(wanted)) } ?? false
                if !usable {
                    claim = claimMaking(wanted)
                    if claim != nil, let made = madeByOthers(wanted) {
                        // Another process (or cache) made them while this one fetched or waited;
                        // the claim is let go at the top of the loop.
                        resume(batch, made: made)
                        continue
                    }
                    let target = PixelSize(
                        width: max(needed.width, opened?.target.width ?? 0), height: max(needed.height, opened?.target.height ?? 0))
                    do {
                        opened = try policy.open(source, target: target, format: batch.first?.format.format.name)
                    } catch {
                        failure = error
                    }
                }
            }
            guard let opened, failure == nil else {
                fail(batch, failure ?? ImageCacheError(.decodingFailed, "the source could not be decoded"))
                continue
            }
            if let remaining = policy.storeFirstFrame(opened, wanted: wanted, firstFrameStored: { resume(batch, made: $0) }) {
                storeLater(remaining)
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

    /// Fails every caller of `batch` with `error`.
    private func fail(_ batch: [RequestCoordinator.Waiter], _ error: any Error) {
        for w in batch {
            if let h = w.handle {
                h.deliver(.failure(ImageCacheError.wrap(error, format: w.format.format.name, code: .sourceUnavailable)))
            }
        }
        if batch.contains(where: \.isPrefetch) { logger.debug("prefetch failed: \(error)") }
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
