#if Tool
import FICCommandLine
import FastImageCache

/// The demo grid: square cells in a fixed number of columns, seen through a screen a few
/// rows tall that scrolls down a few pixels per frame.
package struct GridGeometry {
    package var cells: Int
    package var columns = 4
    package var visibleRows = 6
    /// Pixels per cell side.
    package var cellPixels: Int
    /// Pixels scrolled per frame.
    package var step = 16

    package var screenWidth: Int { columns * cellPixels }
    package var screenHeight: Int { visibleRows * cellPixels }
    package var rows: Int { (cells + columns - 1) / columns }
    package var maximumOffset: Int { max(0, rows * cellPixels - screenHeight) }
    /// Frames from the top to the bottom of the grid, both included.
    package var frameCount: Int { (maximumOffset + step - 1) / step + 1 }
}

/// An image on screen: the surface to composite and whatever keeps its pixels alive.
package struct LiveCell {
    package let surface: CairoImageSurface
    package let owner: AnyObject?
    /// The player of the image's animation when it is animated and comes from the tables (the
    /// surface shows its first frame); nil for a still image, and for images from elsewhere.
    package var player: AnimationPlayer? = nil

    /// A cell showing `surface`, kept alive by `owner`, played by `player` when it animates.
    package init(surface: CairoImageSurface, owner: AnyObject?, player: AnimationPlayer? = nil) {
        self.surface = surface
        self.owner = owner
        self.player = player
    }
}

/// What one scroll through the grid measured.
package struct ScrollResult {
    package var frames = 0
    package var totalNanoseconds: UInt64 = 0
    package var slowestNanoseconds: UInt64 = 0
    package var framesOver16ms = 0
    package var framesOver8ms = 0
    /// Images fetched (one each time a cell enters the screen).
    package var fetches = 0
    package var fetchNanoseconds: UInt64 = 0
    /// Fetches that found no image.
    package var misses = 0
    package var memory = MemoryPeak()

    package var framesPerSecond: Double { totalNanoseconds == 0 ? 0 : Double(frames) * 1e9 / Double(totalNanoseconds) }
    package var nanosecondsPerFetch: Double { fetches == 0 ? 0 : Double(fetchNanoseconds) / Double(fetches) }
}

/// Scrolls the grid from top to bottom, one frame at a time. A cell's image is fetched when
/// the cell enters the screen and held while it is visible, as a cell view holds its image;
/// every frame composites all visible cells.
package enum GridScroller {
    package static func scroll(
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
