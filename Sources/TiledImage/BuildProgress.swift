import FICCore
import Glibc
import SystemPackage

/// The level files of a build, opened a second time (their own descriptors) for reading while
/// the build goes on; closed when the last reader lets go, so a read never races a close.
final class ReadableLevels: Sendable {
    let files: [FileDescriptor]

    init(duplicating originals: [FileDescriptor]) throws {
        var files: [FileDescriptor] = []
        do {
            for original in originals { files.append(try original.duplicate(path: nil)) }
        } catch {
            for file in files { file.closeQuietly() }
            throw error
        }
        self.files = files
    }

    deinit {
        for file in files { file.closeQuietly() }
    }
}

/// What a build has written so far, shared between the writer (which reports each row of tiles
/// once its writes have completed) and readers of the unfinished pyramid. Thread-safe.
final class BuildProgress: Sendable {
    private struct State {
        var geometry: PyramidGeometry?
        /// Per level, the rows of tiles whose every write has completed.
        var completed: [Int] = []
        var levels: ReadableLevels?
        var failure: ImageCacheError?
        /// Told of the rows of tiles that complete (outside the lock).
        var observer: (@Sendable (_ level: Int, _ tileRows: Range<Int>) -> Void)?
    }

    private let state = LockedBox(State())

    /// The level files exist: readers may ask from now on (nothing is complete yet). `observer`,
    /// when given, is told of every row of tiles as it completes, on the writing thread.
    func begin(
        geometry: PyramidGeometry, files: [FileDescriptor],
        observer: (@Sendable (_ level: Int, _ tileRows: Range<Int>) -> Void)? = nil
    ) throws {
        let levels = try ReadableLevels(duplicating: files)
        state.withLockedValue { s in
            s.geometry = geometry
            s.completed = [Int](repeating: 0, count: geometry.levels.count)
            s.levels = levels
            s.observer = observer
        }
    }

    /// Rows `0..<tileRows` of tiles of `level` are on disk (counts only grow).
    func complete(level: Int, tileRows: Int) {
        let told = state.withLockedValue { s -> (@Sendable (Int, Range<Int>) -> Void, Range<Int>)? in
            guard level < s.completed.count, s.completed[level] < tileRows else { return nil }
            let before = s.completed[level]
            s.completed[level] = tileRows
            return s.observer.map { ($0, before..<tileRows) }
        }
        if let (observer, rows) = told { observer(level, rows) }
    }

    /// The build failed or was cancelled: readers are refused from now on, and the files close
    /// once the reads under way have ended.
    func fail(_ error: ImageCacheError) {
        state.withLockedValue { s in
            if s.failure == nil { s.failure = error }
            s.levels = nil
        }
    }

    /// The geometry, once known.
    var geometry: PyramidGeometry? { state.withLockedValue { $0.geometry } }

    /// Why the build failed or was cancelled, once it has.
    var failure: ImageCacheError? { state.withLockedValue { $0.failure } }

    /// Tiles compressed into a TIFF destination so far (for tests: they observe the compression
    /// running while the bytes still arrive).
    var storedTiles: Int { storedTileCount.withLockedValue { $0 } }
    private let storedTileCount = LockedBox(0)

    /// One more tile is in the TIFF.
    func tileStored() {
        storedTileCount.withLockedValue { $0 += 1 }
    }

    /// Completed rows of tiles per level (empty before the geometry is known).
    var completedTileRows: [Int] { state.withLockedValue { $0.completed } }

    /// Reads a tile of a completed row of tiles.
    func readTile(level: Int, column: Int, row: Int, into buffer: TileBuffer) throws {
        let (levels, info) = try state.withLockedValue { (s) throws -> (ReadableLevels, TileLevel) in
            if let failure = s.failure { throw failure }
            guard let geometry = s.geometry, let levels = s.levels else {
                throw ImageCacheError(.notWrittenYet, "the image's size is not known yet; no tile has been written")
            }
            guard level >= 0, level < geometry.levels.count else {
                throw ImageCacheError(.invalidArgument, "there is no level \(level); the pyramid has levels 0…\(geometry.levels.count - 1)")
            }
            let info = geometry.levels[level]
            guard column >= 0, column < info.columns, row >= 0, row < info.rows else {
                throw ImageCacheError(
                    .invalidArgument, "level \(level) has tiles 0…\(info.columns - 1) × 0…\(info.rows - 1), not (\(column), \(row))")
            }
            guard row < s.completed[level] else {
                throw ImageCacheError(
                    .notWrittenYet,
                    "row \(row) of tiles of level \(level) is not written yet (\(s.completed[level]) of \(info.rows) are); ask again later")
            }
            return (levels, info)
        }
        let at = (row * info.columns + column) * PyramidGeometry.tileBytes
        try withExtendedLifetime(levels) {
            try buffer.fill { (raw) throws in
                let n = try levels.files[level].readAll(into: raw, at: at, path: nil)
                guard n == raw.count else {
                    throw ImageCacheError(.io, "level \(level) ends inside tile (\(column), \(row))")
                }
                return n
            }
        }
    }
}
