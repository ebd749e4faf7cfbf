#if Tool
import FICCommandLine
import FICCore
import FastImageCache
import Foundation
import ImageLoader
import TiledImage

/// The photo from a remote tile service (Deep Zoom, IIIF): pans and zooms like a local pyramid
/// (``PhotoMode``), choosing tiles with the same ``TilePlan``, but its tiles come from the
/// service through the cache's lanes (``RemoteTileScheduler``) and are drawn straight from the
/// cache's table: a tile not stored yet is drawn from the finest coarser tile that is.
///
/// Remote tiles may have any size and overlap their neighbours (Deep Zoom): each tile's grid cell
/// alone is drawn, its overlap skipped.
final class RemotePhotoMode: ViewerMode {
    private let width: Int
    private let height: Int
    private let source: RemoteTileSource
    private let grid: TileGrid
    private let scheduler: RemoteTileScheduler
    private var viewport: PhotoViewport
    private var plan: TilePlan?
    private var lastViewport: PhotoViewport?
    /// Stored tiles over the plan's `keep` set, as cairo surfaces (each holds its slot mapped).
    private var resident: [TileKey: CairoImageSurface] = [:]
    private var dragPoint: (x: Double, y: Double)?
    /// Each zoom's time to the first frame with every visible tile at its best level.
    private var sharpness = ZoomSharpness()
    private var missingLastFrame = 0
    private var framesNotSharp = 0
    private var hits = 0
    private var misses = 0

    init(source: RemoteTileSource, width: Int, height: Int) {
        self.source = source
        self.width = width
        self.height = height
        grid = TileGrid(source.image.descriptor).trimmedToOneTile
        scheduler = RemoteTileScheduler(image: source.image)
        viewport = PhotoViewport(
            imageWidth: source.image.descriptor.width, imageHeight: source.image.descriptor.height, width: width, height: height)
    }

    var bindings: WindowEvents.Bindings { .photo(width: Double(width), height: Double(height)) }
    var defaultPhase: String { "photo" }
    var isIdle: Bool { dragPoint == nil && plan != nil && sharpness.lastFrameSharp && scheduler.isIdle }

    func handle(_ action: ViewerAction) {
        let before = viewport.scale
        viewport.apply(action, dragPoint: &dragPoint)
        if viewport.scale != before { sharpness.zoomed(at: Stopwatch.now()) }
    }

    func advance(by seconds: Double) {}

    func draw(into canvas: FrameCanvas) {
        canvas.clear(gray: 0.08)
        if plan == nil || viewport != lastViewport {
            plan = TilePlan(viewport: viewport, grid: grid)
            lastViewport = viewport
            scheduler.update(plan!, coarsest: grid.levels.count - 1)
        }
        let plan = plan!
        refreshResident(plan)
        let level = plan.level
        let factor = Double(1 << level)
        let effective = viewport.scale * factor
        let exact = abs(effective - 1) < 1e-9
        var originX = viewport.originX / factor, originY = viewport.originY / factor
        if exact { originX = originX.rounded(); originY = originY.rounded() }
        let tileWidth = Double(grid.tileWidth), tileHeight = Double(grid.tileHeight)
        var missing = 0, waiting = 0
        for key in plan.visible {
            let cell = grid.cellSize(level: level, column: key.column, row: key.row)
            let left = ((Double(key.column) * tileWidth - originX) * effective).rounded()
            let top = ((Double(key.row) * tileHeight - originY) * effective).rounded()
            let right = ((Double(key.column) * tileWidth + Double(cell.width) - originX) * effective).rounded()
            let bottom = ((Double(key.row) * tileHeight + Double(cell.height) - originY) * effective).rounded()
            if let tile = resident[key] {
                hits += 1
                let (x, y) = overlapOffset(key)
                canvas.draw(
                    tile, source: x, y, Double(cell.width), Double(cell.height),
                    into: left, top, right - left, bottom - top, smooth: !exact, opaque: false)
                continue
            }
            missing += 1
            misses += 1
            if !scheduler.hasFailed(key) { waiting += 1 }
            // The finest coarser tile that is stored stands in for it.
            for coarser in (level + 1)..<max(level + 1, grid.levels.count) {
                let ancestor = key.ancestor(at: coarser)
                guard let tile = resident[ancestor] else { continue }
                let shrink = Double(1 << (coarser - level))
                let (x, y) = overlapOffset(ancestor)
                canvas.draw(
                    tile,
                    source: Double(key.column) * tileWidth / shrink - Double(ancestor.column) * tileWidth + x,
                    Double(key.row) * tileHeight / shrink - Double(ancestor.row) * tileHeight + y,
                    Double(cell.width) / shrink, Double(cell.height) / shrink,
                    into: left, top, right - left, bottom - top, smooth: true, opaque: false)
                break
            }
        }
        missingLastFrame = missing
        // A tile that failed will not sharpen: the frame is as sharp as it will get.
        sharpness.lastFrameSharp = waiting == 0
        if missing > 0 { framesNotSharp += 1 }
    }

