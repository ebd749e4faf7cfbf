import FICCore
import FastImageCache
import Foundation
import TiledImage

/// The photo: pans and zooms a tile pyramid. Each frame draws the visible tiles of the best
/// level for the scale; a tile not resident yet is drawn from the finest coarser tile that is
/// (blurred, never blank), and the loader reads the missing ones off the frame path.
final class PhotoMode: ViewerMode {
    private let width: Int
    private let height: Int
    private let source: PyramidSource
    private var pyramid: TilePyramid?
    private var loader: TileLoader?
    private var viewport: PhotoViewport?
    private var plan: TilePlan?
    private var surfaces: [ObjectIdentifier: CairoImageSurface] = [:]
    private var pendingActions: [ViewerAction] = []
    private var dragPoint: (x: Double, y: Double)?
    /// When the last zoom happened, until a frame shows every visible tile at its best level.
    private var zoomedAt: UInt64?
    private var lastFrameSharp = false
    private var missingLastFrame = 0
    private var framesNotSharp = 0
    private var sharpAfterZoomMs: [Double] = []
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
    var isIdle: Bool { pyramid != nil && pendingActions.isEmpty && dragPoint == nil && (loader?.isIdle ?? true) && zoomedAt == nil }

    func handle(_ action: ViewerAction) {
        guard viewport != nil else {
            pendingActions.append(action)  // the pyramid is still being built
            return
        }
        let before = viewport!.scale
        switch action {
        case .zoomBy(let factor, let x, let y): viewport!.zoom(by: factor, x: x, y: y)
        case .zoomTo(let scale, let x, let y): viewport!.zoom(to: scale, x: x, y: y)
        case .fit: viewport!.fit()
        case .panBy(let dx, let dy): viewport!.pan(dx: dx, dy: dy)
        case .dragBegan(let x, let y): dragPoint = (x, y)
        case .dragMoved(let x, let y), .dragEnded(let x, let y):
            if let last = dragPoint { viewport!.pan(dx: last.x - x, dy: last.y - y) }
            if case .dragEnded = action { dragPoint = nil } else { dragPoint = (x, y) }
        default: break
        }
        if viewport!.scale != before { zoomedAt = Stopwatch.now() }
    }

    func advance(by seconds: Double) {
        guard pyramid == nil, let ready = source.pyramid else { return }
        pyramid = ready
        let geometry = ready.geometry
        viewport = PhotoViewport(imageWidth: geometry.width, imageHeight: geometry.height, width: width, height: height)
        loader = TileLoader(pyramid: ready, capacity: TilePlan.capacity(width: width, height: height, coarsestTiles: geometry.levels.last!.tileCount),
                            readDelayMilliseconds: readDelayMilliseconds)
        let queued = pendingActions
        pendingActions = []
        for action in queued { handle(action) }
    }

    func draw(into canvas: FrameCanvas) {
        canvas.clear(gray: 0.08)
        guard let pyramid, let loader, let viewport else {
            canvas.centredText(source.status, y: Double(height) / 2)
            if let fraction = source.fraction {
                let barWidth = Double(width) * 0.6, left = (Double(width) - barWidth) / 2, top = Double(height) / 2 + 16
                canvas.fill(x: left, y: top, width: barWidth, height: 6, gray: 0.25)
                canvas.fill(x: left, y: top, width: barWidth * fraction, height: 6, gray: 0.8)
            }
            return
        }
        if plan == nil || viewport != lastViewport {
            plan = TilePlan(viewport: viewport, geometry: pyramid.geometry)
            lastViewport = viewport
        }
        let plan = plan!
        let resident = loader.update(plan)
        let levels = pyramid.geometry.levels
        let level = plan.level
        let factor = Double(1 << level)
        let effective = viewport.scale * factor
        let exact = abs(effective - 1) < 1e-9
        var originX = viewport.originX / factor, originY = viewport.originY / factor
        if exact { originX = originX.rounded(); originY = originY.rounded() }
        let side = Double(PyramidGeometry.tileSide)
        var missing = 0
        for key in plan.visible {
            let valid = levels[level].validSize(column: key.column, row: key.row)
            let left = ((Double(key.column) * side - originX) * effective).rounded()
            let top = ((Double(key.row) * side - originY) * effective).rounded()
            let right = ((Double(key.column) * side + Double(valid.width) - originX) * effective).rounded()
            let bottom = ((Double(key.row) * side + Double(valid.height) - originY) * effective).rounded()
            if let buffer = resident[key], let tile = surface(for: buffer) {
                hits += 1
                canvas.draw(tile, source: 0, 0, Double(valid.width), Double(valid.height),
                            into: left, top, right - left, bottom - top, smooth: !exact, opaque: !pyramid.hasAlpha)
                continue
            }
            missing += 1
            misses += 1
            // The finest coarser tile that is resident stands in for it.
            for coarser in (level + 1)..<max(level + 1, levels.count) {
                let ancestor = key.ancestor(at: coarser)
                guard let buffer = resident[ancestor], let tile = surface(for: buffer) else { continue }
                let shrink = Double(1 << (coarser - level))
                canvas.draw(tile,
                            source: Double(key.column) * side / shrink - Double(ancestor.column) * side,
                            Double(key.row) * side / shrink - Double(ancestor.row) * side,
                            Double(valid.width) / shrink, Double(valid.height) / shrink,
                            into: left, top, right - left, bottom - top, smooth: true, opaque: !pyramid.hasAlpha)
                break
            }
        }
        missingLastFrame = missing
        lastFrameSharp = missing == 0
        if missing > 0 { framesNotSharp += 1 }
    }

