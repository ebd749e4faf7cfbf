#if Tool
import FICCommandLine
import FICCore
import FastImageCache
import Foundation
import TiledImage

/// The photo: pans and zooms a tile pyramid. Each frame draws the visible tiles of the best
/// level for the scale; a tile not resident yet is drawn from the finest coarser tile that is
/// (blurred, never blank), and the loader reads the missing ones off the frame path.
///
/// While the pyramid is being built the photo is shown as soon as its size is known, from the
/// rows of tiles the builder has written (the rest stays background, or a coarser level's
/// written tiles stand in), sharpening as rows arrive, under the progress bar; when the build
/// finishes the loader switches to the finished pyramid (same bytes: nothing flickers).
final class PhotoMode: ViewerMode {
    private let width: Int
    private let height: Int
    private let source: PyramidSource
    /// The finished pyramid, once ready.
    private var pyramid: TilePyramid?
    /// The builder shown from while the pyramid is built.
    private var builder: TilePyramidBuilder?
    /// Its completed rows of tiles per level last seen.
    private var lastCompleted: [Int] = []
    /// The levels shown (known before the pyramid is finished).
    private var geometry: PyramidGeometry?
    /// Its levels' tile grids, made once with it (not on every frame).
    private var grid: TileGrid?
    private var loader: TileLoader?
    private var viewport: PhotoViewport?
    private var plan: TilePlan?
    private var surfaces: [ObjectIdentifier: CairoImageSurface] = [:]
    private var pendingActions: [ViewerAction] = []
    private var dragPoint: (x: Double, y: Double)?
    /// Each zoom's time to the first frame with every visible tile at its best level.
    private var sharpness = ZoomSharpness()
    private var missingLastFrame = 0
    private var framesNotSharp = 0
    /// Visible tiles drawn at their best level, and drawn from a coarser one instead (summed over frames).
    private var hits = 0
    private var misses = 0

    private let readDelayMilliseconds: Int

    init(source: PyramidSource, width: Int, height: Int, readDelayMilliseconds: Int = 0) {
        self.source = source
        self.readDelayMilliseconds = readDelayMilliseconds
        self.width = width
        self.height = height
    }

    var bindings: WindowEvents.Bindings { .photo(width: Double(width), height: Double(height)) }
    var defaultPhase: String { "photo" }
    var isIdle: Bool {
        guard pendingActions.isEmpty, dragPoint == nil else { return false }
        // A photo that could not be built has nothing left to load.
        if source.isFailed { return true }
        if pyramid != nil { return (loader?.isIdle ?? true) && !sharpness.isWaiting }
        // A build held on purpose (tests) that has settled, once its written tiles are shown.
        guard source.isHeld, let builder, let loader else { return false }
        return builder.completedTileRows == lastCompleted && loader.isSettled
    }

    func handle(_ action: ViewerAction) {
        guard viewport != nil else {
            pendingActions.append(action)  // the pyramid is still being built
            return
        }
        let before = viewport!.scale
        viewport!.apply(action, dragPoint: &dragPoint)
        if viewport!.scale != before { sharpness.zoomed(at: Stopwatch.now()) }
    }

    func advance(by seconds: Double) {
        guard pyramid == nil else { return }
        if let ready = source.pyramid {
            pyramid = ready
            builder = nil
            if let loader {
                loader.written(switchingTo: ready)
            } else {
                start(geometry: ready.geometry, reader: ready)
            }
            return
        }
        if loader == nil, let building = source.builder, let known = building.geometry {
            builder = building
            start(geometry: known, reader: building)
        }
        // No reads here: the counts are taken under the builder's progress lock, never its build lock.
        if let builder, let loader {
            let completed = builder.completedTileRows
            if completed != lastCompleted {
                lastCompleted = completed
                loader.written()
            }
        }
    }

    /// The size is known: the viewport and the loader start, and queued actions apply.
    private func start(geometry: PyramidGeometry, reader: any TileReading) {
        self.geometry = geometry
        grid = TileGrid(geometry)
        viewport = PhotoViewport(imageWidth: geometry.width, imageHeight: geometry.height, width: width, height: height)
        loader = TileLoader(
            reader: reader, capacity: TilePlan.capacity(width: width, height: height, coarsestTiles: geometry.levels.last!.tileCount),
            readDelayMilliseconds: readDelayMilliseconds)
        let queued = pendingActions
        pendingActions = []
        for action in queued { handle(action) }
    }

    func draw(into canvas: FrameCanvas) {
        canvas.clear(gray: 0.08)
        // A failed build shows its error alone, even when part of the photo was shown.
        guard !source.isFailed, let geometry, let loader, let viewport else {
            drawProgress(into: canvas, y: Double(height) / 2)
            return
        }
        drawTiles(into: canvas, geometry: geometry, loader: loader, viewport: viewport)
        if pyramid == nil { drawProgress(into: canvas, y: Double(height) - 28) }
    }

