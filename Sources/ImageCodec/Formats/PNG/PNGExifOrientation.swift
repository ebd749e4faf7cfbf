/// The orientation a PNG's `eXIf` chunk gives.
enum PNGExifOrientation {
    /// The largest `eXIf` payload read; the orientation tag sits at the start of EXIF data.
    private static let exifReadLimit = 64 << 10

    /// The orientation from the first `eXIf` chunk before the image data of the PNG `bytes` (as
    /// browsers apply it), accepting the EXIF data with or without the `Exif\0\0` prefix some
    /// writers add; ``ImageOrientation/up`` when there is none or it cannot be read. Only chunk
    /// headers are read on the way.
    static func orientation(_ bytes: UnsafeRawBufferPointer) -> ImageOrientation {
        var chunks = PNGChunks(bytes)
        while let chunk = chunks.nextHeader() {
            switch chunk.type {
            case PNGChunk.IDAT, PNGChunk.IEND:
                return .up
            case PNGChunk.eXIf:
                return EXIFOrientationParser.orientation(tiff: chunks.data(chunk, atMost: exifReadLimit))
            default:
                continue
            }
        }
        return .up
    }
}
