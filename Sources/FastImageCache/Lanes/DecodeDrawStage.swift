import Foundation
import ImageCodec
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
    /// need more pixels than it has.
    func process(_ source: SourceImage, nextBatch: () -> [RequestCoordinator.Waiter]) {
        var decoded: DecodedImage?
        var decodedFor = PixelSize(width: 0, height: 0)
        var failure: (any Error)?
        while true {
            let batch = nextBatch()
            if batch.isEmpty { return }
            if failure == nil {
                // Decode once, at the largest size the waiting families need; decode again only
                // if waiters who joined later need more pixels than a reduced decode has.
                let needed = policy.decodeSize(forFamiliesOf: batch.map(\.format.format.name))
                let covered = decoded.map { $0.scaleDenominator == 1 || (needed.width <= decodedFor.width && needed.height <= decodedFor.height) } ?? false
                if !covered {
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
            let wanted = policy.formatsToDraw(requested: waiters.map(\.format.format.name), for: entity)
            made[entityID] = policy.drawMissing(wanted, for: entity, from: source)
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
