import FICCore
import ImageCodec

/// Reads a TIFF's header and IFDs from a byte source with few, batched reads: the first 64 KiB
/// at once, and more only where an IFD or a value lies beyond them. Every count, offset and size
/// is checked before it is used, so that hostile files fail with an error, never a crash or a
/// huge allocation.
struct TIFFDirectoryParser {
    /// Bytes read at once from the start of the file.
    static let prefixSize = 64 << 10
    /// The most bytes the prefix grows to when IFDs and arrays follow it; further ranges are read
    /// apart.
    static let maximumPrefix = 16 << 20
    /// The most entries an IFD may have (a pyramid level has about 20).
    static let maximumEntries = 512
    /// The most bytes one value may have (a level's tile offsets: 4 million 8-byte offsets).
    static let maximumValueBytes = 32 << 20

    /// One IFD entry as stored.
    struct Entry {
        var tag: Int
        var type: Int
        var count: UInt64
        /// Where the value field lies (the value itself when it fits, else its offset).
        var field: Int
    }

    let source: any PyramidTIFFByteSource
    let littleEndian: Bool
    let bigTIFF: Bool
    /// The offset of the first IFD.
    let firstDirectory: Int
    private var prefix: [UInt8]
    /// Ranges read beyond the prefix, by where they start.
    private var windows: [(start: Int, bytes: [UInt8])] = []

