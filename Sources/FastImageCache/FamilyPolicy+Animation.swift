import Foundation
import ImageCodec
import ImageTable

/// Animations under the family policy: the source is decoded once, frame by frame, and each
/// frame is drawn into every format of the family like any image, under the frame's own key
/// (``AnimationKeys``), beside a record of the frame count, durations and loop count. A format
/// whose table an animation would take more than a quarter of stores only its first frame.
extension FamilyPolicy {
    /// What one entity needs of an animation: the formats to draw its first frame into, and those
    /// of them that store every frame.
    struct AnimationPlan {
        let entity: any ImageEntity
        /// Every format wanted, in configuration order.
        let formats: [String]
        /// The formats that store every frame and lack the animation (its record, or frame 0).
        var everyFrame: [String]
    }

    /// The frame-by-frame decoder of `source` when it is an animation of more than one frame;
    /// nil for a still image, a decoded source, or one the animation decoders refuse (the still
    /// decode then reports what is wrong, or stores the first frame).
    func openAnimation(_ source: SourceImage) -> AnimatedImageDecoder? {
        let bytes: ImageBytes
        switch source {
        case .decoded:
            return nil
        case .encoded(let encoded):
            guard encoded.withUnsafeBytes(AnimatedImageDecoder.mayBeAnimated), let copied = try? ImageBytes(copying: encoded) else { return nil }
            bytes = copied
        case .bytes(let given):
            guard given.withUnsafeBytes(AnimatedImageDecoder.mayBeAnimated) else { return nil }
            bytes = given
        }
        // Frames shrunk to cover the largest format of every family: whichever formats a request
        // wants, each is drawn from a frame at most twice its size (cairo's scaling of full-size
        // frames was most of an animation's cost).
        // The next frame is decoded while this one is drawn and stored.
        let options = DecodingOptions(targetSize: decodeSize(forFamiliesOf: formats.map(\.name)), decodesFramesAhead: true)
        guard let decoder = try? AnimatedImageDecoder(bytes, options: options), decoder.info.frameCount > 1 else { return nil }
        return decoder
    }

    /// What each entity of `wanted` needs of an animation of `frameCount` frames.
    func animationPlans(_ wanted: [(entity: any ImageEntity, formats: Set<String>)], frames frameCount: Int) -> [AnimationPlan] {
        wanted.map { entity, names in
            let ordered = formats.map(\.name).filter { names.contains($0) }
            let (entityKey, sourceKey) = keys.keys(entity.entityID, entity.sourceImageID)
            let everyFrame = ordered.filter { name in
                guard let t = tables[name], t.holdsAnimation(frames: frameCount) else { return false }
                return t.record(entity: entityKey, source: sourceKey) == nil || !t.table.contains(entityKey, source: sourceKey)
            }
            return AnimationPlan(entity: entity, formats: ordered, everyFrame: everyFrame)
        }
    }

    /// Whether some format of `wanted` lacks the entity's up-to-date image (its first frame).
    func lacksFirstFrame(_ wanted: [(entity: any ImageEntity, formats: Set<String>)]) -> Bool {
        wanted.contains { entity, names in
            let (entityKey, sourceKey) = keys.keys(entity.entityID, entity.sourceImageID)
            return names.contains { tables[$0].map { !$0.table.contains(entityKey, source: sourceKey) } ?? false }
        }
    }

