#if Tool
import FICDemo
import FastImageCache

/// The animated cells on screen. A cell whose image is animated plays from the frame it is first
/// drawn on screen until it leaves the screen (the rows the gallery keeps live beyond the window's
/// edge included): it shows the frame its ``AnimationPlayer`` gives for the time since then (the
/// viewer's time: 1/60 s a frame in a script). The player is asked only when it said the frame
/// would change, so a frame costs, per cell whose frame changes, one table lookup and a surface
/// over the new pixels; other cells draw the surface they have. A cell off screen plays nothing,
/// and makes no lookup.
struct GalleryAnimations {
    private struct Cell {
        var player: AnimationPlayer
        /// The viewer's time when it started playing.
        var started: Duration
        /// When its frame changes next (viewer's time); nil when it never will.
        var due: Duration?
        /// The surface of the frame shown, and that frame's number.
        var surface: CairoImageSurface
        var frame: Int?
    }

    private var cells: [Int: Cell] = [:]
    /// The viewer's time: the sum of the frames' steps.
    private var now: Duration = .zero
    private var replayPending = false
    /// The lookups (animation records and frames) of the animated cells while they played, in all
    /// and by cell (beyond those that fetched each cell's first frame, as for any cell).
    private var lookups = 0
    private var lookupsByCell: [Int: Int] = [:]
    /// Animated cells that started playing, and frame changes drawn.
    private var cellsShown = 0
    private var framesChanged = 0

    /// Moves the time on by `seconds`; after ``replay()``, every animation restarts now.
    mutating func advance(by seconds: Double) {
        now += .nanoseconds(Int64((seconds * 1e9).rounded()))
        guard replayPending else { return }
        replayPending = false
        for index in cells.keys {
            cells[index]!.started = now
            cells[index]!.due = now
        }
    }

    /// Restarts every animation on screen from its first frame, from the next frame drawn on.
    mutating func replay() {
        replayPending = true
    }

    /// Cell `index` is off screen (or gone): it stops playing, and its player goes.
    mutating func left(_ index: Int) {
        cells[index] = nil
    }

    /// Every cell left (the cell source changed).
    mutating func removeAll() {
        cells.removeAll()
    }

    /// The surface cell `index`, on screen and showing `live`, shows now when it is animated
    /// (it starts playing the first time); nil for a still cell.
    mutating func surface(for index: Int, of live: LiveCell) -> CairoImageSurface? {
        guard live.player != nil, var cell = cells[index] ?? start(live) else { return nil }  // a still cell: nothing to do
        if let due = cell.due, now >= due {
            let before = cell.player.lookups
            let image = cell.player.image(at: now - cell.started)
            lookups += cell.player.lookups - before
            lookupsByCell[index, default: 0] += cell.player.lookups - before
            if cell.player.frameIndex != cell.frame, let image, let surface = try? image.makeCairoSurface() {
                cell.surface = surface
                cell.frame = cell.player.frameIndex
                framesChanged += 1
            }
            cell.due = cell.player.nextChange.map { cell.started + $0 }
        }
        cells[index] = cell
        return cell.surface
    }

    /// Cells playing now.
    var playing: Int { cells.count }

    /// A cell that starts playing now, with `live`'s player: it showed the first frame at time
    /// zero when the cell's image was fetched.
    private mutating func start(_ live: LiveCell) -> Cell? {
        guard let player = live.player else { return nil }
        cellsShown += 1
        return Cell(player: player, started: now, due: player.nextChange.map { now + $0 }, surface: live.surface, frame: player.frameIndex)
    }

    /// The figures for `--stats`.
    var statistics: [String: StatValue] {
        [
            "animation_lookups": .int(lookups),
            "animation_lookups_by_cell": .object(
                Dictionary(uniqueKeysWithValues: lookupsByCell.map { (String($0.key), StatValue.int($0.value)) })),
            "animated_cells_shown": .int(cellsShown),
            "animation_frames_changed": .int(framesChanged)
        ]
    }
}

extension LiveCell {
    /// The cell of `player`'s image, showing its first frame (the animation's record and frame 0
    /// are read now), holding the player when the image is animated; nil when nothing is stored (yet).
    static func firstFrame(of player: AnimationPlayer) -> LiveCell? {
        var player = player
        guard let image = player.image(at: .zero), let surface = try? image.makeCairoSurface() else { return nil }
        return LiveCell(surface: surface, owner: nil, player: player.isAnimated ? player : nil)  // the surface keeps the image alive
    }
}
#endif
