import ImageCodec

/// Writes the header region of ``PyramidTIFFLayout``: the TIFF header, then per level an IFD
/// (tags ascending, as TIFF requires) and its out-of-line values, chained by next-IFD offsets.
struct HeaderBuilder {
    let bigTIFF: Bool
    private(set) var bytes: [UInt8] = []
    private(set) var offsetsPositions: [Int] = []
    private(set) var byteCountsPositions: [Int] = []
    private(set) var directoryPositions: [Int] = []

    /// One IFD entry: its tag, field type, count and value bytes (little-endian); `array` marks
    /// the tile offsets and byte counts, whose position the writer needs.
    private struct Entry {
        enum Array { case offsets, byteCounts }
        var tag: Int
        var type: Int
        var count: Int
        var value: [UInt8]
        var array: Array? = nil
    }

    init(levels: [TileLevel], compression: PyramidTIFFCompression, hasAlpha: Bool, bigTIFF: Bool) {
        self.bigTIFF = bigTIFF
        if bigTIFF {
            bytes = [0x49, 0x49, 43, 0, 8, 0, 0, 0]
            append(16, size: 8)
        } else {
            bytes = [0x49, 0x49, 42, 0]
            append(8, size: 4)
        }
        for (i, level) in levels.enumerated() {
            let entries = Self.entries(
                level: level, reduced: i > 0, compression: compression, hasAlpha: hasAlpha, offsetType: bigTIFF ? 16 : 4)
            appendDirectory(entries, last: i == levels.count - 1)
        }
    }

    /// The entries of one level's IFD, tags ascending.
    private static func entries(
        level: TileLevel, reduced: Bool, compression: PyramidTIFFCompression, hasAlpha: Bool, offsetType: Int
    ) -> [Entry] {
        let samples = hasAlpha ? 4 : 3
        let long = TIFFTag.FieldType.long, short = TIFFTag.FieldType.short
        let isJPEG = compression.isJPEG
        var entries = [
            Entry(tag: TIFFTag.newSubfileType, type: long, count: 1, value: le(reduced ? TIFFTag.reducedResolution : 0, 4)),
            Entry(tag: TIFFTag.imageWidth, type: long, count: 1, value: le(level.width, 4)),
            Entry(tag: TIFFTag.imageLength, type: long, count: 1, value: le(level.height, 4)),
            Entry(tag: TIFFTag.bitsPerSample, type: short, count: samples, value: (0..<samples).flatMap { _ in le(8, 2) }),
            Entry(tag: TIFFTag.compression, type: short, count: 1, value: le(compression.tagValue, 2)),
            Entry(
                tag: TIFFTag.photometricInterpretation, type: short, count: 1,
                value: le(isJPEG ? TIFFTag.Photometric.yCbCr : TIFFTag.Photometric.rgb, 2)),
            Entry(tag: TIFFTag.samplesPerPixel, type: short, count: 1, value: le(samples, 2)),
            Entry(tag: TIFFTag.planarConfiguration, type: short, count: 1, value: le(1, 2))
        ]
        if !reduced {
            let software = Array("FastImageCache".utf8) + [0]
            entries.append(Entry(tag: TIFFTag.software, type: TIFFTag.FieldType.ascii, count: software.count, value: software))
        }
        let tiles = level.tileCount, fieldSize = TIFFTag.FieldType.size(offsetType)
        entries += [
            Entry(tag: TIFFTag.tileWidth, type: short, count: 1, value: le(PyramidGeometry.tileSide, 2)),
            Entry(tag: TIFFTag.tileLength, type: short, count: 1, value: le(PyramidGeometry.tileSide, 2)),
            Entry(
                tag: TIFFTag.tileOffsets, type: offsetType, count: tiles, value: [UInt8](repeating: 0, count: tiles * fieldSize),
                array: .offsets),
            Entry(
                tag: TIFFTag.tileByteCounts, type: offsetType, count: tiles, value: [UInt8](repeating: 0, count: tiles * fieldSize),
                array: .byteCounts)
        ]
        if hasAlpha {
            entries.append(Entry(tag: TIFFTag.extraSamples, type: short, count: 1, value: le(TIFFTag.ExtraSample.associatedAlpha, 2)))
        }
        if isJPEG {
            // The JPEG tiles are 4:2:0; without this tag readers assume 2,2 too, but say it.
            entries.append(Entry(tag: TIFFTag.yCbCrSubSampling, type: short, count: 2, value: le(2, 2) + le(2, 2)))
        }
        return entries
    }

    /// Appends one IFD and its out-of-line values; the next-IFD field points past them unless `last`.
    private mutating func appendDirectory(_ entries: [Entry], last: Bool) {
        let inlineSize = bigTIFF ? 8 : 4
        align(to: bigTIFF ? 8 : 2)
        let directory = bytes.count
        directoryPositions.append(directory)
        // The field that pointed here (the header's, or the IFD before's next-IFD field) is patched
        // by the caller's order: the header already holds 8 / 16, later ones are patched below.
        if directoryPositions.count > 1 { put(directory, at: pendingNext, size: bigTIFF ? 8 : 4) }
        append(entries.count, size: bigTIFF ? 8 : 2)
        var outOfLine: [(field: Int, entry: Entry)] = []
        for entry in entries {
            append(entry.tag, size: 2)
            append(entry.type, size: 2)
            append(entry.count, size: bigTIFF ? 8 : 4)
            let field = bytes.count
            if entry.value.count <= inlineSize {
                bytes += entry.value + [UInt8](repeating: 0, count: inlineSize - entry.value.count)
                record(entry.array, at: field)
            } else {
                append(0, size: inlineSize)
                outOfLine.append((field, entry))
            }
        }
        pendingNext = bytes.count
        append(0, size: bigTIFF ? 8 : 4)
        for (field, entry) in outOfLine {
            // Word-aligned as TIFF asks; BigTIFF's 8-byte arrays on 8 bytes.
            align(to: bigTIFF ? 8 : 4)
            put(bytes.count, at: field, size: inlineSize)
            record(entry.array, at: bytes.count)
            bytes += entry.value
        }
        if last { align(to: bigTIFF ? 8 : 4) }
    }

    /// The next-IFD field of the IFD last appended.
    private var pendingNext = 0

    private mutating func record(_ array: Entry.Array?, at position: Int) {
        switch array {
        case .offsets: offsetsPositions.append(position)
        case .byteCounts: byteCountsPositions.append(position)
        case nil: break
        }
    }

    private mutating func align(to alignment: Int) {
        while bytes.count % alignment != 0 { bytes.append(0) }
    }

    private mutating func append(_ value: Int, size: Int) {
        bytes += Self.le(value, size)
    }

    private mutating func put(_ value: Int, at position: Int, size: Int) {
        for i in 0..<size { bytes[position + i] = UInt8(truncatingIfNeeded: UInt64(value) >> (8 * UInt64(i))) }
    }

    /// `value` as `size` little-endian bytes.
    static func le(_ value: Int, _ size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: UInt64(value) >> (8 * UInt64($0))) }
    }
}
