#if Tool
import TiledImage

/// One tile of a pyramid: its level, column and row.
struct TileKey: Hashable, Sendable {
    let level: Int
    let column: Int
    let row: Int

    /// The tile of level `level` (coarser than this one's) that covers this tile.
    func ancestor(at level: Int) -> TileKey {
        let shift = level - self.level
        return TileKey(level: level, column: column >> shift, row: row >> shift)
    }
}

/// The tiles of a pyramid a viewport needs: what to draw, what to load first, what to keep.
struct TilePlan: Equatable {
    /// The level drawn.
    let level: Int
    /// The tiles of `level` in view, nearest the centre first.
    let visible: [TileKey]
    /// What the loader should read, most urgent first: the coarsest level whole (so that
    /// something can always be drawn), the visible tiles, a ring around them, then the visible
    /// part of the next coarser level (for zooming out).
    let wanted: [TileKey]
    /// What must stay resident: everything wanted, and each visible tile's coarser ancestors
    /// (drawn in its place while it loads).
    let keep: Set<TileKey>

    /// The plan for a local pyramid.
    init(viewport: PhotoViewport, geometry: PyramidGeometry) {
        self.init(viewport: viewport, grid: TileGrid(geometry))
    }

    /// The plan for any grid of tiles (a local pyramid's, a remote service's).
    init(viewport: PhotoViewport, grid: TileGrid) {
        let levels = grid.levels
        let level = viewport.bestLevel(levelCount: levels.count)
        self.level = level
        func tiles(at level: Int, margin: Int) -> [TileKey] {
            let info = levels[level]
            let factorX = Double(1 << level) * Double(grid.tileWidth), factorY = Double(1 << level) * Double(grid.tileHeight)
            let c0 = max(0, Int((viewport.originX / factorX).rounded(.down)) - margin)
            let r0 = max(0, Int((viewport.originY / factorY).rounded(.down)) - margin)
            let c1 = min(info.columns - 1, Int(((viewport.originX + viewport.width / viewport.scale) / factorX).rounded(.down)) + margin)
            let r1 = min(info.rows - 1, Int(((viewport.originY + viewport.height / viewport.scale) / factorY).rounded(.down)) + margin)
            guard c0 <= c1, r0 <= r1 else { return [] }
            let cx = (viewport.originX + viewport.width / viewport.scale / 2) / factorX
            let cy = (viewport.originY + viewport.height / viewport.scale / 2) / factorY
            var keys: [TileKey] = []
            keys.reserveCapacity((c1 - c0 + 1) * (r1 - r0 + 1))
            for r in r0...r1 { for c in c0...c1 { keys.append(TileKey(level: level, column: c, row: r)) } }
            return keys.sorted {
                let a =
                    (Double($0.column) + 0.5 - cx) * (Double($0.column) + 0.5 - cx) + (Double($0.row) + 0.5 - cy)
                    * (Double($0.row) + 0.5 - cy)
                let b =
                    (Double($1.column) + 0.5 - cx) * (Double($1.column) + 0.5 - cx) + (Double($1.row) + 0.5 - cy)
                    * (Double($1.row) + 0.5 - cy)
                return a < b
            }
        }
        let coarsest = levels.count - 1
        let visible = tiles(at: level, margin: 0)
        self.visible = visible
        var wanted: [TileKey] = []
        var seen = Set<TileKey>()
        func add(_ keys: [TileKey]) {
            for key in keys where seen.insert(key).inserted { wanted.append(key) }
        }
        let info = levels[coarsest]
        add((0..<info.rows).flatMap { r in (0..<info.columns).map { TileKey(level: coarsest, column: $0, row: r) } })
        add(visible)
        add(tiles(at: level, margin: 1))
        if level < coarsest { add(tiles(at: level + 1, margin: 0)) }
        self.wanted = wanted
        var keep = seen
        for key in visible where level < coarsest {
            for ancestorLevel in (level + 1)...coarsest { keep.insert(key.ancestor(at: ancestorLevel)) }
        }
        self.keep = keep
    }

    /// The most tiles a plan can hold for a `width × height` window: visible tiles at up to
    /// twice the window's size in each direction, a ring around them, the next level's, and
    /// the ancestors.
    static func capacity(width: Int, height: Int, coarsestTiles: Int) -> Int {
        let across = (width + 127) / 128 + 1, down = (height + 127) / 128 + 1
        let visible = across * down
        let ring = 2 * (across + down) + 4
        return visible + ring + visible / 2 + coarsestTiles + 16
    }
}
#endif
