import Foundation
import ImageCodec
import ImageTable

/// How the family policy stores frames, the one way for every source: a still image is an
/// animation of one frame. The source is opened once (``open(_:target:format:)``: its first frame
/// decoded), the first frame is drawn into every format that lacks it and handed to whoever waits
/// (``storeFirstFrame(_:wanted:releasingPages:firstFrameStored:)``), and an animation's frames
/// after it are a ``RemainingFrames`` of their own: the request path stores them one at a time on
/// the slow lane, an import at once. Each frame of an animation is drawn into every format of the
/// family like any image, under the frame's own key (``AnimationKeys``), beside a record of the
/// frame count, durations and loop count; a format whose table an animation would take more than
/// a quarter of stores its first frame and a record that says it plays from a ring
/// (``AnimationRings``).
extension FamilyPolicy {
    /// What one entity needs of an animation: the formats to draw its first frame into, and those
    /// of them that store every frame or play from a ring.
    struct AnimationPlan {
        let entity: any ImageEntity
        /// Every format wanted, in configuration order.
        let formats: [String]
        /// The formats that store every frame and lack the animation (its record, or frame 0).
        var everyFrame: [String]
        /// The formats the animation is too large for, whose record (it plays from a ring) fits
        /// in a slot, and which lack the animation.
        var ring: [String]
    }

    /// Opens `source` for storing: an animation of more than one frame has its first frame
    /// decoded (shrunk to cover the largest format of every family, whichever formats a request
    /// wants), anything else is decoded as a still image to cover `target` (the codec's own
    /// reduction where it has one). Counts the decode (an already decoded source is not one).
    ///
    /// - Throws: ``ImageCacheError`` `.decodingFailed`, naming `format`.
    func open(_ source: SourceImage, target: PixelSize, format: String?) throws -> OpenedSource {
        guard let (decoder, covering) = openAnimation(source) else {
            return OpenedSource(still: try decode(source, target: target, format: format), target: target)
        }
        counters.countDecode()
        do {
            guard let frame = try decoder.nextFrame() else { throw ImageCacheError(.decodingFailed, "the animation has no frame") }
            return OpenedSource(first: frame.image, target: covering, frames: decoder)
        } catch {
            throw ImageCacheError.decoding(error, format: format)
        }
    }

    /// The frame-by-frame decoder of `source`, and the size its frames cover, when it is an
    /// animation of more than one frame; nil for a still image, a decoded source, or one the
    /// animation decoders refuse (the still decode then reports what is wrong, or stores the first
    /// frame).
    private func openAnimation(_ source: SourceImage) -> (AnimatedImageDecoder, PixelSize)? {
        let bytes: ImageBytes
        switch source {
        case .decoded:
            return nil
        case .encoded(let encoded):
            guard encoded.withUnsafeBytes(AnimatedImageDecoder.mayBeAnimated), let copied = try? ImageBytes(copying: encoded) else {
                return nil
            }
            bytes = copied
        case .bytes(let given):
            guard given.withUnsafeBytes(AnimatedImageDecoder.mayBeAnimated) else { return nil }
            bytes = given
        }
        // Frames shrunk to cover the largest format of every family: whichever formats a request
        // wants, each is drawn from a frame at most twice its size (cairo's scaling of full-size
        // frames was most of an animation's cost).
        // The next frame is decoded while this one is drawn and stored.
        let covering = decodeSize(forFamiliesOf: formats.map(\.name))
        let options = DecodingOptions(targetSize: covering, decodesFramesAhead: true)
        guard let decoder = try? AnimatedImageDecoder(bytes, options: options), decoder.info.frameCount > 1 else { return nil }
        return (decoder, covering)
    }

    /// What each entity of `wanted` needs of an animation of `frameCount` frames.
    /// A still image (one frame) needs its first frame only.
    func animationPlans(_ wanted: [(entity: any ImageEntity, formats: Set<String>)], frames frameCount: Int) -> [AnimationPlan] {
        wanted.map { entity, names in
            let ordered = formats.map(\.name).filter { names.contains($0) }
            guard frameCount > 1 else { return AnimationPlan(entity: entity, formats: ordered, everyFrame: [], ring: []) }
            let (entityKey, sourceKey) = keys.keys(entity.entityID, entity.sourceImageID)
            let lacking = ordered.filter { name in
                guard let t = tables[name] else { return false }
                guard t.table.contains(entityKey, source: sourceKey), let state = t.recordState(entity: entityKey, source: sourceKey) else {
                    return true
                }
                // Left half stored by a process that stopped: stored again (the record read once).
                return state.storing && !t.storesFrames(entity: entityKey, source: sourceKey)
            }
            return AnimationPlan(
                entity: entity, formats: ordered,
                everyFrame: lacking.filter { tables[$0]?.holdsAnimation(frames: frameCount) ?? false },
                ring: lacking.filter {
                    tables[$0].map { !$0.holdsAnimation(frames: frameCount) && $0.holdsRecord(frames: frameCount) } ?? false
                })
        }
    }

