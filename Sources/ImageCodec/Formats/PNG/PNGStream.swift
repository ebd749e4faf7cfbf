import CSpng

/// PNG bytes pulled on demand from a caller's reader, for libspng's stream input, through a small
/// buffer. On the way it watches the chunk structure, keeping the first `eXIf` payload that comes
/// before the image data (libspng itself drops one written with the `Exif\0\0` prefix): the bytes
/// go by a piece at a time, so it reads each chunk header as it passes (``PNGChunk``), where the
/// paths with the whole file in memory walk it with ``PNGChunks``.
final class PNGStream {
    /// Fills a buffer and returns how many bytes it wrote; 0 at the end of the data.
    typealias Reader = (UnsafeMutableRawBufferPointer) throws -> Int

    private static let exifLimit = 64 << 10
    /// The most bytes of the head kept: room for a compressed ICC profile of the largest size
    /// ``EmbeddedColor/pngProfileLimit`` accepts, and the other chunks.
    static let headLimit = 8 << 20

    private let reader: Reader
    private let buffer: UnsafeMutableRawBufferPointer
    private var start = 0, end = 0
    /// The first error the reader threw, reported instead of libspng's generic I/O error.
    private(set) var failure: (any Error)?

    // Chunk watching: bytes still to skip, header bytes gathered, eXIf bytes still to keep.
    private var skip = 8  // the signature
    private var header: [UInt8] = []
    private var keepExif = 0
    private var watching = true
    /// The payload of the first `eXIf` chunk before `IDAT`, once it has passed.
    private(set) var exif: [UInt8]?
    /// The bytes of the stream up to the image data (and a little of it), for the colour chunks'
    /// parser (``EmbeddedColor/png(_:)``); at most ``headLimit`` of them.
    private(set) var head: [UInt8] = []
    /// Whether the head went past ``headLimit`` before the image data (and was cut there).
    private(set) var headIsCut = false

    init(reader: @escaping Reader) {
        self.reader = reader
        buffer = .allocate(byteCount: 32 << 10, alignment: 64)
    }

    deinit {
        buffer.deallocate()
    }

    /// Fills `destination` entirely: 0, or libspng's EOF or I/O error code.
    func read(into destination: UnsafeMutableRawBufferPointer) -> Int32 {
        var done = 0
        while done < destination.count {
            if start == end {
                do {
                    let n = try reader(buffer)
                    guard n > 0 else { return Int32(SPNG_IO_EOF.rawValue) }
                    start = 0
                    end = min(n, buffer.count)
                } catch {
                    failure = failure ?? error
                    return Int32(SPNG_IO_ERROR.rawValue)
                }
            }
            let n = min(end - start, destination.count - done)
            let chunk = UnsafeRawBufferPointer(start: buffer.baseAddress! + start, count: n)
            (destination.baseAddress! + done).copyMemory(from: chunk.baseAddress!, byteCount: n)
            if watching {
                keepHead(chunk)
                watch(chunk)
            }
            start += n
            done += n
        }
        return 0
    }

    /// Appends `bytes` to the head, up to its limit.
    private func keepHead(_ bytes: UnsafeRawBufferPointer) {
        let room = Self.headLimit - head.count
        if bytes.count > room { headIsCut = true }
        head.append(contentsOf: bytes.prefix(max(0, room)))
    }

    /// Follows chunk headers through `bytes`, the next bytes of the stream.
    private func watch(_ bytes: UnsafeRawBufferPointer) {
        var index = 0
        while index < bytes.count && watching {
            if keepExif > 0 {
                let n = min(keepExif, bytes.count - index)
                exif?.append(contentsOf: bytes[index..<index + n])
                keepExif -= n
                index += n
            } else if skip > 0 {
                let n = min(skip, bytes.count - index)
                skip -= n
                index += n
            } else {
                header.append(bytes[index])
                index += 1
                guard header.count == 8 else { continue }
                let chunk = header.withUnsafeBytes { PNGChunk(offset: 0, header: $0) }
                header.removeAll(keepingCapacity: true)
                guard let chunk else {  // an absurd length: libspng refuses the file
                    watching = false
                    continue
                }
                switch chunk.type {
                case PNGChunk.IDAT, PNGChunk.IEND:  // done
                    watching = false
                case PNGChunk.eXIf where exif == nil:  // the first eXIf
                    keepExif = min(chunk.length, Self.exifLimit)
                    exif = []
                    exif?.reserveCapacity(keepExif)
                    skip = chunk.length - keepExif + 4  // the rest of it, and its CRC
                default:
                    skip = chunk.length + 4
                }
            }
        }
    }

    /// A reader of the file at `path`, from its start.
    static func fileReader(path: String) throws -> Reader {
        let file = FileBox(try ImageFile(path: path))
        var offset = 0
        return { buffer in
            let n = try file.file.read(into: buffer, at: offset)
            offset += n
            return n
        }
    }

    /// Owns an ``ImageFile`` for a reader closure.
    private final class FileBox {
        let file: ImageFile
        init(_ file: consuming ImageFile) { self.file = file }
    }
}