    /// The status line and, with a known size, the progress bar below it, at `y`.
    private func drawProgress(into canvas: FrameCanvas, y: Double) {
        canvas.centredText(source.status, y: y)
        if let fraction = source.fraction {
            let barWidth = Double(width) * 0.6, left = (Double(width) - barWidth) / 2, top = y + 16
            canvas.fill(x: left, y: top, width: barWidth, height: 6, gray: 0.25)
            canvas.fill(x: left, y: top, width: barWidth * fraction, height: 6, gray: 0.8)
        }
    }

    private func drawTiles(into canvas: FrameCanvas, geometry: PyramidGeometry, loader: TileLoader, viewport: PhotoViewport) {
        // While building, whether the image has alpha is not known yet: blend (same pixels when opaque).
        let opaque = !(pyramid?.hasAlpha ?? true)
        if plan == nil || viewport != lastViewport {
            plan = TilePlan(viewport: viewport, geometry: geometry)
            lastViewport = viewport
        }
        let plan = plan!
        let resident = loader.update(plan)
        let missing = plan.draw(grid: grid ?? TileGrid(geometry), viewport: viewport, into: canvas, opaque: opaque) { key in
            resident[key].flatMap { surface(for: $0) }.map { DrawableTile(surface: $0, cellX: 0, cellY: 0) }
        }.count
        hits += plan.visible.count - missing
        misses += missing
        missingLastFrame = missing
        sharpness.lastFrameSharp = missing == 0
        if missing > 0 { framesNotSharp += 1 }
    }

    private var lastViewport: PhotoViewport?

    /// A cairo surface over a tile buffer, made once per buffer (buffers are reused, never freed
    /// while the loader lives).
    private func surface(for buffer: PageBuffer) -> CairoImageSurface? {
        let id = ObjectIdentifier(buffer)
        if let made = surfaces[id] { return made }
        // A 256 × 256 BGRA tile, 1024 bytes a row, page-aligned: cairo accepts it.
        let made = try? CairoImageSurface(
            pixels: buffer.base, width: PyramidGeometry.tileSide, height: PyramidGeometry.tileSide,
            bytesPerRow: PyramidGeometry.tileRowStride, format: .bgra32Premultiplied, owner: buffer)
        surfaces[id] = made
        return made
    }

    func overlayLines() -> [String] {
        guard let geometry, let viewport, let plan, let loader else { return [source.status] }
        let f = loader.figures
        let scale = viewport.scaleText
        var lines = [
            "\(geometry.width)×\(geometry.height) px, scale \(scale), level \(plan.level) of \(geometry.levels.count - 1)"
                + (pyramid == nil ? " (building)" : ""),
            "tiles: \(plan.visible.count) visible, \(missingLastFrame) still coarse; \(f.resident) resident of \(loader.capacity)",
            "reads \(f.reads), \(Formatting.fixed(f.averageMs, 2)) ms each" + sharpness.overlayText,
            "drag: pan  wheel: zoom  0: fit  1: 1:1"
        ]
        if let failure = f.firstFailure { lines.append("\(f.failed) tiles unreadable: \(failure)") }
        return lines
    }

    func framePresented(at nanoseconds: UInt64) {
        sharpness.framePresented(at: nanoseconds)
    }

    func statistics() -> [String: StatValue] {
        var values: [String: StatValue] = ["mode": .string("photo"), "status": .string(source.status)]
        guard let geometry, let viewport, let loader else { return values }
        let f = loader.figures
        values["image_width"] = .int(geometry.width)
        values["image_height"] = .int(geometry.height)
        values["levels"] = .int(geometry.levels.count)
        values["building"] = .int(pyramid == nil ? 1 : 0)
        values["completed_tile_rows"] = .doubles(lastCompleted.map(Double.init))
        values["scale"] = .double(viewport.scale)
        values["origin_x"] = .double(viewport.originX)
        values["origin_y"] = .double(viewport.originY)
        values["level"] = .int(plan?.level ?? 0)
        values["tile_reads"] = .int(f.reads)
        values["tile_read_average_ms"] = .double(f.averageMs)
        values["tiles_unreadable"] = .int(f.failed)
        values["resident_capacity_tiles"] = .int(loader.capacity)
        values["frames_not_sharp"] = .int(framesNotSharp)
        values["hits"] = .int(hits)
        values["misses"] = .int(misses)
        values.merge(sharpness.statistics) { $1 }
        return values
    }

    func stop() {
        loader?.stop()
        source.cancel()
    }
}
#endif
