import FICCore
import Foundation
import ImageTable
import Logging

/// One format and its open table.
final class FormatTable: Sendable {
    let format: ImageFormat
    let table: ImageTable
    let keys: KeyMemo
    /// The animation figures of ``FormatStatistics`` that the table itself does not count.
    let animationCounts = LockedBox(AnimationCounts())
    /// The cache's callers' lookups of this format (``FormatStatistics/hits`` and ``FormatStatistics/misses``).
    let lookups = LookupCounters()
    /// The animations (entity and source keys) whose frames after the first a job of this
    /// process is storing into this table: a record saying "being stored" that is not among
    /// them was left by a process that stopped in the middle.
    private let framesBeingStored = LockedBox<Set<[TableKey]>>([])
    /// Images drawn into memory of their own because the table could not take them (alive now).
    let unstoredImages = LockedBox(0)
    private let logger: Logger

    /// Counters of animations over the quarter-of-a-table bound and of their rings.
    struct AnimationCounts: Sendable {
        /// Animations over the bound stored since the cache opened.
        var tooLarge = 0
        /// Those of them stored to play from a ring (their record fits in a slot).
        var ring = 0
        /// Frames decoded and drawn into rings.
        var ringFrameDecodes = 0
        /// Rings' decoders started again from the first frame (playing looped, or jumped back).
        var ringRestarts = 0
    }

    init(format: ImageFormat, namespace: CacheNamespace, fileExtension: String, options: TableOpenOptions, keys: KeyMemo, logger: Logger)
        throws
    {
        self.format = format
        self.keys = keys
        self.logger = logger
        let p = format.pixelSize
        var tableOptions = options
        tableOptions.readOnly = namespace.isReadOnly
        table = try ImageTable(
            directory: namespace.folder, name: format.name + fileExtension,
            configuration: TableConfiguration(
                pixelWidth: p.width, pixelHeight: p.height, bytesPerPixel: format.style.bytesPerPixel,
                maximumCount: format.maximumCount, identity: format.identity), options: tableOptions, logger: logger)
    }

    /// Draws `source` for `entity` straight into a new slot of the table. A draw that fails —
    /// the entity's method throws, or cairo records an error — stores nothing.
    ///
    /// - Throws: ``ImageCacheError`` `.drawingFailed` (the cause says why), or a storage failure.
    func draw(_ entity: some ImageEntity, from source: DecodedImage) throws -> CachedImage {
        try draw(entity, from: source, frame: 0)
    }

    /// Draws `source` for `entity` as frame `frame` of its animation (frame 0 is the entity's own
    /// entry, what ``draw(_:from:)`` stores): the same drawing, under the frame's key.
    func draw(_ entity: some ImageEntity, from source: DecodedImage, frame: Int) throws -> CachedImage {
        let (entityKey, sourceKey) = keys.keys(entity.entityID, entity.sourceImageID)
        let key = AnimationKeys.frame(frame, of: entityKey)
        let label = frame == 0 ? entity.entityID : AnimationKeys.frameLabel(frame, of: entity.entityID)
        return try drawing {
            do {
                let pin = try table.insertPinned(entity: key, source: sourceKey, label: label) { pixels in
                    try render(entity, from: source, into: pixels.baseAddress!)
                }
                return CachedImage(table: self, pinned: pin, entityID: entity.entityID, frame: frame)
            } catch let error as ImageCacheError where error.code == .inUse {
                // Another process stopped in the middle of a store holds the table's writer lock:
                // the request still gets its image, drawn into memory of its own, unstored.
                logger.notice("an image was not stored: \(error.message)", metadata: ["format": "\(format.name)"])
                let unstored = try RingFrame(byteCount: table.configuration.pixelByteCount, alive: unstoredImages)
                try render(entity, from: source, into: unstored.pixels.base)
                return CachedImage(table: self, ringFrame: unstored, entityID: entity.entityID, frame: frame)
            }
        }
    }

    /// Draws `source` for `entity` as frame `index` of a ring (``AnimationRings``): the same
    /// drawing as ``draw(_:from:frame:)``, into memory of its own counted by `alive`, not into
    /// the table.
    func drawRingFrame(_ entity: any ImageEntity, from source: DecodedImage, frame index: Int, alive: LockedBox<Int>) throws -> CachedImage
    {
        try drawing {
            let frame = try RingFrame(byteCount: table.configuration.pixelByteCount, alive: alive)
            try render(entity, from: source, into: frame.pixels.base)
            return CachedImage(table: self, ringFrame: frame, entityID: entity.entityID, frame: index)
        }
    }

