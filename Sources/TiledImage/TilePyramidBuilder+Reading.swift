import FICCore

extension TilePyramidBuilder {
    /// The levels of the pyramid being built, once the image's header has been read (nil before).
    /// Thread-safe, and never waits for the build.
    public var geometry: PyramidGeometry? { progress.geometry }

    /// How many rows of tiles of `level`, from the top, are completely written: their tiles can be
    /// read with ``readTile(level:column:row:into:)`` while the build goes on. Counts only grow;
    /// 0 before the header is known and for an unknown level. Thread-safe, and never waits for
    /// the build.
    ///
    /// An upright image's rows of tiles complete as its rows arrive (a progressive JPEG's only in
    /// its final pass); a rotated or mirrored one's (EXIF orientations 2–8) only at
    /// ``finish()``, when its stored rows are turned upright.
    public func completedTileRows(level: Int) -> Int {
        let rows = progress.completedTileRows
        return level >= 0 && level < rows.count ? rows[level] : 0
    }

    /// ``completedTileRows(level:)`` of every level at one moment (empty before the header is known).
    public var completedTileRows: [Int] { progress.completedTileRows }

    /// Reads tile (`column`, `row`) of `level` of the pyramid being built into `buffer`, as
    /// ``TilePyramid/readTile(level:column:row:into:)`` does: allowed only for a row of tiles
    /// already written (see ``completedTileRows(level:)``), during the build and after
    /// ``finish()``. Thread-safe, and never waits for the build (one `pread`).
    ///
    /// - Throws: `.notWrittenYet` for a tile whose row is not written yet (or before the header),
    ///   `.invalidArgument` for a tile outside the level, and the build's error once it has
    ///   failed or been cancelled.
    public func readTile(level: Int, column: Int, row: Int, into buffer: TileBuffer) throws {
        try progress.readTile(level: level, column: column, row: row, into: buffer)
    }
}
