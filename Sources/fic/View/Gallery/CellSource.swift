#if Tool
import FICDemo

/// Where the gallery's cells get their images: the seam between the grid and the ways of
/// filling it (the cache's synchronous path, the conventional decode, the network through the cache's lanes).
///
/// Called on the viewer's thread only. ``image(for:)`` must answer now: a cell whose image is
/// not ready gets nil, shows a placeholder, and is asked again on later frames.
protocol CellSource: AnyObject {
    /// The name shown in the overlay and used as the statistics phase ("cache", "conventional", …).
    var name: String { get }
    /// The cell's image now, or nil when it is not ready (yet).
    func image(for index: Int) -> LiveCell?
    /// Told once a frame which cells are visible and which way the grid moves (+1 down, -1 up,
    /// 0 at rest), so that a loader can request, prefetch, demote and cancel.
    func visibleCellsChanged(_ visible: Range<Int>, direction: Int)
    /// Whether it has nothing left to load for the cells it was told about.
    var isIdle: Bool { get }
    /// Its lines of the overlay (queue lengths, progress).
    func overlayLines() -> [String]
    /// Whether the cell's image cannot come (its request failed): drawn as an error cell.
    func hasFailed(_ index: Int) -> Bool
    /// Its figures for `--stats`.
    func statistics() -> [String: StatValue]
    /// Stops its background work.
    func stop()
}

extension CellSource {
    func visibleCellsChanged(_ visible: Range<Int>, direction: Int) {}
    var isIdle: Bool { true }
    func overlayLines() -> [String] { [] }
    func hasFailed(_ index: Int) -> Bool { false }
    func statistics() -> [String: StatValue] { [:] }
    func stop() {}
}
#endif