    /// Whether some format of `wanted` lacks the entity's up-to-date image (its first frame).
    func lacksFirstFrame(_ wanted: [(entity: any ImageEntity, formats: Set<String>)]) -> Bool {
        wanted.contains { entity, names in
            let (entityKey, sourceKey) = keys.keys(entity.entityID, entity.sourceImageID)
            return names.contains { tables[$0].map { !$0.table.contains(entityKey, source: sourceKey) } ?? false }
        }
    }

    /// Draws the first frame of `opened` into every format of `wanted` lacking it (as
    /// ``drawMissing(_:for:from:)``), then hands the images to `firstFrameStored` (by entity
    /// identifier, then format name). For an animation it first writes the record into the formats
    /// that store every frame, and a record that says it plays from a ring into those it is too
    /// large for (``FormatTable/holdsAnimation(frames:)``: more than a quarter of the table),
    /// counted in ``FormatStatistics/animationsTooLarge`` and ``FormatStatistics/ringAnimations``
    /// (a format too small for even the record keeps the first frame as a still image).
    ///
    /// - Returns: the frames still to store, with the decoder where it stopped (taken from
    ///   `opened`); nil for a still image, when no format stores every frame, or when `opened`
    ///   handed its frames over before (its first frame is then drawn as a still image's).
    func storeFirstFrame(
        _ opened: OpenedSource, wanted: [(entity: any ImageEntity, formats: Set<String>)], releasingPages: Bool = false,
        firstFrameStored: ([String: [String: Result<CachedImage, any Error>]]) -> Void
    ) -> RemainingFrames? {
        // Frames that can no longer be stored are not planned: no record would be completed.
        let frameCount = opened.hasFramesToStore ? opened.frameCount : 1
        var plans = animationPlans(wanted, frames: frameCount)
        var made: [String: [String: Result<CachedImage, any Error>]] = [:]
        let animation = StoredAnimation(durations: opened.animation?.durations ?? [0], loopCount: opened.animation?.loopCount ?? 1)
        var ringAnimation = animation
        ringAnimation.playsFromRing = true
        for (p, plan) in plans.enumerated() {
            let (entityKey, sourceKey) = keys.keys(plan.entity.entityID, plan.entity.sourceImageID)
            let lacking =
                frameCount > 1
                ? Set(plan.formats.filter { tables[$0].map { !$0.table.contains(entityKey, source: sourceKey) } ?? false }) : []
            // The record goes in before frame 0, so that whoever finds frame 0 finds the record:
            // a player that looked between the two would take the animation for a still image.
            var recordFailures: [String: any Error] = [:]
            // A format storing every frame says so in the record until the last one is stored,
            // so that a process that stops in the middle leaves an animation the next one completes.
            for name in plan.formats where plan.everyFrame.contains(name) || plan.ring.contains(name) {
                let storing = plan.everyFrame.contains(name)
                if storing { tables[name]?.setStoringFrames(true, entity: entityKey, source: sourceKey) }
                do {
                    try tables[name]?.storeRecord(plan.ring.contains(name) ? ringAnimation : animation, storing: storing, for: plan.entity)
                } catch {
                    recordFailures[name] = error
                }
            }
            var results = drawMissingAny(Set(plan.formats), for: plan.entity, from: opened.first)
            for (name, error) in recordFailures { results[name] = .failure(error) }
            for name in plan.formats {
                guard let t = tables[name], case .success = results[name] else { continue }
                if lacking.contains(name) && !t.holdsAnimation(frames: frameCount) {
                    t.animationCounts.withLockedValue { $0.tooLarge += 1 }
                }
                if plan.ring.contains(name) { t.animationCounts.withLockedValue { $0.ring += 1 } }
            }
            // Formats whose first frame or record failed store no other frame.
            plans[p].everyFrame.removeAll { name in
                let failed = results[name].map { if case .failure = $0 { true } else { false } } ?? true
                if failed { tables[name]?.setStoringFrames(false, entity: entityKey, source: sourceKey) }
                return failed
            }
            if releasingPages {
                for case .success(let image) in results.values { image.releaseResidentPages() }
            }
            made[plan.entity.entityID] = results
        }
        firstFrameStored(made)
        guard plans.contains(where: { !$0.everyFrame.isEmpty }), let decoder = opened.takeFrames() else { return nil }
        return RemainingFrames(policy: self, decoder: decoder, plans: plans, releasingPages: releasingPages)
    }

    /// ``drawMissing(_:for:from:)`` for an existential entity.
    private func drawMissingAny(_ names: Set<String>, for entity: any ImageEntity, from decoded: DecodedImage) -> [String: Result<
        CachedImage, any Error
    >] {
        drawMissing(names, for: entity, from: decoded)
    }
}

