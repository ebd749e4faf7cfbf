import FICCore
import ImageCodec
import SystemPackage

/// Writes a pyramidal TIFF: the layout's header region first, then tiles appended in any order
/// as they come, and at ``finish()`` the tile offset and byte count arrays filled in place.
///
/// The file has no name until ``finish()`` gives it its own (replacing any file of that name at
/// once): a reader never finds it half-written, and a writer released before then, or a process
/// that dies, leaves nothing behind.
///
/// Thread-safe: ``encode(level:column:row:pixels:)`` compresses without a lock, so tiles may be
/// compressed on several threads; ``append(_:level:column:row:)`` takes a small lock to claim the
/// tile's place at the end of the file and writes it there outside the lock.
/// ``write(level:column:row:pixels:)`` does both.
public final class PyramidTIFFWriter: Sendable {
    /// Where every header byte goes.
    public let layout: PyramidTIFFLayout
    /// The file written.
    public let path: String
    /// The quantisation of level 0's JPEG tiles in place of the compression's quality: a JPEG
    /// source's own tables (``PyramidAssembler`` gives them when the compression is the default).
    package let levelZeroTables: JPEGQuantization?
    private let temporary: TemporaryFile
    private var file: FileDescriptor { temporary.descriptor }
    private let state: LockedBox<State>

    /// What the lock guards: the end of the file, and what each level's tiles became.
    private struct State: Sendable {
        var end: Int
        var offsets: [[UInt64]]
        var byteCounts: [[UInt64]]
        var written: [[Bool]]
        var missing: Int
        var closed = false
    }

    /// Prepares the file `name` in `directory` (0644 as the umask allows: a TIFF is made to be
    /// read by other tools and servers) and writes `layout`'s header region.
    ///
    /// - Throws: `.invalidArgument` for a name that is not a plain file name; the `.system`
    ///   error of `open` or `pwrite`.
    init(directory: Directory, name: String, layout: PyramidTIFFLayout, levelZeroTables: JPEGQuantization? = nil) throws {
        self.layout = layout
        self.levelZeroTables = layout.compression.isJPEG ? levelZeroTables : nil
        let path = directory.child(name)
        let temporary = try directory.makeTemporaryFile(for: name, permissions: 0o644)
        try layout.header.withUnsafeBytes { try temporary.descriptor.writeAll($0, at: 0, path: path) }
        self.path = path
        self.temporary = temporary
        let counts = layout.levels.map(\.tileCount)
        state = LockedBox(
            State(
                end: layout.header.count, offsets: counts.map { [UInt64](repeating: 0, count: $0) },
                byteCounts: counts.map { [UInt64](repeating: 0, count: $0) }, written: counts.map { [Bool](repeating: false, count: $0) },
                missing: counts.reduce(0, +)))
    }

    /// Prepares the file at `path` (its folder must exist) and writes `layout`'s header region.
    ///
    /// - Throws: `.invalidArgument` for a path that does not end in a plain file name; the
    ///   `.system` error of opening the folder, of `open` or of `pwrite`.
    public convenience init(path: String, layout: PyramidTIFFLayout) throws {
        let (folder, name) = Directory.split(path)
        try self.init(directory: Directory.open(folder, create: false, followLinks: true), name: name, layout: layout)
    }

    /// Prepares the file at `path` for `geometry`'s levels.
    public convenience init(path: String, geometry: PyramidGeometry, compression: PyramidTIFFCompression, hasAlpha: Bool) throws {
        try self.init(path: path, layout: PyramidTIFFLayout(geometry: geometry, compression: compression, hasAlpha: hasAlpha))
    }

    /// The stored bytes of tile (`column`, `row`) of level `level`: `pixels` is 256 rows of 1024
    /// bytes, BGRA premultiplied, the padding of edge tiles included. No lock is held: call it on
    /// any thread.
    public func encode(level: Int, column: Int, row: Int, pixels: UnsafeRawBufferPointer) throws -> [UInt8] {
        try encode(level: level, column: column, row: row, pixels: pixels, huffman: nil)
    }

    /// The same, a JPEG tile's Huffman tables taken from, or learnt into, the calling thread's
    /// `huffman` memory (without one, each tile's tables are made for it).
    func encode(level: Int, column: Int, row: Int, pixels: UnsafeRawBufferPointer, huffman: TileHuffmanMemory?) throws -> [UInt8] {
        _ = try tileIndex(level: level, column: column, row: row)
        let coding = huffman?.coding(level: level, row: row) ?? .optimized
        let bytes = try PyramidTIFFTileEncoder.encode(
            pixels, valid: layout.levels[level].validSize(column: column, row: row), compression: layout.compression,
            hasAlpha: layout.hasAlpha, tables: level == 0 ? levelZeroTables : nil, huffman: coding)
        if case .optimized = coding, layout.compression.isJPEG { huffman?.learn(level: level, row: row, from: bytes) }
        return bytes
    }

