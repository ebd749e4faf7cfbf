/// Reads the orientation tag (0x0112) from EXIF data, defensively: every offset is bounds-checked,
/// so hostile data yields ``ImageOrientation/up`` rather than a crash.
package enum EXIFOrientationParser {
    /// The orientation in a TIFF-structured EXIF block (starting at the `II`/`MM` byte-order mark).
    /// A leading `Exif\0\0` identifier is skipped if present.
    package static func orientation(tiff: UnsafeRawBufferPointer) -> ImageOrientation {
        var data = tiff
        if data.count >= 6 && Array(data.prefix(6)) == [0x45, 0x78, 0x69, 0x66, 0, 0] {
            data = UnsafeRawBufferPointer(rebasing: data[6...])
        }
        guard data.count >= 8 else { return .up }
        let littleEndian: Bool
        switch (data[0], data[1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: return .up
        }
        let reader = Reader(bytes: data, littleEndian: littleEndian)
        guard reader.uint16(at: 2) == 42, let ifdOffset = reader.uint32(at: 4) else { return .up }
        let start = Int(ifdOffset)
        guard let entryCount = reader.uint16(at: start) else { return .up }
        for index in 0..<Int(entryCount) {
            let entry = start + 2 + index * 12
            guard entry + 12 <= data.count else { return .up }
            guard reader.uint16(at: entry) == 0x0112 else { continue }
            let type = reader.uint16(at: entry + 2)
            let value: Int?
            switch type {
            case 3: value = reader.uint16(at: entry + 8).map(Int.init)  // SHORT
            case 4: value = reader.uint32(at: entry + 8).map(Int.init)  // LONG, seen in some writers
            default: value = nil
            }
            return value.flatMap(ImageOrientation.init(rawValue:)) ?? .up
        }
        return .up
    }

    /// Bounds-checked integer reads in the block's byte order.
    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        let littleEndian: Bool

        func uint16(at offset: Int) -> UInt16? {
            guard offset >= 0, offset <= bytes.count - 2 else { return nil }
            let a = UInt16(bytes[offset]), b = UInt16(bytes[offset + 1])
            return littleEndian ? (b << 8 | a) : (a << 8 | b)
        }

        func uint32(at offset: Int) -> UInt32? {
            guard let first = uint16(at: offset), let second = uint16(at: offset + 2) else { return nil }
            return littleEndian ? (UInt32(second) << 16 | UInt32(first)) : (UInt32(first) << 16 | UInt32(second))
        }
    }
}
