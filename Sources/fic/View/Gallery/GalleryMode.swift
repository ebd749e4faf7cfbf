#if Tool
import FICDemo
import FastImageCache

/// The gallery: a grid of thumbnails scrolled with the wheel, keys, drags and flings. Each cell
/// takes its image from the current ``CellSource`` when it appears and holds it while it is
/// visible, as a cell view holds its image; a cell whose image is not ready shows a placeholder
/// and asks again on the next frames. An animated image plays while its cell is visible
/// (``GalleryAnimations``).
final class GalleryMode: ViewerMode {
    private let layout: GalleryLayout
    private var scroller: GalleryScroller
    private let cacheSource: any CellSource
    private let conventional: ConventionalPreparation?
    private var source: any CellSource
    private var live: [Int: LiveCell] = [:]
    private var animations = GalleryAnimations()
    private var waiting: Set<Int> = []
    private var lastVisible: Range<Int> = 0..<0
    private var lastOffset = 0
    private var wantsConventional = false
    /// Cells that appeared with their image ready, and without it.
    private var hits = 0
    private var misses = 0
    /// Cells that showed a placeholder and were filled in later.
    private var filledLater = 0
    /// Cells drawn as placeholders, summed over frames, and cells drawn as errors (failed).
    private var placeholderCellFrames = 0
    private var errorCellFrames = 0
    private var hitsByPath: [String: (hits: Int, misses: Int)] = [:]
    private var hitsByPhase: [String: (hits: Int, misses: Int)] = [:]
    private var phase: String?
    private(set) var imagesShown = 0

    init(layout: GalleryLayout, cacheSource: any CellSource, conventional: ConventionalPreparation?) {
        self.layout = layout
        scroller = GalleryScroller(maximumOffset: Double(layout.maximumOffset))
        self.cacheSource = cacheSource
        self.conventional = conventional
        source = cacheSource
    }

    var bindings: WindowEvents.Bindings {
        .gallery(rowHeight: Double(layout.rowPitch), pageHeight: Double(layout.height - layout.rowPitch))
    }

    var defaultPhase: String { source.name }

    /// At rest with nothing left to load (cells still waiting then have no image to come).
    var isIdle: Bool {
        scroller.isAtRest && source.isIdle && (conventional?.isReady ?? true)
            && !(wantsConventional && conventional != nil && source !== conventional?.source)
    }

    func handle(_ action: ViewerAction) {
        switch action {
        case .scrollBy(let dy): scroller.scroll(by: dy)
        case .scrollTo(let y): scroller.scroll(to: y)
        case .fling(let v): scroller.fling(v)
        case .dragBegan(_, let y): scroller.dragBegan(y: y)
        case .dragMoved(_, let y): scroller.dragMoved(y: y)
        case .dragEnded(_, let y): scroller.dragEnded(y: y)
        case .togglePath: wantsConventional.toggle()
        case .replay: animations.replay()
        default: break
        }
    }

    func advance(by seconds: Double) {
        scroller.advance(by: seconds)
        animations.advance(by: seconds)
        let target: any CellSource = wantsConventional ? (conventional?.source ?? source) : cacheSource
        if target !== source {
            source = target
            live.removeAll()  // every cell fetches its image again, the new way
            animations.removeAll()
            waiting.removeAll()
        }
    }