    init(source: any PyramidTIFFByteSource) throws {
        self.source = source
        guard source.size >= 8 else { throw Self.damaged("the file has \(source.size) bytes, fewer than a TIFF header") }
        prefix = try source.read(offset: 0, count: min(source.size, Self.prefixSize))
        switch (prefix[0], prefix[1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: throw ImageCacheError(.unsupportedFormat, "not a TIFF: the file does not start with II or MM")
        }
        let version = Self.integer(prefix, at: 2, size: 2, littleEndian: littleEndian)
        switch version {
        case 42:
            bigTIFF = false
            firstDirectory = Int(Self.integer(prefix, at: 4, size: 4, littleEndian: littleEndian))
        case 43:
            bigTIFF = true
            guard prefix.count >= 16 else { throw Self.damaged("the file ends inside its BigTIFF header") }
            guard Self.integer(prefix, at: 4, size: 2, littleEndian: littleEndian) == 8,
                Self.integer(prefix, at: 6, size: 2, littleEndian: littleEndian) == 0
            else { throw Self.damaged("the BigTIFF header's offset size is not 8") }
            firstDirectory = try Self.checkedOffset(Self.integer(prefix, at: 8, size: 8, littleEndian: littleEndian))
        default:
            throw ImageCacheError(.unsupportedFormat, "not a TIFF: version \(version), not 42 or 43 (BigTIFF)")
        }
    }

    /// Bytes of an offset or count field.
    var offsetSize: Int { bigTIFF ? 8 : 4 }

    /// The entries of the IFD at `offset`, and the offset of the next IFD (0: none).
    mutating func directory(at offset: Int) throws -> (entries: [Entry], next: Int) {
        let countSize = bigTIFF ? 8 : 2, entrySize = bigTIFF ? 20 : 12
        guard offset >= 8 else { throw Self.damaged("an IFD offset of \(offset) lies inside the header") }
        let countBytes = try bytes(at: offset, count: countSize)
        let count = Self.integer(countBytes, at: 0, size: countSize, littleEndian: littleEndian)
        guard count >= 1, count <= UInt64(Self.maximumEntries) else {
            throw Self.damaged("the IFD at \(offset) claims \(count) entries (1…\(Self.maximumEntries) accepted)")
        }
        let tableSize = Int(count) * entrySize + offsetSize
        let table = try bytes(at: offset + countSize, count: tableSize)
        var entries: [Entry] = []
        entries.reserveCapacity(Int(count))
        for i in 0..<Int(count) {
            let at = i * entrySize
            entries.append(
                Entry(
                    tag: Int(Self.integer(table, at: at, size: 2, littleEndian: littleEndian)),
                    type: Int(Self.integer(table, at: at + 2, size: 2, littleEndian: littleEndian)),
                    count: Self.integer(table, at: at + 4, size: offsetSize, littleEndian: littleEndian),
                    field: offset + countSize + at + 4 + offsetSize))
        }
        let next = try Self.checkedOffset(Self.integer(table, at: Int(count) * entrySize, size: offsetSize, littleEndian: littleEndian))
        return (entries, next)
    }

    /// The raw bytes of `entry`'s value (at most `maximum` bytes, else an error naming `name`).
    mutating func valueBytes(_ entry: Entry, name: String, maximum: Int = maximumValueBytes) throws -> [UInt8] {
        let unit = TIFFTag.FieldType.size(entry.type)
        guard unit > 0 else { throw Self.damaged("\(name) has the unknown field type \(entry.type)") }
        let (total, overflow) = entry.count.multipliedReportingOverflow(by: UInt64(unit))
        guard !overflow, total <= UInt64(maximum) else {
            throw Self.damaged("\(name) claims \(entry.count) values, more than the \(maximum) bytes accepted")
        }
        let length = Int(total)
        if length <= offsetSize { return try bytes(at: entry.field, count: length) }
        let field = try bytes(at: entry.field, count: offsetSize)
        let offset = try Self.checkedOffset(Self.integer(field, at: 0, size: offsetSize, littleEndian: littleEndian))
        return try bytes(at: offset, count: length)
    }

    /// `entry`'s values as integers (BYTE, SHORT, LONG, LONG8 or IFD types), at most `maximumCount`.
    mutating func integers(_ entry: Entry, name: String, maximumCount: Int) throws -> [UInt64] {
        let unit = TIFFTag.FieldType.size(entry.type)
        guard [1, 3, 4, 13, 16, 18].contains(entry.type) else {
            throw Self.damaged("\(name) has field type \(entry.type), not an unsigned integer")
        }
        guard entry.count <= UInt64(maximumCount) else {
            throw Self.damaged("\(name) claims \(entry.count) values (at most \(maximumCount) expected)")
        }
        let raw = try valueBytes(entry, name: name, maximum: maximumCount * unit)
        return (0..<Int(entry.count)).map { Self.integer(raw, at: $0 * unit, size: unit, littleEndian: littleEndian) }
    }

    /// `count` bytes at `offset`, from the bytes already read when they hold them. A range that
    /// starts inside or just after the prefix grows the prefix (at least doubling it, up to
    /// ``maximumPrefix``), so that IFDs laid out one after another at the start cost few reads;
    /// a range elsewhere (writers that put IFDs after the tiles) is read with the 64 KiB after
    /// it, which usually hold the rest of its IFD and the values that follow it.
    mutating func bytes(at offset: Int, count: Int) throws -> [UInt8] {
        guard offset >= 0, count >= 0, offset <= source.size, count <= source.size - offset else {
            throw ImageCacheError(
                .truncated, "the pyramidal TIFF has \(source.size) bytes; bytes \(offset)…\(offset + count) lie past its end")
        }
        let end = offset + count
        if end <= prefix.count { return Array(prefix[offset..<end]) }
        if let window = windows.first(where: { $0.start <= offset && end <= $0.start + $0.bytes.count }) {
            return Array(window.bytes[(offset - window.start)..<(end - window.start)])
        }
        if offset <= prefix.count + Self.prefixSize, end <= Self.maximumPrefix {
            let grown = min(source.size, max(end, min(Self.maximumPrefix, prefix.count * 2)))
            prefix += try source.read(offset: prefix.count, count: grown - prefix.count)
            return Array(prefix[offset..<end])
        }
        guard count <= Self.prefixSize else { return try source.read(offset: offset, count: count) }
        let window = try source.read(offset: offset, count: min(source.size - offset, Self.prefixSize))
        // A few windows are kept: a level's IFD and its values are read one after another.
        if windows.count == 4 { windows.removeFirst() }
        windows.append((offset, window))
        return Array(window[0..<count])
    }

    /// An offset as an `Int`, refused when it cannot lie in any file.
    static func checkedOffset(_ value: UInt64) throws -> Int {
        guard value <= UInt64(Int.max >> 2) else { throw damaged("an offset of \(value) lies past any file") }
        return Int(value)
    }

    /// The unsigned integer of `size` bytes at `at` (the caller keeps it inside `bytes`).
    static func integer(_ bytes: [UInt8], at: Int, size: Int, littleEndian: Bool) -> UInt64 {
        var value: UInt64 = 0
        for i in 0..<size {
            let byte = UInt64(bytes[littleEndian ? at + size - 1 - i : at + i])
            value = value << 8 | byte
        }
        return value
    }

    /// The error for a file whose structure is wrong.
    static func damaged(_ message: String) -> ImageCacheError {
        ImageCacheError(.damagedPyramid, "damaged pyramidal TIFF: \(message)")
    }
}
