extension ImageCache {
    /// The entries of `format`, most recently used first: one per entity (an animation's first
    /// frame; its other frames and its record are left out).
    public func entries(format: String) throws -> [TableEntry] {
        try table(format).table.entries().filter { !AnimationKeys.isAnimationLabel($0.label) }
    }

    /// The caches (table objects) that have `format`'s table open now, in this process and
    /// others, this cache's marked `TableProcess.isThisTable`.
    public func openProcesses(format: String) throws -> [TableProcess] {
        try table(format).table.openProcesses()
    }

    /// How many entries `format`'s table holds, of each kind: images (one per entity, an
    /// animation's first frame included), the other frames of animations, and animation records.
    /// Every entry takes a slot; ``entries(format:)`` lists the images only.
    public func entryCounts(format: String) throws -> EntryCounts {
        var counts = EntryCounts()
        for entry in try table(format).table.entries() {
            switch AnimationKeys.kind(ofLabel: entry.label) {
            case .image: counts.images += 1
            case .frame: counts.animationFrames += 1
            case .record: counts.animationRecords += 1
            }
        }
        return counts
    }

    /// Checks every stored image's pixels against its checksum, format by format. Damaged
    /// entries are removed when `repair` is true. Returns the damaged entries by format name
    /// (formats with none are left out).
    public func verify(repair: Bool = false) -> [String: [TableEntry]] {
        var bad: [String: [TableEntry]] = [:]
        for format in formats {
            guard let t = tables[format.name] else { continue }
            let damaged = t.table.verify(repair: repair)
            if !damaged.isEmpty { bad[format.name] = damaged }
        }
        return bad
    }

    /// Writes every table's changes to disk now (`msync` and `fsync`).
    public func synchronize() throws {
        for t in tables.values {
            do { try t.table.synchronize() } catch { throw ImageCacheError.wrap(error, format: t.format.name, code: .io) }
        }
    }

    /// The path of the table file of `format`.
    public func tablePath(format: String) throws -> String {
        try table(format).table.path
    }
}

/// The entries of a format's table by kind (``ImageCache/entryCounts(format:)``).
public struct EntryCounts: Sendable, Hashable, Codable {
    /// Images: one per entity (a still image, or an animation's first frame).
    public var images = 0
    /// The frames after the first of animations stored frame by frame.
    public var animationFrames = 0
    /// Animation records (one per animation, beside its frames).
    public var animationRecords = 0

    /// Every entry: each takes a slot of the table.
    public var total: Int { images + animationFrames + animationRecords }

    /// Counts of nothing.
    public init() {}
}
