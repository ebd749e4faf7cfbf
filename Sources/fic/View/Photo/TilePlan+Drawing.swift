#if Tool
import FastImageCache
import TiledImage

/// A tile ready to draw: its surface, and where its grid cell starts in it (after a remote
/// tile's overlap).
struct DrawableTile {
    let surface: CairoImageSurface
    let cellX: Double
    let cellY: Double
}

extension TilePlan {
    /// Draws the plan's visible tiles of `grid` as `viewport` places them, each from `tile(key)`
    /// when it is there, else from the finest coarser tile that is (blurred, never blank); returns
    /// the visible tiles drawn from a coarser one. At exact scales (1:1, 1:2, …) tiles are copied
    /// pixel for pixel, between them scaled bilinearly. Both photo modes draw this way: a pyramid
    /// being built, and a tile table.
    func draw(
        grid: TileGrid, viewport: PhotoViewport, into canvas: FrameCanvas, opaque: Bool, tile: (TileKey) -> DrawableTile?
    ) -> [TileKey] {
        let factor = Double(1 << level)
        let effective = viewport.scale * factor
        let exact = abs(effective - 1) < 1e-9
        var originX = viewport.originX / factor, originY = viewport.originY / factor
        if exact { originX = originX.rounded(); originY = originY.rounded() }
        let tileWidth = Double(grid.tileWidth), tileHeight = Double(grid.tileHeight)
        var missing: [TileKey] = []
        for key in visible {
            let cell = grid.cellSize(level: level, column: key.column, row: key.row)
            let left = ((Double(key.column) * tileWidth - originX) * effective).rounded()
            let top = ((Double(key.row) * tileHeight - originY) * effective).rounded()
            let right = ((Double(key.column) * tileWidth + Double(cell.width) - originX) * effective).rounded()
            let bottom = ((Double(key.row) * tileHeight + Double(cell.height) - originY) * effective).rounded()
            if let shown = tile(key) {
                canvas.draw(
                    shown.surface, source: shown.cellX, shown.cellY, Double(cell.width), Double(cell.height),
                    into: left, top, right - left, bottom - top, smooth: !exact, opaque: opaque)
                continue
            }
            missing.append(key)
            for coarser in (level + 1)..<max(level + 1, grid.levels.count) {
                let ancestor = key.ancestor(at: coarser)
                guard let shown = tile(ancestor) else { continue }
                let shrink = Double(1 << (coarser - level))
                canvas.draw(
                    shown.surface,
                    source: Double(key.column) * tileWidth / shrink - Double(ancestor.column) * tileWidth + shown.cellX,
                    Double(key.row) * tileHeight / shrink - Double(ancestor.row) * tileHeight + shown.cellY,
                    Double(cell.width) / shrink, Double(cell.height) / shrink,
                    into: left, top, right - left, bottom - top, smooth: true, opaque: opaque)
                break
            }
        }
        return missing
    }
}
#endif
