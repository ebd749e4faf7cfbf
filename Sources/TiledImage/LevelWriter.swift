import CImageCodecSupport
import FICCore
import Glibc
import SystemPackage

/// Writes one zoom level: fills one row of tiles (a strip) in memory with the level's pixel rows,
/// top to bottom, and hands each finished strip to the ``StripWriter`` (one `pwrite`), filling the
/// level's other strip meanwhile. Rows of the next level
/// are made from pairs of this level's rows (2 × 2 box filter) as soon as both are present.
final class LevelWriter {
    /// The level written.
    let level: TileLevel
    private let file: FileDescriptor
    private let path: String
    private let strips: [Strip]
    private var current = 0
    private let output: StripWriter
    /// The next level, fed from this one.
    private let next: LevelWriter?
    /// The next row of this level to arrive.
    private(set) var rowsWritten = 0

    init(level: TileLevel, file: FileDescriptor, path: String, next: LevelWriter?, output: StripWriter, overlap: Bool) throws {
        self.level = level
        self.file = file
        self.path = path
        self.next = next
        self.output = output
        // A level of one tile row needs one strip; others alternate between two.
        strips = try (0..<(overlap && level.rows > 1 ? 2 : 1)).map { _ throws in try Strip(bytes: level.tileRowBytes) }
    }

    private var strip: PageBuffer { strips[current].buffer }

    /// Where pixel `x` of strip row `y` (0..<256) lives: tiles are 256 KiB apart in the strip.
    @inline(__always)
    private func address(x: Int, stripRow y: Int) -> UnsafeMutableRawPointer {
        strip.base + (x >> 8) * PyramidGeometry.tileBytes + y * PyramidGeometry.tileRowStride + (x & 255) * 4
    }

    /// Appends `count` contiguous rows (`bytesPerRow` apart, `level.width × 4` bytes used each).
    func append(rows: UnsafeRawPointer, count: Int, bytesPerRow: Int) throws {
        let rowBytes = level.width * 4
        for i in 0..<count {
            let source = rows + i * bytesPerRow
            let y = rowsWritten & 255
            if y == 0 { try output.waitUntilFree(strips[current]) }
            var x = 0
            while x < level.width {
                let n = min(256, level.width - x)
                address(x: x, stripRow: y).copyMemory(from: source + x * 4, byteCount: n * 4)
                x += n
            }
            _ = rowBytes
            try rowArrived()
        }
    }

    /// Called when row `rowsWritten` is complete in the strip.
    private func rowArrived() throws {
        let y = rowsWritten
        let last = y == level.height - 1
        if let next, y & 1 == 1 || last {
            if next.rowsWritten & 255 == 0 { try output.waitUntilFree(next.strips[next.current]) }
            let upper = (y & ~1) & 255
            let lower = y & 255
            let target = next.rowsWritten & 255
            var x = 0
            while x < level.width {
                let n = min(256, level.width - x)
                fic_tile_box_filter(
                    address(x: x, stripRow: upper).assumingMemoryBound(to: UInt8.self),
                    address(x: x, stripRow: lower).assumingMemoryBound(to: UInt8.self),
                    next.address(x: x / 2, stripRow: target).assumingMemoryBound(to: UInt8.self),
                    UInt32(n)
                )
                x += n
            }
            try next.rowArrived()
        }
        rowsWritten += 1
        if rowsWritten & 255 == 0 || last {
            try writeStrip()
        }
    }

    /// Writes the strip as the next row of tiles; the last one has its missing rows zeroed.
    private func writeStrip() throws {
        let tileRow = (rowsWritten - 1) >> 8
        let filled = rowsWritten - tileRow * 256
        if filled < 256 {
            for column in 0..<level.columns {
                let tile = strip.base + column * PyramidGeometry.tileBytes
                (tile + filled * PyramidGeometry.tileRowStride).initializeMemory(
                    as: UInt8.self, repeating: 0, count: (256 - filled) * PyramidGeometry.tileRowStride)
            }
        }
        try output.write(strips[current], length: level.tileRowBytes, to: file, at: tileRow * level.tileRowBytes, path: path)
        current = (current + 1) % strips.count
    }

    /// Whether every row of this level and the levels below has been written.
    var isComplete: Bool {
        rowsWritten == level.height && (next?.isComplete ?? true)
    }
}

/// Receives the upright full-resolution rows of an image and writes every level of its pyramid.
final class PyramidWriter {
    let geometry: PyramidGeometry
    private let top: LevelWriter
    private let output: StripWriter

    /// Writes level `i` into `files[i]`.
    init(geometry: PyramidGeometry, files: [(descriptor: FileDescriptor, path: String)], overlapWrites: Bool = true) throws {
        precondition(files.count == geometry.levels.count, "one file per level")
        self.geometry = geometry
        let output = try StripWriter()
        self.output = output
        var next: LevelWriter?
        for level in geometry.levels.reversed() {
            let file = files[level.index]
            next = try LevelWriter(level: level, file: file.descriptor, path: file.path, next: next, output: output, overlap: overlapWrites)
        }
        top = next!
    }

    deinit {
        output.stop()
    }

    /// Stops the strip writer thread (after the writes already queued).
    func stop() {
        output.stop()
    }

    /// Waits until every strip handed over has been written.
    func drain() throws {
        try output.drain()
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
