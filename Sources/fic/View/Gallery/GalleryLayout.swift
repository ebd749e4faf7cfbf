#if Tool
/// Where the gallery's cells are: equal cells in as many columns as fit the window, centred,
/// with a gap around each, in one long column of rows scrolled vertically.
struct GalleryLayout: Equatable {
    /// The window's size in pixels.
    let width: Int
    let height: Int
    /// A cell's size in pixels (the image format's pixel size).
    let cellWidth: Int
    let cellHeight: Int
    /// Pixels between cells and around the grid.
    let gap: Int
    /// Cells in the grid.
    let cells: Int

    init(width: Int, height: Int, cellWidth: Int, cellHeight: Int, cells: Int, gap: Int = 8) {
        self.width = width
        self.height = height
        self.cellWidth = cellWidth
        self.cellHeight = cellHeight
        self.cells = cells
        self.gap = gap
    }

    /// Columns that fit the window (at least one).
    var columns: Int { max(1, (width - gap) / (cellWidth + gap)) }
    /// The x of the first column.
    var left: Int { max(0, (width - columns * (cellWidth + gap) + gap) / 2) }
    /// From one row to the next.
    var rowPitch: Int { cellHeight + gap }
    /// Rows in the grid.
    var rows: Int { (cells + columns - 1) / columns }
    /// The height of the whole grid.
    var contentHeight: Int { rows * rowPitch + gap }
    /// The largest scroll offset.
    var maximumOffset: Int { max(0, contentHeight - height) }

    /// The cells visible at scroll `offset` (whole pixels).
    func visibleCells(offset: Int) -> Range<Int> {
        let firstRow = max(0, (offset - gap) / rowPitch)
        let lastRow = min(rows, (offset + height + rowPitch - 1) / rowPitch + 1)
        return min(cells, firstRow * columns)..<min(cells, max(firstRow, lastRow) * columns)
    }

    /// The cells of the `screens` screens below (or above, when `screens` is negative) the
    /// visible ones.
    func cellsAhead(of visible: Range<Int>, screens: Int) -> Range<Int> {
        let span = max(1, (height / rowPitch + 1) * columns) * abs(screens)
        if screens >= 0 {
            return visible.upperBound..<min(cells, visible.upperBound + span)
        }
        return max(0, visible.lowerBound - span)..<visible.lowerBound
    }

    /// The window position of cell `index`'s top-left corner at scroll `offset`.
    func origin(of index: Int, offset: Int) -> (x: Int, y: Int) {
        (left + index % columns * (cellWidth + gap), gap + index / columns * rowPitch - offset)
    }
}
#endif