    func draw(into canvas: FrameCanvas) {
        let offset = scroller.pixelOffset
        let visible = layout.visibleCells(offset: offset)
        source.visibleCellsChanged(visible, direction: offset > lastOffset ? 1 : offset < lastOffset ? -1 : 0)
        lastOffset = offset
        // Let go of the cells that left the screen.
        if visible != lastVisible {
            for index in lastVisible where !visible.contains(index) {
                live[index] = nil
                waiting.remove(index)
                animations.left(index)
            }
            lastVisible = visible
        }
        canvas.clear(gray: 0.12)
        imagesShown = 0
        for index in visible {
            var cell = live[index]
            if cell == nil {
                let isNew = !waiting.contains(index)
                cell = source.image(for: index)
                if let cell {
                    live[index] = cell
                    if isNew { count(hit: true) } else { filledLater += 1; waiting.remove(index) }
                } else if isNew {
                    count(hit: false)
                    waiting.insert(index)
                }
            }
            let (x, y) = layout.origin(of: index, offset: offset)
            if let cell {
                // A live cell in the rows kept beyond the window's edge is not seen: it plays nothing.
                let onScreen = y < layout.height && y + layout.cellHeight > 0
                if onScreen { imagesShown += 1 } else { animations.left(index) }
                let surface = onScreen ? animations.surface(for: index, of: cell) ?? cell.surface : cell.surface
                canvas.draw(surface, x: x, y: y, opaque: surface.format != .bgra32Premultiplied)
            } else if source.hasFailed(index) {
                errorCellFrames += 1
                canvas.fill(
                    x: Double(x), y: Double(y), width: Double(layout.cellWidth), height: Double(layout.cellHeight), red: 0.35, green: 0.1,
                    blue: 0.1)
                canvas.outline(x: Double(x), y: Double(y), width: Double(layout.cellWidth), height: Double(layout.cellHeight), gray: 0.5)
            } else {
                placeholderCellFrames += 1
                canvas.fill(x: Double(x), y: Double(y), width: Double(layout.cellWidth), height: Double(layout.cellHeight), gray: 0.2)
                canvas.outline(x: Double(x), y: Double(y), width: Double(layout.cellWidth), height: Double(layout.cellHeight), gray: 0.35)
            }
        }
    }

    private func count(hit: Bool) {
        if hit { hits += 1 } else { misses += 1 }
        hitsByPath[source.name, default: (0, 0)].hits += hit ? 1 : 0
        hitsByPath[source.name, default: (0, 0)].misses += hit ? 0 : 1
        if let phase {
            hitsByPhase[phase, default: (0, 0)].hits += hit ? 1 : 0
            hitsByPhase[phase, default: (0, 0)].misses += hit ? 0 : 1
        }
    }

    func beginPhase(_ name: String) {
        phase = name
    }

    func overlayLines() -> [String] {
        var lines = [
            conventional != nil ? "path: \(source.name)   c: switch path   space: fling" : "path: \(source.name)   space: fling",
            "cells \(lastVisible.lowerBound)…\(max(lastVisible.lowerBound, lastVisible.upperBound - 1)) of \(layout.cells)   hits \(hits)  misses \(misses)  filled later \(filledLater)"
        ]
        if wantsConventional && source !== conventional?.source {
            lines.append("conventional path: \(conventional?.status ?? "unavailable")")
        }
        if animations.playing > 0 { lines.append("animated cells playing: \(animations.playing)   r: replay") }
        return lines + source.overlayLines()
    }

    func framePresented(at nanoseconds: UInt64) {}

    func statistics() -> [String: StatValue] {
        var values: [String: StatValue] = [
            "mode": .string("gallery"),
            "path": .string(source.name),
            "hits": .int(hits), "misses": .int(misses), "filled_later": .int(filledLater),
            "by_path": .object(hitsByPath.mapValues { .object(["hits": .int($0.hits), "misses": .int($0.misses)]) }),
            "by_phase": .object(hitsByPhase.mapValues { .object(["hits": .int($0.hits), "misses": .int($0.misses)]) }),
            "layout": .object([
                "columns": .int(layout.columns), "left": .int(layout.left), "gap": .int(layout.gap),
                "cell_width": .int(layout.cellWidth), "cell_height": .int(layout.cellHeight),
                "cells": .int(layout.cells), "row_pitch": .int(layout.rowPitch)
            ]),
            "scroll_offset": .int(scroller.pixelOffset),
            "placeholder_cells": .int(misses),
            "placeholder_cell_frames": .int(placeholderCellFrames),
            "error_cell_frames": .int(errorCellFrames)
        ]
        for (key, value) in cacheSource.statistics() { values[key] = value }
        for (key, value) in animations.statistics { values[key] = value }
        return values
    }

    func stop() {
        live.removeAll()
        animations.removeAll()
        cacheSource.stop()
        conventional?.source?.stop()
    }
}
#endif