    private var lastViewport: PhotoViewport?

    /// A cairo surface over a tile buffer, made once per buffer (buffers are reused, never freed
    /// while the loader lives).
    private func surface(for buffer: PageBuffer) -> CairoImageSurface? {
        let id = ObjectIdentifier(buffer)
        if let made = surfaces[id] { return made }
        // A 256 × 256 BGRA tile, 1024 bytes a row, page-aligned: cairo accepts it.
        let made = try? CairoImageSurface(pixels: buffer.base, width: PyramidGeometry.tileSide, height: PyramidGeometry.tileSide,
                                          bytesPerRow: PyramidGeometry.tileRowStride, format: .bgra32Premultiplied, owner: buffer)
        surfaces[id] = made
        return made
    }

    func overlayLines() -> [String] {
        guard let pyramid, let viewport, let plan, let loader else { return [source.status] }
        let f = loader.figures
        let scale = viewport.scale >= 1 ? "\(Formatting.fixed(viewport.scale, 2)):1" : "1:\(Formatting.fixed(1 / viewport.scale, 2))"
        var lines = [
            "\(pyramid.geometry.width)×\(pyramid.geometry.height) px, scale \(scale), level \(plan.level) of \(pyramid.geometry.levels.count - 1)",
            "tiles: \(plan.visible.count) visible, \(missingLastFrame) still coarse; \(f.resident) resident of \(loader.capacity)",
            "reads \(f.reads), \(Formatting.fixed(f.averageMs, 2)) ms each" + (sharpAfterZoomMs.last.map { "; last zoom sharp after \(Formatting.fixed($0, 1)) ms" } ?? ""),
            "drag: pan  wheel: zoom  0: fit  1: 1:1",
        ]
        if let failure = f.firstFailure { lines.append("\(f.failed) tiles unreadable: \(failure)") }
        return lines
    }

    func framePresented(at nanoseconds: UInt64) {
        if let zoomedAt, lastFrameSharp {
            sharpAfterZoomMs.append(Double(nanoseconds &- zoomedAt) / 1e6)
            self.zoomedAt = nil
        }
    }

    func statistics() -> [String: StatValue] {
        var values: [String: StatValue] = ["mode": .string("photo"), "status": .string(source.status)]
        guard let pyramid, let viewport, let loader else { return values }
        let f = loader.figures
        let sorted = sharpAfterZoomMs.sorted()
        values["image_width"] = .int(pyramid.geometry.width)
        values["image_height"] = .int(pyramid.geometry.height)
        values["levels"] = .int(pyramid.geometry.levels.count)
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
        values["zooms_measured"] = .int(sorted.count)
        values["first_sharp_after_zoom_ms"] = .doubles(sharpAfterZoomMs)
        values["first_sharp_after_zoom_max_ms"] = .double(sorted.last ?? 0)
        values["first_sharp_after_zoom_median_ms"] = .double(sorted.isEmpty ? 0 : sorted[sorted.count / 2])
        return values
    }

    func stop() {
        loader?.stop()
        source.cancel()
    }
}
