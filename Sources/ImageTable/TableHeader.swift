/// The first page of a table file: what the file holds and how it is laid out.
///
/// Layout (little-endian):
/// ```
/// 0   magic "FICTABLE"            8 bytes
/// 8   layout version              UInt32
/// 12  page size                   UInt32
/// 16  pixel width, height         UInt32 × 2
/// 24  bytes per pixel, per row    UInt32 × 2
/// 32  slot length                 UInt64
/// 40  maximum count               UInt64
/// 48  slots per chunk             UInt64
/// 56  chunk length                UInt64   index records and slots of one chunk
/// 64  records length              UInt64   index records of one chunk, padded to a page
/// 72  identity length             UInt32
/// 76  (reserved, zero)            UInt32
/// 80  header checksum             UInt64   XXH64 of bytes 0..<80 and the identity
/// 88  open state                  UInt32   1 while open for writing, 0 after a clean close
/// 92  (reserved, zero)            UInt32
/// 96  boot identifier             16 bytes the boot the table was last opened for writing under
/// 112 device, inode               UInt64 × 2  the file it was written as (a copy is another file)
/// 128 identity                    UTF-8
/// ```
/// Every field up to the checksum is compared with what the configuration expects; a file whose
/// header differs in any way (another format, another page size, another layout version) is
/// rebuilt. The open state and the writer's session (bytes 88..<128) change while the format
/// does not, so they are outside the checksum: a damaged session only ever reads as "another
/// boot", which makes every entry be checked.
struct TableHeader: Equatable {
    static let magic: UInt64 = 0x454C_4241_5443_4946  // "FICTABLE" little-endian
    static let layoutVersion: UInt32 = 2
    /// Bytes read to decode a header: the smallest page size.
    static let readLength = 4096
    static let identityOffset = 128
    static let openStateOffset = 88
    /// Where the writer's session starts: boot identifier, device, inode.
    static let sessionOffset = 96

    var pageSize: Int
    var pixelWidth: Int
    var pixelHeight: Int
    var bytesPerPixel: Int
    var bytesPerRow: Int
    var slotLength: Int
    var maximumCount: Int
    var slotsPerChunk: Int
    var chunkLength: Int
    var recordsLength: Int
    var identity: String

    init(configuration c: TableConfiguration) {
        let layout = TableLayout(configuration: c)
        pageSize = c.pageSize
        pixelWidth = c.pixelWidth
        pixelHeight = c.pixelHeight
        bytesPerPixel = c.bytesPerPixel
        bytesPerRow = c.bytesPerRow
        slotLength = c.slotLength
        maximumCount = c.maximumCount
        slotsPerChunk = c.slotsPerChunk
        chunkLength = layout.chunkLength
        recordsLength = layout.recordsLength
        identity = c.identity
    }

    private init() {
        pageSize = 0; pixelWidth = 0; pixelHeight = 0; bytesPerPixel = 0; bytesPerRow = 0; slotLength = 0
        maximumCount = 0; slotsPerChunk = 0; chunkLength = 0; recordsLength = 0; identity = ""
    }

