import FICCore
import SystemPackage

/// Turns a build's levels into a pyramidal TIFF while the build goes on: each row of tiles, as
/// soon as its writes to the (unnamed) level files have completed, is read back tile by tile,
/// compressed and appended to the TIFF on threads of their own, so that compression runs on the
/// cores beside the decoder's and the TIFF is complete moments after the last row.
///
/// Tiles are queued one by one (not rows), so that every thread stays busy until the end; the
/// queue holds only tile numbers (the pixels wait in the level files), so it never holds back the
/// decoder. The first failure (a full disk, an encoder error) is reported to the build's
/// ``BuildProgress``, which stops the decoder at its next batch.
final class PyramidTIFFBuildStage: Sendable {
    /// The TIFF written.
    let writer: PyramidTIFFWriter

    private struct Tile: Sendable {
        var level: Int
        var column: Int
        var row: Int
    }

    private struct State: Sendable {
        var queue: [Tile] = []
        /// The next tile of ``queue`` to hand out (taken tiles are dropped in bulk).
        var next = 0
        var closed = false
        var failure: ImageCacheError?
    }

    private let state = ConditionBox(State())
    private let levels: ReadableLevels
    private let progress: BuildProgress
    private let geometry: PyramidGeometry
    private let threads: LockedBox<[WorkerThread]>

    /// Compresses the tiles of `files` (one per level of `geometry`, read through descriptors of
    /// its own) into `writer` on `threadCount` threads, reporting failures to `progress`.
    init(writer: PyramidTIFFWriter, geometry: PyramidGeometry, files: [FileDescriptor], progress: BuildProgress, threadCount: Int)
        throws
    {
        self.writer = writer
        self.geometry = geometry
        self.progress = progress
        levels = try ReadableLevels(duplicating: files)
        threads = LockedBox([])
        var started: [WorkerThread] = []
        do {
            for _ in 0..<max(1, threadCount) {
                started.append(try WorkerThread(name: "fic-tiff-tiles") { [self] in self.run() })
            }
        } catch {
            state.update { $0.closed = true }
            for thread in started { thread.join() }
            throw error
        }
        threads.withLockedValue { $0 = started }
    }

    /// The threads a build uses: one per processor, at most four. While the decoder runs they
    /// share its core with it; once it has finished (a JPEG decodes several times faster than its
    /// tiles compress), every core compresses.
    static var defaultThreadCount: Int { min(4, MachineResources.processorCount) }

    /// Rows `tileRows` of tiles of `level` are on disk: queues their tiles.
    func rowsCompleted(level: Int, tileRows: Range<Int>) {
        guard geometry.levels.indices.contains(level) else { return }
        let columns = geometry.levels[level].columns
        state.update { s in
            guard !s.closed else { return }
            for row in tileRows {
                for column in 0..<columns { s.queue.append(Tile(level: level, column: column, row: row)) }
            }
        }
    }

    /// Waits until every queued tile is in the TIFF, then fills in its arrays and gives it its
    /// name (``PyramidTIFFWriter/finish()``).
    ///
    /// - Throws: the first failure of a thread, or of the writer's finish.
    func finish() throws {
        state.update { $0.closed = true }
        joinThreads()
        if let failure = state.withLockedValue({ $0.failure }) { throw failure }
        try writer.finish()
    }

    /// Stops the threads (a tile being compressed is finished first); the TIFF never gets its name.
    func cancel() {
        state.update { s in
            s.closed = true
            if s.failure == nil { s.failure = ImageCacheError(.cancelled, "the pyramid build was cancelled") }
        }
        joinThreads()
    }

    private func joinThreads() {
        let running = threads.withLockedValue { threads in
            defer { threads = [] }
            return threads
        }
        for thread in running { thread.join() }
    }

    /// A thread: takes the next tile until the queue is closed and empty, or a thread failed.
    private func run() {
        // One tile's memory per thread, reused for every tile it compresses.
        guard let buffer = try? TileBuffer() else {
            fail(ImageCacheError(.overMemoryBudget, "no memory for a tile to compress"))
            return
        }
        // The Huffman tables this thread learns in each row (JPEG tiles).
        let huffman = TileHuffmanMemory()
        while true {
            let taken = state.withLockedValue(waitingUntil: { $0.next < $0.queue.count || $0.closed || $0.failure != nil }) {
                s -> Tile? in
                guard s.failure == nil, s.next < s.queue.count else { return nil }
                let tile = s.queue[s.next]
                s.next += 1
                if s.next >= 4096 {
                    s.queue.removeFirst(s.next)
                    s.next = 0
                }
                return tile
            }
            guard let tile = taken else { return }
            do {
                let info = geometry.levels[tile.level]
                let at = (tile.row * info.columns + tile.column) * PyramidGeometry.tileBytes
                try buffer.fill { raw in
                    let n = try levels.files[tile.level].readAll(into: raw, at: at, path: writer.path)
                    guard n == raw.count else {
                        throw ImageCacheError(.io, "level \(tile.level) ends inside tile (\(tile.column), \(tile.row))")
                    }
                    return n
                }
                let bytes = try buffer.withUnsafeBytes {
                    try writer.encode(level: tile.level, column: tile.column, row: tile.row, pixels: $0, huffman: huffman)
                }
                try writer.append(bytes, level: tile.level, column: tile.column, row: tile.row)
                progress.tileStored()
            } catch {
                fail(ImageCacheError.adopting(error))
                return
            }
        }
    }

    /// Stops every thread and the build with `failure`, unless one came first.
    private func fail(_ failure: ImageCacheError) {
        state.update { s in if s.failure == nil { s.failure = failure } }
        progress.fail(failure)
    }
}
