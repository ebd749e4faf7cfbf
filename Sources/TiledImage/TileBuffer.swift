import FICCore

/// Memory for one tile (256 KiB), reused from read to read so that serving a tile costs one
/// `pread` and no allocation. Not thread-safe: one buffer per reading thread.
public final class TileBuffer {
    private let storage: PageBuffer
    /// Bytes of the tile last read into it (0 before the first read).
    public private(set) var count = 0

    /// Creates an empty buffer.
    public init() throws {
        storage = try PageBuffer(count: PyramidGeometry.tileBytes)
    }

    /// Runs `body` with the tile's bytes: 256 rows of 1024 bytes, BGRA premultiplied.
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: storage.base, count: count))
    }

    /// The whole buffer, for reading into.
    func fill(_ body: (UnsafeMutableRawBufferPointer) throws -> Int) throws {
        count = 0
        count = try body(UnsafeMutableRawBufferPointer(start: storage.base, count: PyramidGeometry.tileBytes))
    }
}