    /// Serialises the header into a buffer of ``readLength`` bytes (the rest of the page is zero).
    func encode(open: Bool, session: WriterSession) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: Self.readLength)
        bytes.withUnsafeMutableBytes { b in
            b.storeBytes(of: Self.magic.littleEndian, toByteOffset: 0, as: UInt64.self)
            b.storeBytes(of: Self.layoutVersion.littleEndian, toByteOffset: 8, as: UInt32.self)
            for (offset, value) in [(12, pageSize), (16, pixelWidth), (20, pixelHeight), (24, bytesPerPixel), (28, bytesPerRow)] {
                b.storeBytes(of: UInt32(truncatingIfNeeded: value).littleEndian, toByteOffset: offset, as: UInt32.self)
            }
            for (offset, value) in [(32, slotLength), (40, maximumCount), (48, slotsPerChunk), (56, chunkLength), (64, recordsLength)] {
                b.storeBytes(of: UInt64(truncatingIfNeeded: value).littleEndian, toByteOffset: offset, as: UInt64.self)
            }
            let id = Array(identity.utf8.prefix(Self.readLength - Self.identityOffset))
            b.storeBytes(of: UInt32(id.count).littleEndian, toByteOffset: 72, as: UInt32.self)
            for (i, byte) in id.enumerated() { b[Self.identityOffset + i] = byte }
            b.storeBytes(of: Self.checksum(UnsafeRawBufferPointer(b)).littleEndian, toByteOffset: 80, as: UInt64.self)
            b.storeBytes(of: UInt32(open ? 1 : 0).littleEndian, toByteOffset: Self.openStateOffset, as: UInt32.self)
            session.encode(into: UnsafeMutableRawBufferPointer(rebasing: b[Self.sessionOffset..<Self.identityOffset]))
        }
        return bytes
    }

    /// The checksum the header page of this format carries at byte 80: it covers the geometry
    /// and the identity, not the open state or the session.
    var formatChecksum: UInt64 {
        encode(open: false, session: WriterSession(boot: nil, device: 0, inode: 0)).withUnsafeBytes {
            UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: 80, as: UInt64.self))
        }
    }

    /// The checksum of a header page; the identity length is bounded first, so any bytes are safe.
    static func checksum(_ b: UnsafeRawBufferPointer) -> UInt64 {
        let idLength = min(Int(UInt32(littleEndian: b.loadUnaligned(fromByteOffset: 72, as: UInt32.self))), readLength - identityOffset)
        let head = XXH64.hash(b.baseAddress, count: 80, seed: 0)
        return XXH64.hash(b.baseAddress! + identityOffset, count: idLength, seed: head)
    }

    /// What a header page says beyond the format: whether the file was left open (not closed
    /// cleanly), and the session that last opened it for writing.
    struct State {
        var wasOpen: Bool
        var session: WriterSession
    }

    /// Parses a header page; returns the header and its state, or a sentence saying why the page
    /// is not a valid header. Any bytes are safe.
    static func decode(_ b: UnsafeRawBufferPointer) -> Result<(TableHeader, State), NotATable> {
        guard b.count >= readLength else { return .failure(NotATable("the file is shorter than its header")) }
        func u32(_ o: Int) -> Int { Int(UInt32(littleEndian: b.loadUnaligned(fromByteOffset: o, as: UInt32.self))) }
        func u64(_ o: Int) -> Int { Int(truncatingIfNeeded: UInt64(littleEndian: b.loadUnaligned(fromByteOffset: o, as: UInt64.self))) }
        guard UInt64(littleEndian: b.loadUnaligned(fromByteOffset: 0, as: UInt64.self)) == magic else {
            return .failure(NotATable("the file does not start with the table signature"))
        }
        guard u32(72) <= readLength - identityOffset else { return .failure(NotATable("the identity length is out of range")) }
        guard UInt64(littleEndian: b.loadUnaligned(fromByteOffset: 80, as: UInt64.self)) == checksum(b) else {
            return .failure(NotATable("the header checksum does not match"))
        }
        // Every layout version checksums its header the same way, so an older table is still provably one.
        guard u32(8) == Int(layoutVersion) else {
            return .failure(NotATable("layout version \(u32(8)) is not \(layoutVersion)", isOwnTable: true))
        }
        var h = TableHeader()
        h.pageSize = u32(12)
        h.pixelWidth = u32(16)
        h.pixelHeight = u32(20)
        h.bytesPerPixel = u32(24)
        h.bytesPerRow = u32(28)
        h.slotLength = u64(32)
        h.maximumCount = u64(40)
        h.slotsPerChunk = u64(48)
        h.chunkLength = u64(56)
        h.recordsLength = u64(64)
        h.identity = String(decoding: UnsafeRawBufferPointer(rebasing: b[identityOffset..<(identityOffset + u32(72))]), as: UTF8.self)
        let session = WriterSession(decoding: UnsafeRawBufferPointer(rebasing: b[sessionOffset..<identityOffset]))
        return .success((h, State(wasOpen: u32(openStateOffset) != 0, session: session)))
    }

    /// Whether `b` starts with a valid header of any table (the proof that a file is the package's own).
    static func isTableHeader(_ b: UnsafeRawBufferPointer) -> Bool {
        switch decode(b) {
        case .success: return true
        case .failure(let why): return why.isOwnTable
        }
    }
}

/// Why a file's first page is not a valid table header.
struct NotATable: Error {
    let reason: String
    /// Whether the file is still provably a table (of an older layout version).
    let isOwnTable: Bool
    init(_ reason: String, isOwnTable: Bool = false) {
        self.reason = reason
        self.isOwnTable = isOwnTable
    }
}