/// The frames after the first of an animation being stored frame by frame: the decoder where it
/// stopped and, per entity, the formats still storing frames. One owner at a time (the decoder
/// is not thread-safe): the slow lane hands it from one step to the next.
///
/// A format stops storing frames when its first frame is no longer there from the same source
/// (deleted, evicted, replaced by a newer version, the cache reset): nothing is drawn for an
/// image that is gone, and no frame of an old version is written over a new one's.
final class RemainingFrames {
    private let policy: FamilyPolicy
    private let decoder: AnimatedImageDecoder
    private var plans: [FamilyPolicy.AnimationPlan]
    private let releasingPages: Bool
    /// Frames stored so far, per entity (as `plans`) and format storing every frame.
    private var framesStored: [[String: Int]]
    /// Failures met after the first frame.
    private var errors: [any Error] = []
    private var ended = false

    init(policy: FamilyPolicy, decoder: AnimatedImageDecoder, plans: [FamilyPolicy.AnimationPlan], releasingPages: Bool) {
        self.policy = policy
        self.decoder = decoder
        self.plans = plans
        self.releasingPages = releasingPages
        framesStored = plans.map { Dictionary(uniqueKeysWithValues: $0.everyFrame.map { ($0, 1) }) }
    }

    /// The number of frames the animation announced.
    private var frameCount: Int { decoder.info.frameCount }

    /// The decoder's warnings so far: recoverable damage it went past.
    var warnings: [String] { decoder.warnings }

    /// Decodes the next frame and draws it into every format still storing frames. Returns
    /// whether frames remain to store.
    func storeNextFrame() -> Bool {
        guard !ended else { return false }
        for (p, plan) in plans.enumerated() {
            let (entityKey, sourceKey) = policy.keys.keys(plan.entity.entityID, plan.entity.sourceImageID)
            plans[p].everyFrame.removeAll { name in
                if policy.tables[name]?.table.contains(entityKey, source: sourceKey) == true { return false }
                framesStored[p][name] = nil
                policy.tables[name]?.setStoringFrames(false, entity: entityKey, source: sourceKey)
                return true
            }
        }
        guard plans.contains(where: { !$0.everyFrame.isEmpty }) else { return end() }
        let frame: AnimationFrame
        do {
            guard let next = try decoder.nextFrame() else { return end() }
            frame = next
        } catch {
            errors.append(ImageCacheError.decoding(error, format: plans.first { !$0.everyFrame.isEmpty }?.everyFrame.first))
            return end()
        }
        for (p, plan) in plans.enumerated() {
            for name in plan.everyFrame {
                guard let t = policy.tables[name] else { continue }
                do {
                    let image = try t.draw(plan.entity, from: frame.image, frame: frame.index)
                    if releasingPages { image.releaseResidentPages() }
                    framesStored[p][name] = frame.index + 1
                } catch {
                    errors.append(error)
                    plans[p].everyFrame.removeAll { $0 == name }
                }
            }
        }
        guard frame.index + 1 < frameCount, plans.contains(where: { !$0.everyFrame.isEmpty }) else { return end() }
        return true
    }

    private func end() -> Bool {
        ended = true
        return false
    }

    /// Rewrites the record of each format, which no longer says its frames are being stored:
    /// with every frame, or with fewer than announced when the format got fewer (a source cut
    /// short or damaged after its first frame keeps the frames before the damage; so does a draw
    /// that failed). Returns the failures met after the first frame.
    func finish() -> [any Error] {
        for (p, plan) in plans.enumerated() {
            let (entityKey, sourceKey) = policy.keys.keys(plan.entity.entityID, plan.entity.sourceImageID)
            for (name, count) in framesStored[p] {
                // The record no longer says "being stored": every frame it counts is there.
                do {
                    try policy.tables[name]?.storeRecord(
                        StoredAnimation(durations: Array(decoder.info.durations.prefix(count)), loopCount: decoder.info.loopCount),
                        for: plan.entity)
                } catch {
                    errors.append(error)
                }
                policy.tables[name]?.setStoringFrames(false, entity: entityKey, source: sourceKey)
            }
        }
        return errors
    }

    /// Gives up before the last frame (the cache is closing): each format that did not get every
    /// frame drops the animation, first frame and record included, so that the next request
    /// stores it whole rather than finding fewer frames than its record says.
    func abandon() {
        for (p, plan) in plans.enumerated() {
            let (entityKey, sourceKey) = policy.keys.keys(plan.entity.entityID, plan.entity.sourceImageID)
            for (name, count) in framesStored[p] {
                policy.tables[name]?.setStoringFrames(false, entity: entityKey, source: sourceKey)
                guard count < frameCount, let t = policy.tables[name], t.table.contains(entityKey, source: sourceKey) else { continue }
                t.removeAnimation(of: entityKey)
                t.table.remove(entityKey)
            }
        }
        ended = true
    }
}
