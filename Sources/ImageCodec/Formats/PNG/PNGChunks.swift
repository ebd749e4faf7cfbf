import CImageCodecSupport

/// One chunk of a PNG: where it starts, its data's length and its type.
struct PNGChunk: Equatable {
    /// Where its length field starts, from the start of the file.
    let offset: Int
    /// The length of its data (at most 2^31 − 1, PNG's limit).
    let length: Int
    /// Its type, the four letters as one big-endian number (`IDAT` is `0x4944_4154`).
    let type: UInt32

    /// Where its data starts.
    var dataOffset: Int { offset + 8 }
    /// Where the next chunk starts: after the data and the four bytes of CRC.
    var end: Int { offset + 12 + length }
    /// Whether a decoder must understand it (its type's first letter is upper-case).
    var isCritical: Bool { type & 0x2000_0000 == 0 }

    /// The chunk whose 8-byte header (length, type) is `header`, at `offset`; nil when the length
    /// is over PNG's limit of 2^31 − 1 (no real chunk, and a hostile one would overflow sums).
    init?(offset: Int, header: UnsafeRawBufferPointer) {
        precondition(header.count >= 8)
        let length = Int(header.loadUnaligned(as: UInt32.self).bigEndian)
        guard length <= Int(Int32.max) else { return nil }
        self.offset = offset
        self.length = length
        self.type = header.loadUnaligned(fromByteOffset: 4, as: UInt32.self).bigEndian
    }

    /// Its type's four letters, or "unnamed" when they are not letters (damaged bytes).
    var name: String {
        let letters = [UInt8(type >> 24 & 0xFF), UInt8(type >> 16 & 0xFF), UInt8(type >> 8 & 0xFF), UInt8(type & 0xFF)]
        return letters.allSatisfy { (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }
            ? String(decoding: letters, as: UTF8.self) : "unnamed"
    }

    static let IDAT: UInt32 = 0x4944_4154
    static let IEND: UInt32 = 0x4945_4E44
    static let acTL: UInt32 = 0x6163_544C
    static let fcTL: UInt32 = 0x6663_544C
    static let fdAT: UInt32 = 0x6664_4154
    static let eXIf: UInt32 = 0x6558_4966
    static let cICP: UInt32 = 0x6349_4350
    static let iCCP: UInt32 = 0x6943_4350
    static let sRGB: UInt32 = 0x7352_4742
    static let gAMA: UInt32 = 0x6741_4D41
    static let cHRM: UInt32 = 0x6348_524D
}

/// The chunks of a PNG held in memory, from its signature on: the one walk of a PNG's chunk list
/// that every PNG path in memory takes (the animation structure, the image data, the colour
/// chunks, the orientation, the quick look for an animation), so that each length is checked
/// against the bytes once, here. (``PNGStream`` watches the same chunks go by as libspng pulls
/// them, and reads their headers with ``PNGChunk/init(offset:header:)``.)
///
/// Use it within the scope of the buffer it was made from.
struct PNGChunks {
    private let bytes: UnsafeRawBufferPointer
    /// Where the next chunk starts.
    private var offset = 8
    /// Whether the walk ended because the bytes did (before an `IEND` the caller stopped at, or
    /// inside a chunk's header, data or CRC: the file was cut short), or at an absurd length.
    private(set) var isCut = false

    /// The chunks of the PNG `bytes` from the one at `offset` on: by default the first, after
    /// the 8-byte signature (which is not checked here).
    init(_ bytes: UnsafeRawBufferPointer, from offset: Int = 8) {
        self.bytes = bytes
        self.offset = offset
    }

    /// The next chunk whose header (length and type) is within the bytes, its data and CRC
    /// perhaps not (a quick look at what a file has); nil at the end of the bytes.
    mutating func nextHeader() -> PNGChunk? {
        guard offset >= 0, offset <= bytes.count - 8,
            let chunk = PNGChunk(offset: offset, header: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + 8]))
        else {
            isCut = true
            return nil
        }
        offset = chunk.end
        return chunk
    }

    /// The next chunk whose header, data and CRC are all within the bytes; nil (and ``isCut``)
    /// when the bytes end before it is complete.
    mutating func next() -> PNGChunk? {
        let start = offset
        guard let chunk = nextHeader(), chunk.length <= bytes.count - start - 12 else {
            offset = start
            isCut = true
            return nil
        }
        return chunk
    }

    /// The data of `chunk`, one that ``next()`` returned.
    func data(_ chunk: PNGChunk) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: bytes[chunk.dataOffset..<chunk.dataOffset + chunk.length])
    }

    /// Up to `limit` bytes of `chunk`'s data, as many as the bytes hold (for a chunk from
    /// ``nextHeader()`` whose data may be cut).
    func data(_ chunk: PNGChunk, atMost limit: Int) -> UnsafeRawBufferPointer {
        let count = max(0, min(chunk.length, limit, bytes.count - chunk.dataOffset))
        return UnsafeRawBufferPointer(rebasing: bytes[chunk.dataOffset..<chunk.dataOffset + count])
    }

    /// Whether `chunk` (one that ``next()`` returned) matches its CRC, which covers its type and data.
    func crcMatches(_ chunk: PNGChunk) -> Bool {
        let expected = bytes.loadUnaligned(fromByteOffset: chunk.dataOffset + chunk.length, as: UInt32.self).bigEndian
        return fic_png_chunk_crc_matches(bytes.baseAddress! + chunk.offset + 4, chunk.length + 4, expected) != 0
    }
}