    /// Where a tile's grid cell starts in its pixels: after the overlap on the sides that have a neighbour.
    private func overlapOffset(_ key: TileKey) -> (Double, Double) {
        let overlap = Double(source.image.overlap)
        return (key.column > 0 ? overlap : 0, key.row > 0 ? overlap : 0)
    }

    /// Keeps a surface for each tile of the plan's `keep` set that the cache has stored: those
    /// that left the set are let go (their slots may be reused), new arrivals are taken from the
    /// table, zero-copy, without waiting.
    private func refreshResident(_ plan: TilePlan) {
        if resident.count > plan.keep.count || resident.keys.contains(where: { !plan.keep.contains($0) }) {
            resident = resident.filter { plan.keep.contains($0.key) }
        }
        for key in plan.keep where resident[key] == nil {
            guard let image = source.image.cachedTile(level: key.level, column: key.column, row: key.row),
                let size = source.image.tileSize(level: key.level, column: key.column, row: key.row)
            else { continue }
            // A surface of the tile's own size (not the slot's), so that smoothing at the image's
            // edges repeats the last pixels instead of reading the slot's unused ones.
            resident[key] = try? CairoImageSurface(
                pixels: UnsafeMutableRawPointer(mutating: image.baseAddress), width: size.width, height: size.height,
                bytesPerRow: image.bytesPerRow, format: image.style, owner: image)
        }
    }

    func overlayLines() -> [String] {
        let f = scheduler.figures, n = source.figures
        let descriptor = source.image.descriptor
        let scale = viewport.scale >= 1 ? "\(Formatting.fixed(viewport.scale, 2)):1" : "1:\(Formatting.fixed(1 / viewport.scale, 2))"
        var lines = [
            "\(descriptor.width)×\(descriptor.height) px, scale \(scale), level \(plan?.level ?? 0) of \(grid.levels.count - 1), tiles \(grid.tileWidth)×\(grid.tileHeight)",
            "tiles: \(plan?.visible.count ?? 0) visible, \(missingLastFrame) still coarse; \(resident.count) drawn from the table",
            "fetched \(n.fetches), decoded \(n.decodes); fast \(f.requested), slow \(f.prefetched), demoted \(f.demoted), cancelled \(f.cancelled)"
                + sharpness.overlayText,
            "drag: pan  wheel: zoom  0: fit  1: 1:1"
        ]
        if let failure = f.firstFailure { lines.append("\(f.failed) tiles failed: \(failure)") }
        return lines
    }

    func framePresented(at nanoseconds: UInt64) {
        sharpness.framePresented(at: nanoseconds)
    }

    func statistics() -> [String: StatValue] {
        let f = scheduler.figures, n = source.figures
        return [
            "mode": .string("photo"),
            "status": .string(source.image.url.absoluteString),
            "remote": .int(1),
            "image_width": .int(source.image.descriptor.width),
            "image_height": .int(source.image.descriptor.height),
            "levels": .int(grid.levels.count),
            "tile_width": .int(grid.tileWidth),
            "tile_height": .int(grid.tileHeight),
            "scale": .double(viewport.scale),
            "origin_x": .double(viewport.originX),
            "origin_y": .double(viewport.originY),
            "level": .int(plan?.level ?? 0),
            // Network responses, the descriptor's included; tiles the cache fetched and decoded.
            "network_requests": .int(n.downloads),
            "tile_fetches": .int(n.fetches),
            "tile_decodes": .int(n.decodes),
            "tiles_requested_fast": .int(f.requested),
            "tiles_prefetched": .int(f.prefetched),
            "tiles_demoted": .int(f.demoted),
            "tiles_cancelled": .int(f.cancelled),
            "tiles_unreadable": .int(f.failed),
            "frames_not_sharp": .int(framesNotSharp),
            "hits": .int(hits),
            "misses": .int(misses)
        ].merging(sharpness.statistics) { $1 }
    }

    func stop() {
        scheduler.stop()
        resident = [:]
        source.close()
    }
}
#endif
