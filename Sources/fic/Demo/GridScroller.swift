#if Tool
import FastImageCache

/// The demo grid: square cells in a fixed number of columns, seen through a screen a few
/// rows tall that scrolls down a few pixels per frame.
struct GridGeometry {
    var cells: Int
    var columns = 4
    var visibleRows = 6
    /// Pixels per cell side.
    var cellPixels: Int
    /// Pixels scrolled per frame.
    var step = 16

    var screenWidth: Int { columns * cellPixels }
    var screenHeight: Int { visibleRows * cellPixels }
    var rows: Int { (cells + columns - 1) / columns }
    var maximumOffset: Int { max(0, rows * cellPixels - screenHeight) }
    /// Frames from the top to the bottom of the grid, both included.
    var frameCount: Int { (maximumOffset + step - 1) / step + 1 }
}

/// An image on screen: the surface to composite and whatever keeps its pixels alive.
struct LiveCell {
    let surface: CairoImageSurface
    let owner: AnyObject?
    /// The player of the image's animation when it is animated and comes from the tables (the
    /// surface shows its first frame); nil for a still image, and for images from elsewhere.
    var player: AnimationPlayer? = nil
}

/// What one scroll through the grid measured.
struct ScrollResult {
    var frames = 0
    var totalNanoseconds: UInt64 = 0
    var slowestNanoseconds: UInt64 = 0
    var framesOver16ms = 0
    var framesOver8ms = 0
    /// Images fetched (one each time a cell enters the screen).
    var fetches = 0
    var fetchNanoseconds: UInt64 = 0
    /// Fetches that found no image.
    var misses = 0
    var memory = MemoryPeak()

    var framesPerSecond: Double { totalNanoseconds == 0 ? 0 : Double(frames) * 1e9 / Double(totalNanoseconds) }
    var nanosecondsPerFetch: Double { fetches == 0 ? 0 : Double(fetchNanoseconds) / Double(fetches) }
}

/// Scrolls the grid from top to bottom, one frame at a time. A cell's image is fetched when
/// the cell enters the screen and held while it is visible, as a cell view holds its image;
/// every frame composites all visible cells.
enum GridScroller {
    static func scroll(
        _ grid: GridGeometry, into screen: FrameBuffer,
        fetch: (Int) -> LiveCell?, afterFirstFrame: (FrameBuffer) throws -> Void
    ) rethrows -> ScrollResult {
        var result = ScrollResult()
        var live: [Int: LiveCell] = [:]
        var lowestLive = 0
        let size = grid.cellPixels
        for frame in 0..<grid.frameCount {
            let offset = min(frame * grid.step, grid.maximumOffset)
            let start = Stopwatch.now()
            let firstCell = offset / size * grid.columns
            let endCell = min(grid.rows, (offset + grid.screenHeight + size - 1) / size) * grid.columns
            while lowestLive < firstCell {
                live[lowestLive] = nil
                lowestLive += 1
            }
            for index in firstCell..<endCell {
                let x = index % grid.columns * size, y = index / grid.columns * size - offset
                var cell = live[index]
                if cell == nil, index < grid.cells {
                    let fetchStart = Stopwatch.now()
                    cell = fetch(index)
                    result.fetchNanoseconds += Stopwatch.elapsed(since: fetchStart)
                    result.fetches += 1
                    if cell == nil { result.misses += 1 }
                    live[index] = cell
                }
                if let cell {
                    screen.draw(cell.surface, x: x, y: y)
                } else {
                    screen.fillBackground(x: x, y: y, width: size, height: size)
                }
            }
            screen.present()
            let elapsed = Stopwatch.elapsed(since: start)
            result.frames += 1
            result.totalNanoseconds += elapsed
            result.slowestNanoseconds = max(result.slowestNanoseconds, elapsed)
            if elapsed > 16_700_000 { result.framesOver16ms += 1 }
            if elapsed > 8_300_000 { result.framesOver8ms += 1 }
            if frame == 0 { try afterFirstFrame(screen) }
            if frame % 128 == 0 { result.memory.sample() }
        }
        result.memory.sample()
        return result
    }
}
#endif
