import CTileSupport
import FICCore
import Glibc
import SystemPackage

/// Writes one zoom level band by band: a band is ``bandRows`` rows of the level, laid out as the
/// tiles hold them (one segment of `bandRows × 1024` bytes per tile column), so that a full band
/// goes to the file as one write per tile column, all in flight together (``WritesInFlight``, one
/// tag per band), while the level's next band fills. Rows of the next level are made from pairs
/// of this level's rows (2 × 2 box filter) as soon as both are present. Memory: a few bands per
/// level, never a whole row of tiles.
///
/// Used by one thread at a time; see ``WritesInFlight``.
final class LevelWriter {
    /// Rows in a band: divides 256, and a multiple of 4 so that every write is 4 KiB-aligned
    /// (direct writes need that). Each write costs the kernel about 7 µs whatever its size, so
    /// bands are not made smaller: 64 rows is about 27,000 writes for an 18000² pyramid.
    static let bandRows = 64
    /// Bytes of one tile's part of a band.
    static let segmentBytes = bandRows * PyramidGeometry.tileRowStride
    /// Bands per tile row.
    static let bandsPerTileRow = PyramidGeometry.tileSide / bandRows

    /// The level written.
    let level: TileLevel
    private let file: FileDescriptor
    private let memory: PageBuffer
    private let bandCount: Int
    private let bandBytes: Int
    /// The tag of band 0 in ``writes``.
    private let firstTag: Int
    private let writes: WritesInFlight
    /// The band being filled, and its memory.
    private var current = 0
    private var base: UnsafeMutableRawPointer
    /// The next level, fed from this one.
    private let next: LevelWriter?
    /// Rows of this level received so far.
    private(set) var rowsWritten = 0
    /// Where completed rows of tiles are reported (nil: not reported).
    private let progress: BuildProgress?
    /// The band handed over from each band buffer, until its writes are known complete (-1: none).
    private var bandInBuffer: [Int]
    /// Bands handed over, and bands whose writes have completed (always a prefix).
    private var bandsSubmitted = 0
    private var bandsCompleted = 0

    /// A writer of `level` into `file` with `bands` band buffers (at least 1), tagged from `firstTag`.
    init(
        level: TileLevel, file: FileDescriptor, next: LevelWriter?, writes: WritesInFlight, bands: Int, firstTag: Int,
        progress: BuildProgress? = nil
    ) throws {
        precondition(bands >= 1, "a level needs a band")
        self.level = level
        self.progress = progress
        self.file = file
        self.next = next
        self.writes = writes
        self.firstTag = firstTag
        // A level of one band needs one buffer.
        bandCount = level.height <= Self.bandRows ? 1 : bands
        bandInBuffer = [Int](repeating: -1, count: bandCount)
        bandBytes = level.columns * Self.segmentBytes
        memory = try PageBuffer(count: bandCount * bandBytes)  // zero: padding columns stay zero
        // Fewer page faults, and direct writes pin one huge page instead of 512 small ones.
        if bandCount * bandBytes >= 4 << 20 { memory.adviseHugePages() }
        base = memory.base
    }

    /// Where pixel `x` of band row `y` lives.
    @inline(__always)
    private func address(x: Int, bandRow y: Int) -> UnsafeMutableRawPointer {
        base + (x >> 8) * Self.segmentBytes + y * PyramidGeometry.tileRowStride + (x & 255) * 4
    }

    /// Waits, before the first row goes into the current band, until its previous writes are done.
    @inline(__always)
    private func prepareBand() throws {
        guard rowsWritten % Self.bandRows == 0 else { return }
        try writes.wait(forTag: firstTag + current)
        if bandInBuffer[current] >= 0 {
            // Buffers are reused in turn, so every band before this one has completed too.
            bandsCompleted(through: bandInBuffer[current])
            bandInBuffer[current] = -1
        }
    }

    /// Bands `0...band` are written: reports the rows of tiles that completes, if any.
    private func bandsCompleted(through band: Int) {
        guard band + 1 > bandsCompleted else { return }
        let before = completedTileRows
        bandsCompleted = band + 1
        let after = completedTileRows
        if after > before { progress?.complete(level: level.index, tileRows: after) }
    }

    /// Rows of tiles whose every band has been written (a last row of tiles may have fewer than
    /// ``bandsPerTileRow`` bands: it is complete with the image's last band).
    private var completedTileRows: Int {
        let totalBands = (level.height + Self.bandRows - 1) / Self.bandRows
        return bandsCompleted >= totalBands ? level.rows : bandsCompleted / Self.bandsPerTileRow
    }

    /// Every write handed over has completed (after ``WritesInFlight/waitAll()``).
    func writesCompleted() {
        if bandsSubmitted > 0 { bandsCompleted(through: bandsSubmitted - 1) }
        for i in bandInBuffer.indices { bandInBuffer[i] = -1 }
        next?.writesCompleted()
    }

