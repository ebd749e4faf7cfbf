extension ImageCache {
    /// The entries of `format`, most recently used first: one per entity (an animation's first
    /// frame; its other frames and its record are left out).
    public func entries(format: String) throws -> [TableEntry] {
        try table(format).table.entries().filter { !AnimationKeys.isAnimationLabel($0.label) }
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
