#if Tool
/// What the network gallery wants loaded for one position of the grid, by photo (a photo may
/// fill several cells when the grid repeats the list): the visible photos on the fast lane, the
/// next screens in the scroll direction and the screen behind prefetched on the slow lane,
/// nearest first. Everything else is not wanted: its requests are cancelled.
struct LanePlan: Equatable {
    /// Screens prefetched ahead in the scroll direction.
    static let screensAhead = 2
    /// Screens prefetched behind.
    static let screensBehind = 1

    /// Photos on screen, in cell order.
    private(set) var visible: [Int] = []
    /// Photos of the screens ahead, nearest first (slow lane, `.low`).
    private(set) var ahead: [Int] = []
    /// Photos of the screen behind, nearest first (slow lane, `.veryLow`).
    private(set) var behind: [Int] = []

    /// The plan for `visible` cells moving in `direction` (+1 down, -1 up; 0 counts as down).
    init(visible cells: Range<Int>, direction: Int, layout: GalleryLayout, photoOfCell: (Int) -> Int) {
        var seen = Set<Int>()
        func photos(_ range: Range<Int>, nearestFirst reversed: Bool) -> [Int] {
            var out: [Int] = []
            for cell in reversed ? Array(range.reversed()) : Array(range) {
                let photo = photoOfCell(cell)
                if seen.insert(photo).inserted { out.append(photo) }
            }
            return out
        }
        let down = direction >= 0
        visible = photos(cells, nearestFirst: false)
        ahead = photos(layout.cellsAhead(of: cells, screens: down ? Self.screensAhead : -Self.screensAhead), nearestFirst: !down)
        behind = photos(layout.cellsAhead(of: cells, screens: down ? -Self.screensBehind : Self.screensBehind), nearestFirst: down)
    }

    /// Every photo the plan wants.
    var wanted: Set<Int> { Set(visible).union(ahead).union(behind) }
}
#endif