    /// Appends `count` contiguous rows (`bytesPerRow` apart, `level.width × 4` bytes used each).
    func append(rows: UnsafeRawPointer, count: Int, bytesPerRow: Int) throws {
        for i in 0..<count {
            let source = rows + i * bytesPerRow
            try prepareBand()
            let y = rowsWritten % Self.bandRows
            var x = 0
            while x < level.width {
                let n = min(256, level.width - x)
                address(x: x, bandRow: y).copyMemory(from: source + x * 4, byteCount: n * 4)
                x += n
            }
            try rowArrived()
        }
    }

    /// Called when row `rowsWritten` is complete in the band.
    private func rowArrived() throws {
        let y = rowsWritten
        let last = y == level.height - 1
        if let next, y & 1 == 1 || last {
            try next.prepareBand()
            let upper = (y & ~1) % Self.bandRows
            let lower = y % Self.bandRows
            let target = next.rowsWritten % Self.bandRows
            var x = 0
            while x < level.width {
                let n = min(256, level.width - x)
                fic_tile_box_filter(
                    address(x: x, bandRow: upper).assumingMemoryBound(to: UInt8.self),
                    address(x: x, bandRow: lower).assumingMemoryBound(to: UInt8.self),
                    next.address(x: x / 2, bandRow: target).assumingMemoryBound(to: UInt8.self),
                    UInt32(n)
                )
                x += n
            }
            try next.rowArrived()
        }
        rowsWritten += 1
        if rowsWritten % Self.bandRows == 0 || last {
            try writeBand()
        }
    }

    /// Hands the band to the writes; a last, partial band has its missing rows zeroed (they are
    /// padding of the bottom tiles).
    private func writeBand() throws {
        let band = (rowsWritten - 1) / Self.bandRows
        let filled = rowsWritten - band * Self.bandRows
        if filled < Self.bandRows {
            for column in 0..<level.columns {
                (base + column * Self.segmentBytes + filled * PyramidGeometry.tileRowStride).initializeMemory(
                    as: UInt8.self, repeating: 0, count: (Self.bandRows - filled) * PyramidGeometry.tileRowStride)
            }
        }
        let tileRow = band / Self.bandsPerTileRow
        let offset = tileRow * level.tileRowBytes + (band % Self.bandsPerTileRow) * Self.segmentBytes
        try writes.submit(
            base, length: Self.segmentBytes, bufferStride: Self.segmentBytes, count: level.columns,
            to: file, offset: offset, fileStride: PyramidGeometry.tileBytes, tag: firstTag + current)
        bandInBuffer[current] = band
        bandsSubmitted = band + 1
        current = (current + 1) % bandCount
        base = memory.base + current * bandBytes
    }

    /// Whether every row of this level and the levels below has been received.
    var isComplete: Bool {
        rowsWritten == level.height && (next?.isComplete ?? true)
    }
}

/// Receives the upright full-resolution rows of an image and writes every level of its pyramid.
/// Used by one thread at a time; see ``WritesInFlight``.
final class PyramidWriter {
    let geometry: PyramidGeometry
    private let top: LevelWriter
    private let writes: WritesInFlight

    /// Writes level `i` into `files[i]`. Full resolution keeps three bands (two in flight while one
    /// fills), the other levels two, which they fill at half the pace or slower; with
    /// `overlapWrites` false every level keeps two (less memory, fewer writes in flight).
    /// Completed rows of tiles are reported to `progress`, when given.
    init(geometry: PyramidGeometry, files: [FileDescriptor], overlapWrites: Bool = true, progress: BuildProgress? = nil)
        throws
    {
        precondition(files.count == geometry.levels.count, "one file per level")
        self.geometry = geometry
        let bands = { (level: Int) in level == 0 && overlapWrites ? 3 : 2 }
        let capacity = geometry.levels.reduce(0) { $0 + bands($1.index) * $1.columns }
        let tags = geometry.levels.map { bands($0.index) }
        // Its files are unnamed: an error names no path.
        let writes = try WritesInFlight(capacity: capacity, tags: tags.reduce(0, +), path: nil)
        self.writes = writes
        var next: LevelWriter?
        for level in geometry.levels.reversed() {
            next = try LevelWriter(
                level: level, file: files[level.index], next: next, writes: writes, bands: bands(level.index),
                firstTag: tags[0..<level.index].reduce(0, +), progress: progress)
        }
        top = next!
    }

    /// Waits for the writes in flight, ignoring their errors (for abandoning a build: no write may
    /// still run when the descriptors close).
    func stop() {
        _ = try? writes.waitAll()
    }

    /// Waits until every band handed over has been written; throws the first write error.
    func drain() throws {
        try writes.waitAll()
        top.writesCompleted()
    }

    /// Rows of the full-resolution level received so far.
    var rowsReceived: Int { top.rowsWritten }

    /// Appends the next `count` full-resolution rows.
    func append(rows: UnsafeRawPointer, count: Int, bytesPerRow: Int) throws {
        guard count > 0 else { return }
        guard top.rowsWritten + count <= geometry.height else {
            throw ImageCacheError(.corruptData, "the decoder produced more rows than the image has")
        }
        try top.append(rows: rows, count: count, bytesPerRow: bytesPerRow)
    }

    /// Whether every level has received all its rows (see ``drain()`` for their writes).
    var isComplete: Bool { top.isComplete }
}
