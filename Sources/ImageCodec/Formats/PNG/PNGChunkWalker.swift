/// Follows a PNG's chunk list from the signature to the first `IDAT`, reading only chunk headers
/// (and an `eXIf` payload), every length bounds-checked.
enum PNGChunkWalker {
    /// The largest `eXIf` payload read; the orientation tag sits at the start of EXIF data.
    private static let exifReadLimit = 64 << 10
    /// The most chunks looked at before the image data.
    private static let chunkLimit = 100_000

    /// The orientation from the first `eXIf` chunk before the image data (as browsers apply it),
    /// accepting the EXIF data with or without the `Exif\0\0` prefix some writers add;
    /// ``ImageOrientation/up`` when there is none or it cannot be read. `read` fills a buffer
    /// from an offset of the file and returns how many bytes it read.
    static func orientation(size: Int, read: (Int, UnsafeMutableRawBufferPointer) throws -> Int) -> ImageOrientation {
        var offset = 8
        var header = (UInt64(0), UInt64(0))  // 16 bytes; the first 8 are used
        for _ in 0..<chunkLimit {
            guard offset <= size - 8 else { return .up }
            let got = withUnsafeMutableBytes(of: &header) { buffer in
                (try? read(offset, UnsafeMutableRawBufferPointer(rebasing: buffer[0..<8]))) ?? 0
            }
            guard got == 8 else { return .up }
            let (length, type) = withUnsafeBytes(of: header) { b in
                (Int(b[0]) << 24 | Int(b[1]) << 16 | Int(b[2]) << 8 | Int(b[3]), (b[4], b[5], b[6], b[7]))
            }
            switch type {
            case (0x49, 0x44, 0x41, 0x54), (0x49, 0x45, 0x4E, 0x44):  // IDAT, IEND
                return .up
            case (0x65, 0x58, 0x49, 0x66):  // eXIf
                let count = min(length, exifReadLimit, max(size - offset - 8, 0))
                let payload = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 8)
                defer { payload.deallocate() }
                let n = (try? read(offset + 8, UnsafeMutableRawBufferPointer(rebasing: payload[0..<count]))) ?? 0
                return EXIFOrientationParser.orientation(tiff: UnsafeRawBufferPointer(rebasing: payload[0..<n]))
            default:
                let (next, overflow) = offset.addingReportingOverflow(12 + length)
                guard !overflow else { return .up }
                offset = next
            }
        }
        return .up
    }

    /// ``orientation(size:read:)`` for a PNG in memory.
    static func orientation(_ bytes: UnsafeRawBufferPointer) -> ImageOrientation {
        orientation(size: bytes.count) { offset, buffer in
            let n = max(0, min(buffer.count, bytes.count - offset))
            if n > 0 { buffer.baseAddress!.copyMemory(from: bytes.baseAddress! + offset, byteCount: n) }
            return n
        }
    }
}