    /// Appends `bytes` (from ``encode(level:column:row:pixels:)``) as tile (`column`, `row`) of level `level`.
    ///
    /// - Throws: `.invalidArgument` for a tile outside the level, written twice, or after
    ///   ``finish()``; `.dimensionsTooLarge` when a classic TIFF would pass 4 GiB (the layout's
    ///   bound makes that impossible); the `.system` error of `pwrite`.
    public func append(_ bytes: [UInt8], level: Int, column: Int, row: Int) throws {
        let index = try tileIndex(level: level, column: column, row: row)
        // The lock only hands out the place at the end of the file; the write runs outside it, so
        // that tiles of other threads are placed meanwhile. A tile whose write fails stays
        // missing, and ``finish()`` refuses the file.
        let at = try state.withLockedValue { state -> Int in
            guard !state.closed else { throw ImageCacheError(.invalidArgument, "the pyramidal TIFF is finished", path: path) }
            guard !state.written[level][index] else {
                throw ImageCacheError(.invalidArgument, "tile \(column),\(row) of level \(level) was already written", path: path)
            }
            let end = state.end + bytes.count
            guard layout.isBigTIFF || end <= Int(UInt32.max) else {
                throw ImageCacheError(.dimensionsTooLarge, "the tiles pass the 4 GiB a classic TIFF can address", path: path)
            }
            state.written[level][index] = true
            let at = state.end
            // TIFF asks for word-aligned offsets: the next tile starts on an even byte.
            state.end = end + (end & 1)
            return at
        }
        try bytes.withUnsafeBytes { try file.writeAll($0, at: at, path: path) }
        // On its way to the disk now, so that the flush before the TIFF gets its name has only
        // the last tiles left to wait for (it waited 0.6 s for a 1.3 GB raw TIFF's tiles).
        file.startWriteback(offset: at, length: bytes.count)
        state.withLockedValue { state in
            state.offsets[level][index] = UInt64(at)
            state.byteCounts[level][index] = UInt64(bytes.count)
            state.missing -= 1
        }
    }

    /// Compresses and appends one tile: ``encode(level:column:row:pixels:)`` then ``append(_:level:column:row:)``.
    public func write(level: Int, column: Int, row: Int, pixels: UnsafeRawBufferPointer) throws {
        try append(encode(level: level, column: column, row: row, pixels: pixels), level: level, column: column, row: row)
    }

    /// Fills in the tile offset and byte count arrays, writes the file to the disk and gives it
    /// its name.
    ///
    /// - Throws: `.invalidArgument` when a tile was not written (the message says how many and
    ///   the first) or when already finished; the `.system` error of `pwrite`, `fsync`, `link` or
    ///   `rename`.
    public func finish() throws {
        try state.withLockedValue { state in
            guard !state.closed else { throw ImageCacheError(.invalidArgument, "the pyramidal TIFF is finished", path: path) }
            if state.missing > 0 {
                // A tile is written once its byte count is set (no encoding is empty).
                let level = state.byteCounts.firstIndex { $0.contains(0) } ?? 0
                let index = state.byteCounts[level].firstIndex(of: 0) ?? 0
                let columns = layout.levels[level].columns
                throw ImageCacheError(
                    .invalidArgument,
                    "\(state.missing) tiles were not written (or their writes failed), the first tile \(index % columns),\(index / columns) of level \(level)",
                    path: path)
            }
            let size = layout.offsetFieldSize
            for level in layout.levels.indices {
                for (values, position) in [
                    (state.offsets[level], layout.tileOffsetsPosition[level]),
                    (state.byteCounts[level], layout.tileByteCountsPosition[level])
                ] {
                    let bytes = values.flatMap { value in (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) } }
                    try bytes.withUnsafeBytes { try file.writeAll($0, at: position, path: path) }
                }
            }
            state.closed = true
            try temporary.commit()
        }
    }

    /// A descriptor of the file of its own, for reading it once finished.
    func readableDescriptor() throws -> FileDescriptor {
        try file.duplicate(path: path)
    }

    /// The tile's index in its level's arrays (row-major).
    private func tileIndex(level: Int, column: Int, row: Int) throws -> Int {
        guard layout.levels.indices.contains(level), (0..<layout.levels[level].columns).contains(column),
            (0..<layout.levels[level].rows).contains(row)
        else {
            throw ImageCacheError(.invalidArgument, "there is no tile \(column),\(row) in level \(level)", path: path)
        }
        return row * layout.levels[level].columns + column
    }
}
