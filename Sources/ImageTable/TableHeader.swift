/// The first page of a table file: what the file holds and where.
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
/// 56  index offset, data offset   UInt64 × 2
/// 72  identity length             UInt32
/// 76  (reserved)                  UInt32
/// 80  header checksum             UInt64   XXH64 of bytes 0..<80 and the identity
/// 88  open state                  UInt32   1 while open for writing, 0 after a clean close
/// 128 identity                    UTF-8
/// ```
struct TableHeader: Equatable {
    static let magic: UInt64 = 0x454C_4241_5443_4946 // "FICTABLE" little-endian
    static let layoutVersion: UInt32 = 1
    static let length = 4096
    static let identityOffset = 128
    static let openStateOffset = 88
    static let maximumIdentityLength = length - identityOffset

    var pageSize: Int
    var pixelWidth: Int
    var pixelHeight: Int
    var bytesPerPixel: Int
    var bytesPerRow: Int
    var slotLength: Int
    var maximumCount: Int
    var slotsPerChunk: Int
    var indexOffset: Int
    var dataOffset: Int
    var identity: String

    init(configuration c: TableConfiguration) {
        pageSize = SystemFile.pageSize
        pixelWidth = c.pixelWidth
        pixelHeight = c.pixelHeight
        bytesPerPixel = c.bytesPerPixel
        bytesPerRow = c.bytesPerRow
        slotLength = c.slotLength
        maximumCount = c.maximumCount
        slotsPerChunk = c.slotsPerChunk
        indexOffset = Self.length
        dataOffset = roundUp(Self.length + c.maximumCount * IndexRecord.length, SystemFile.pageSize)
        identity = c.identity
    }

    /// Serialises the header into a page-sized buffer.
    func encode(open: Bool) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: Self.length)
        bytes.withUnsafeMutableBytes { b in
            b.storeBytes(of: Self.magic.littleEndian, toByteOffset: 0, as: UInt64.self)
            b.storeBytes(of: Self.layoutVersion.littleEndian, toByteOffset: 8, as: UInt32.self)
            b.storeBytes(of: UInt32(pageSize).littleEndian, toByteOffset: 12, as: UInt32.self)
            b.storeBytes(of: UInt32(pixelWidth).littleEndian, toByteOffset: 16, as: UInt32.self)
            b.storeBytes(of: UInt32(pixelHeight).littleEndian, toByteOffset: 20, as: UInt32.self)
            b.storeBytes(of: UInt32(bytesPerPixel).littleEndian, toByteOffset: 24, as: UInt32.self)
            b.storeBytes(of: UInt32(bytesPerRow).littleEndian, toByteOffset: 28, as: UInt32.self)
            b.storeBytes(of: UInt64(slotLength).littleEndian, toByteOffset: 32, as: UInt64.self)
            b.storeBytes(of: UInt64(maximumCount).littleEndian, toByteOffset: 40, as: UInt64.self)
            b.storeBytes(of: UInt64(slotsPerChunk).littleEndian, toByteOffset: 48, as: UInt64.self)
            b.storeBytes(of: UInt64(indexOffset).littleEndian, toByteOffset: 56, as: UInt64.self)
            b.storeBytes(of: UInt64(dataOffset).littleEndian, toByteOffset: 64, as: UInt64.self)
            let id = Array(identity.utf8)
            b.storeBytes(of: UInt32(id.count).littleEndian, toByteOffset: 72, as: UInt32.self)
            for (i, byte) in id.enumerated() { b[Self.identityOffset + i] = byte }
            b.storeBytes(of: Self.checksum(UnsafeRawBufferPointer(b)).littleEndian, toByteOffset: 80, as: UInt64.self)
            b.storeBytes(of: UInt32(open ? 1 : 0).littleEndian, toByteOffset: Self.openStateOffset, as: UInt32.self)
        }
        return bytes
    }

    private static func checksum(_ b: UnsafeRawBufferPointer) -> UInt64 {
        let idLength = min(Int(UInt32(littleEndian: b.loadUnaligned(fromByteOffset: 72, as: UInt32.self))), maximumIdentityLength)
        let head = XXH64.hash(b.baseAddress, count: 80, seed: 0)
        return XXH64.hash(b.baseAddress! + identityOffset, count: idLength, seed: head)
    }

    /// Parses a header page; returns the header and whether the file was left open (not closed
    /// cleanly), or a sentence saying why the page is not a valid header.
    static func decode(_ b: UnsafeRawBufferPointer) -> Result<(TableHeader, wasOpen: Bool), NotATable> {
        guard b.count >= length else { return .failure(NotATable("the file is shorter than its header")) }
        func u32(_ o: Int) -> Int { Int(UInt32(littleEndian: b.loadUnaligned(fromByteOffset: o, as: UInt32.self))) }
        func u64(_ o: Int) -> Int { Int(truncatingIfNeeded: UInt64(littleEndian: b.loadUnaligned(fromByteOffset: o, as: UInt64.self))) }
        guard UInt64(littleEndian: b.loadUnaligned(fromByteOffset: 0, as: UInt64.self)) == magic else {
            return .failure(NotATable("the file does not start with the table signature"))
        }
        guard UInt32(u32(8)) == layoutVersion else { return .failure(NotATable("layout version \(u32(8)) is not \(layoutVersion)")) }
        guard u32(72) <= maximumIdentityLength else { return .failure(NotATable("the identity length is out of range")) }
        guard UInt64(littleEndian: b.loadUnaligned(fromByteOffset: 80, as: UInt64.self)) == checksum(b) else {
            return .failure(NotATable("the header checksum does not match"))
        }
        let idBytes = UnsafeRawBufferPointer(rebasing: b[identityOffset..<(identityOffset + u32(72))])
        var h = TableHeader(configuration: TableConfiguration(pixelWidth: 1, pixelHeight: 1, bytesPerPixel: 1, maximumCount: 1, identity: ""))
        h.pageSize = u32(12)
        h.pixelWidth = u32(16)
        h.pixelHeight = u32(20)
        h.bytesPerPixel = u32(24)
        h.bytesPerRow = u32(28)
        h.slotLength = u64(32)
        h.maximumCount = u64(40)
        h.slotsPerChunk = u64(48)
        h.indexOffset = u64(56)
        h.dataOffset = u64(64)
        h.identity = String(decoding: idBytes, as: UTF8.self)
        return .success((h, u32(openStateOffset) != 0))
    }
}

/// Why a file's first page is not a valid table header.
struct NotATable: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}