    /// Clears the image at `pixels` (one image of the format) and draws `source` into it with
    /// `entity`'s draw method: the one drawing of table entries and ring frames alike.
    private func render(_ entity: some ImageEntity, from source: DecodedImage, into pixels: UnsafeMutableRawPointer) throws {
        let p = format.pixelSize
        let canvas = try ImageCanvas(
            pixels: pixels, pixelWidth: p.width, pixelHeight: p.height, bytesPerRow: table.configuration.bytesPerRow,
            pixelFormat: format.style, scale: CGFloat(format.scale))
        canvas.clear()
        try entity.draw(source, format: format, canvas: canvas)
        try canvas.checkStatus()
        canvas.finish()
    }

    /// Runs a drawing, naming its failures: `.drawingFailed` (the cause says why), or a storage failure.
    private func drawing(_ body: () throws -> CachedImage) throws -> CachedImage {
        do {
            return try body()
        } catch let error as ImageCacheError where error.code == .invalidArgument {
            throw ImageCacheError(.drawingFailed, "drawing the image failed", format: format.name, underlying: error)
        } catch {
            throw ImageCacheError.wrap(error, format: format.name, code: .drawingFailed)
        }
    }

    // MARK: Animations

    /// Whether an animation of `frameCount` frames is stored frame by frame: its frames and its
    /// record take at most a quarter of the table, and the record fits in a slot.
    func holdsAnimation(frames frameCount: Int) -> Bool {
        frameCount + 1 <= format.maximumCount / 4 && holdsRecord(frames: frameCount)
    }

    /// Whether the record of an animation of `frameCount` frames fits in a slot: an animation
    /// over the bound of ``holdsAnimation(frames:)`` then plays from a ring; otherwise (a tiny
    /// format and a long animation) it stays its first frame.
    func holdsRecord(frames frameCount: Int) -> Bool {
        AnimationRecord.byteCount(frames: frameCount) <= table.configuration.pixelByteCount
    }

    /// Stores the animation record of `entity`, replacing any older one.
    func storeRecord(_ animation: StoredAnimation, storing: Bool = false, for entity: some ImageEntity) throws {
        let (entityKey, sourceKey) = keys.keys(entity.entityID, entity.sourceImageID)
        do {
            try table.insert(
                entity: AnimationKeys.record(of: entityKey), source: sourceKey, label: AnimationKeys.recordLabel(of: entity.entityID)
            ) { bytes in
                bytes.initializeMemory(as: UInt8.self, repeating: 0)
                AnimationRecord.write(animation, storing: storing, to: bytes)
            }
        } catch {
            throw ImageCacheError.wrap(error, format: format.name, code: .io)
        }
    }

    /// The stored animation record of the entity whose keys are given, drawn from that source
    /// version; nil when there is none.
    func record(entity entityKey: TableKey, source sourceKey: TableKey) -> StoredAnimation? {
        recordState(entity: entityKey, source: sourceKey)?.animation
    }

    /// The stored record, and whether it says its frames are being stored.
    func recordState(entity entityKey: TableKey, source sourceKey: TableKey) -> (animation: StoredAnimation, storing: Bool)? {
        guard let stored = table.image(for: AnimationKeys.record(of: entityKey), source: sourceKey) else { return nil }
        return stored.withUnsafeBytes { AnimationRecord.readWithState($0) }
    }

    /// Whether the entity's animation was left half stored by a process that stopped (its
    /// record says its frames are being stored, and no job of this process stores them): its
    /// frames are then stored again, as if it lacked them.
    func isLeftHalfStored(entity entityKey: TableKey, source sourceKey: TableKey) -> Bool {
        guard let state = recordState(entity: entityKey, source: sourceKey), state.storing else { return false }
        return !storesFrames(entity: entityKey, source: sourceKey)
    }

    /// Whether a job of this process is storing the entity's frames after the first.
    func storesFrames(entity entityKey: TableKey, source sourceKey: TableKey) -> Bool {
        framesBeingStored.withLockedValue { $0.contains([entityKey, sourceKey]) }
    }

    /// A job of this process starts (`true`) or stops (`false`) storing the entity's frames.
    func setStoringFrames(_ storing: Bool, entity entityKey: TableKey, source sourceKey: TableKey) {
        framesBeingStored.withLockedValue { set in
            if storing { set.insert([entityKey, sourceKey]) } else { set.remove([entityKey, sourceKey]) }
        }
    }

    /// Removes the frames after the first and the record of the entity whose key is
    /// `entityKey`, whatever source version they were drawn from.
    func removeAnimation(of entityKey: TableKey) {
        let recordKey = AnimationKeys.record(of: entityKey)
        guard let stored = table.image(for: recordKey), let animation = stored.withUnsafeBytes({ AnimationRecord.read($0) }) else { return }
        for frame in 1..<max(1, animation.frameCount) { table.remove(AnimationKeys.frame(frame, of: entityKey)) }
        table.remove(recordKey)
    }
}
