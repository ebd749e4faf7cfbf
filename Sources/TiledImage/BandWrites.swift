import CTileSupport
import FICCore
import SystemPackage

/// The writes of a pyramid's bands, in flight together (Linux native AIO, see `fic_tile_writer`):
/// a band is handed over with one call and written while the next one fills; a band's memory is
/// reused only after ``wait(for:)``. Where the system refuses AIO the writes are synchronous.
///
/// Not thread-safe, and needs no lock: one thread uses it at a time (the pipeline's writer thread
/// during a build, the builder's thread after that thread has been joined).
final class BandWrites {
    private let writer: OpaquePointer
    /// Named in errors (the pyramid's folder, or nil for unnamed files).
    private let path: String?

    /// Room for `capacity` writes in flight, of bands numbered `0..<bands`.
    init(capacity: Int, bands: Int, path: String?) throws {
        guard capacity > 0, bands > 0, capacity <= Int(UInt32.max), bands <= Int(UInt32.max),
              let writer = fic_tile_writer_create(UInt32(capacity), UInt32(bands)) else {
            throw ImageCacheError(.overMemoryBudget, "could not set up the tile writes: out of memory")
        }
        self.writer = writer
        self.path = path
    }

    deinit {
        fic_tile_writer_destroy(writer)  // waits for every write in flight
    }

    /// Whether the writes go through AIO (false: synchronous writes).
    var isAsynchronous: Bool { fic_tile_writer_is_asynchronous(writer) != 0 }

    /// Queues `count` writes of `length` bytes: write `i` takes `buffer + i × bufferStride` to `file`
    /// at `offset + i × fileStride`. `buffer` must stay untouched until ``wait(for:)`` for `band`.
    func submit(
        _ buffer: UnsafeRawPointer, length: Int, bufferStride: Int, count: Int,
        to file: FileDescriptor, offset: Int, fileStride: Int, band: Int
    ) throws {
        guard count > 0 else { return }
        let rc = fic_tile_writer_submit(
            writer, file.rawValue, buffer.assumingMemoryBound(to: UInt8.self), length, bufferStride,
            UInt32(count), Int64(offset), Int64(fileStride), UInt32(band))
        if rc != 0 { throw ImageCacheError.system("writing tiles", path: path, errno: Errno(rawValue: rc)) }
    }

    /// Waits until no write of `band` is in flight.
    func wait(for band: Int) throws {
        let rc = fic_tile_writer_wait(writer, UInt32(band))
        if rc != 0 { throw ImageCacheError.system("writing tiles", path: path, errno: Errno(rawValue: rc)) }
    }

    /// Waits until every write has completed.
    func waitAll() throws {
        let rc = fic_tile_writer_wait_all(writer)
        if rc != 0 { throw ImageCacheError.system("writing tiles", path: path, errno: Errno(rawValue: rc)) }
    }
}