    /// Stores the animation `decoder` reads for each entity and format of `wanted`: decodes its
    /// first frame, draws it into every format lacking it (as ``drawMissing(_:for:from:)``), writes
    /// the animation's record into the formats that store every frame, hands the first frame's
    /// images to `firstFrameStored` (by entity identifier, then format name), then decodes the
    /// other frames one at a time and draws each into those formats. Formats that an animation
    /// would fill more than a quarter of keep only the first frame, and count it in
    /// ``FormatStatistics/animationsTooLarge``.
    ///
    /// A source cut short, or damaged after its first frame, keeps the frames before the damage:
    /// the records are rewritten with that many frames.
    ///
    /// - Returns: the failures met after the first frame was handed over (nobody waits for them).
    /// - Throws: ``ImageCacheError`` `.decodingFailed` when the first frame cannot be decoded.
    func storeAnimation(_ decoder: AnimatedImageDecoder, wanted: [(entity: any ImageEntity, formats: Set<String>)], releasingPages: Bool = false,
                        firstFrameStored: ([String: [String: Result<CachedImage, any Error>]]) -> Void) throws -> [any Error] {
        counters.countDecode()
        let info = decoder.info
        let first: AnimationFrame
        do {
            guard let frame = try decoder.nextFrame() else {
                throw ImageCacheError(.decodingFailed, "the animation has no frame")
            }
            first = frame
        } catch {
            throw ImageCacheError.decoding(error, format: wanted.first?.formats.first)
        }
        var plans = animationPlans(wanted, frames: info.frameCount)
        var made: [String: [String: Result<CachedImage, any Error>]] = [:]
        var later: [any Error] = []
        let animation = StoredAnimation(durations: info.durations, loopCount: info.loopCount)
        for (p, plan) in plans.enumerated() {
            let (entityKey, sourceKey) = keys.keys(plan.entity.entityID, plan.entity.sourceImageID)
            let lacking = Set(plan.formats.filter { tables[$0].map { !$0.table.contains(entityKey, source: sourceKey) } ?? false })
            var results = drawMissingAny(Set(plan.formats), for: plan.entity, from: first.image)
            for name in plan.formats {
                guard let t = tables[name] else { continue }
                if !t.holdsAnimation(frames: info.frameCount) {
                    if lacking.contains(name), case .success = results[name] { t.animationsTooLarge.withLockedValue { $0 += 1 } }
                    continue
                }
                guard plan.everyFrame.contains(name), case .success = results[name] else { continue }
                do {
                    try t.storeRecord(animation, for: plan.entity)
                } catch {
                    results[name] = .failure(error)
                    plans[p].everyFrame.removeAll { $0 == name }
                }
            }
            for name in plan.everyFrame where results[name].map({ if case .failure = $0 { true } else { false } }) ?? true {
                plans[p].everyFrame.removeAll { $0 == name }
            }
            if releasingPages {
                for case .success(let image) in results.values { image.releaseResidentPages() }
            }
            made[plan.entity.entityID] = results
        }
        firstFrameStored(made)
        guard plans.contains(where: { !$0.everyFrame.isEmpty }) else { return later }

        // Frames stored so far, per entity and format storing every frame.
        var framesStored: [[String: Int]] = plans.map { Dictionary(uniqueKeysWithValues: $0.everyFrame.map { ($0, 1) }) }
        while plans.contains(where: { !$0.everyFrame.isEmpty }) {
            let frame: AnimationFrame
            do {
                guard let next = try decoder.nextFrame() else { break }
                frame = next
            } catch {
                later.append(ImageCacheError.decoding(error, format: plans.first { !$0.everyFrame.isEmpty }?.everyFrame.first))
                break
            }
            for (p, plan) in plans.enumerated() {
                for name in plan.everyFrame {
                    guard let t = tables[name] else { continue }
                    do {
                        let image = try t.draw(plan.entity, from: frame.image, frame: frame.index)
                        if releasingPages { image.releaseResidentPages() }
                        framesStored[p][name] = frame.index + 1
                    } catch {
                        later.append(error)
                        plans[p].everyFrame.removeAll { $0 == name }
                    }
                }
            }
        }
        // Fewer frames than announced (damage, or a draw that failed): the record says what is there.
        for (p, plan) in plans.enumerated() {
            for (name, count) in framesStored[p] where count < info.frameCount {
                do {
                    try tables[name]?.storeRecord(StoredAnimation(durations: Array(info.durations.prefix(count)), loopCount: info.loopCount), for: plan.entity)
                } catch {
                    later.append(error)
                }
            }
        }
        return later
    }

    /// ``drawMissing(_:for:from:)`` for an existential entity.
    private func drawMissingAny(_ names: Set<String>, for entity: any ImageEntity, from decoded: DecodedImage) -> [String: Result<CachedImage, any Error>] {
        drawMissing(names, for: entity, from: decoded)
    }
}
