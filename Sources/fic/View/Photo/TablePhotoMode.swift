#if Tool
import FICCommandLine
import FICCore
import FastImageCache
import Foundation
import TiledImage

/// The photo from a tile table: a pyramidal TIFF's, or a remote tile service's (Deep Zoom,
/// IIIF). Pans and zooms like a pyramid being built (``PhotoMode``), choosing tiles with the same
/// ``TilePlan``, but its tiles are decoded once into the table through the cache's lanes
/// (``TileScheduler``) and drawn straight from it, zero-copy: a tile not stored yet is drawn from
/// the finest coarser tile that is.
///
/// Remote tiles may have any size and overlap their neighbours (Deep Zoom): each tile's grid cell
/// alone is drawn, its overlap skipped.
final class TablePhotoMode: ViewerMode {
    private let width: Int
    private let height: Int
    private let source: any TableTileSource
    private let tiles: TileTable
    private let grid: TileGrid
    private let scheduler: TileScheduler
    private var viewport: PhotoViewport
    private var plan: TilePlan?
    private var lastViewport: PhotoViewport?
    /// Stored tiles over the plan's `keep` set, as cairo surfaces (each holds its slot mapped).
    private var resident: [TileKey: CairoImageSurface] = [:]
    /// The stored tiles behind ``resident``'s surfaces.
    private var slots: [TileKey: CachedImage] = [:]
    private var dragPoint: (x: Double, y: Double)?
    /// Each zoom's time to the first frame with every visible tile at its best level.
    private var sharpness = ZoomSharpness()
    private var missingLastFrame = 0
    private var framesNotSharp = 0
    private var hits = 0
    private var misses = 0

    init(source: any TableTileSource, width: Int, height: Int) {
        self.source = source
        self.width = width
        self.height = height
        tiles = source.tiles
        grid = source.tiles.grid.trimmedToOneTile
        scheduler = TileScheduler(tiles: source.tiles)
        viewport = PhotoViewport(imageWidth: grid.levels[0].width, imageHeight: grid.levels[0].height, width: width, height: height)
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
        let missingKeys = plan.draw(grid: grid, viewport: viewport, into: canvas, opaque: false) { key in
            resident[key].map { surface in
                let origin = tiles.cellOrigin(column: key.column, row: key.row)
                return DrawableTile(surface: surface, cellX: Double(origin.x), cellY: Double(origin.y))
            }
        }
        let missing = missingKeys.count
        hits += plan.visible.count - missing
        misses += missing
        let waiting = missingKeys.filter { !scheduler.hasFailed($0) }.count
        missingLastFrame = missing
        // A tile that failed will not sharpen: the frame is as sharp as it will get.
        sharpness.lastFrameSharp = waiting == 0
        if missing > 0 { framesNotSharp += 1 }
    }

    /// Keeps a surface for each tile of the plan's `keep` set that the cache has stored: those
    /// that left the set are let go (their slots may be reused), new arrivals are taken from the
    /// table, zero-copy, without waiting.
    private func refreshResident(_ plan: TilePlan) {
        if slots.count > plan.keep.count || slots.keys.contains(where: { !plan.keep.contains($0) }) {
            for (key, slot) in slots where !plan.keep.contains(key) {
                // Its pages leave this process's resident memory (the table keeps the tile):
                // however far the view pans, memory holds the plan's tiles alone.
                slot.releaseResidentPages()
            }
            slots = slots.filter { plan.keep.contains($0.key) }
            resident = resident.filter { plan.keep.contains($0.key) }
        }
        for key in plan.keep where resident[key] == nil {
            guard let image = tiles.cachedTile(level: key.level, column: key.column, row: key.row),
                let size = tiles.tileSize(level: key.level, column: key.column, row: key.row)
            else { continue }
            // A surface of the tile's own size (not the slot's), so that smoothing at the image's
            // edges repeats the last pixels instead of reading the slot's unused ones.
            guard
                let surface = try? CairoImageSurface(
                    pixels: UnsafeMutableRawPointer(mutating: image.baseAddress), width: size.width, height: size.height,
                    bytesPerRow: image.bytesPerRow, format: image.style, owner: image)
            else { continue }
            resident[key] = surface
            slots[key] = image
        }
    }

    func overlayLines() -> [String] {
        let f = scheduler.figures
        let full = grid.levels[0]
        let scale = viewport.scaleText
        var lines = [
            "\(full.width)×\(full.height) px, scale \(scale), level \(plan?.level ?? 0) of \(grid.levels.count - 1), tiles \(grid.tileWidth)×\(grid.tileHeight)",
            "tiles: \(plan?.visible.count ?? 0) visible, \(missingLastFrame) still coarse; \(resident.count) drawn from the table",
            "\(source.overlayFigures); fast \(f.requested), slow \(f.prefetched), demoted \(f.demoted), cancelled \(f.cancelled)"
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
        let f = scheduler.figures
        return [
            "mode": .string("photo"),
            "status": .string(source.name),
            "image_width": .int(grid.levels[0].width),
            "image_height": .int(grid.levels[0].height),
            // The image's levels, those below the first single tile included (never drawn).
            "levels": .int(tiles.grid.levels.count),
            "tile_width": .int(grid.tileWidth),
            "tile_height": .int(grid.tileHeight),
            "scale": .double(viewport.scale),
            "origin_x": .double(viewport.originX),
            "origin_y": .double(viewport.originY),
            "level": .int(plan?.level ?? 0),
            // Tiles the table read (fetched, for a remote image) and decoded.
            "tile_fetches": .int(tiles.cache.statistics.sourceFetches),
            "tile_decodes": .int(tiles.cache.statistics.sourceDecodes),
            "tiles_requested_fast": .int(f.requested),
            "tiles_prefetched": .int(f.prefetched),
            "tiles_demoted": .int(f.demoted),
            "tiles_cancelled": .int(f.cancelled),
            "tiles_unreadable": .int(f.failed),
            "frames_not_sharp": .int(framesNotSharp),
            "hits": .int(hits),
            "misses": .int(misses)
        ].merging(sharpness.statistics) { $1 }.merging(source.statistics) { $1 }.merging(visibleStoredBytes) { $1 }
    }

    /// The stored bytes of the tiles visible now, when the source knows them.
    private var visibleStoredBytes: [String: StatValue] {
        guard let plan else { return [:] }
        let sizes = plan.visible.map { source.storedBytes(level: $0.level, column: $0.column, row: $0.row) }
        guard sizes.allSatisfy({ $0 != nil }) else { return [:] }
        return ["visible_stored_bytes": .int(sizes.reduce(0) { $0 + $1! })]
    }

    func stop() {
        scheduler.stop()
        resident = [:]
        slots = [:]
        source.close()
    }
}

/// Where a ``TablePhotoMode``'s tiles come from: a table, and what the window and the statistics
/// say of its source.
protocol TableTileSource: Sendable {
    /// The table the tiles are drawn from.
    var tiles: TileTable { get }
    /// The image's name: a file's, or a URL.
    var name: String { get }
    /// The overlay's words for the work done (fetches, decodes).
    var overlayFigures: String { get }
    /// Figures of the source's own for the statistics (merged over the mode's).
    var statistics: [String: StatValue] { get }
    /// Closes the table (and anything the source holds open).
    func close()
    /// The bytes the file stores for a tile, when the source knows them (a remote pyramidal TIFF's
    /// IFDs give them): what showing it costs the network.
    func storedBytes(level: Int, column: Int, row: Int) -> Int?
}

extension TableTileSource {
    /// Unknown.
    func storedBytes(level: Int, column: Int, row: Int) -> Int? { nil }
}
#endif
