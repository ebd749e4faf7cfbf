/// Follows the chunks of a WebP's RIFF container as its bytes pass, keeping the payload of the
/// `EXIF` chunk (which WebP writers put after the image data), every length bounds-checked.
struct RIFFEXIFWatcher {
    private static let exifLimit = 64 << 10

    private var skip = 12  // "RIFF", size, "WEBP"
    private var header: [UInt8] = []
    private var keep = 0
    private var done = false
    /// The `EXIF` payload, once it has passed.
    private(set) var exif: [UInt8]?

    /// Watches the next bytes of the file.
    mutating func watch(_ bytes: UnsafeRawBufferPointer) {
        var index = 0
        while index < bytes.count && !done {
            if keep > 0 {
                let n = min(keep, bytes.count - index)
                exif?.append(contentsOf: bytes[index..<index + n])
                keep -= n
                index += n
                if keep == 0 && (exif?.count ?? 0) > 0 { done = true }
            } else if skip > 0 {
                let n = min(skip, bytes.count - index)
                skip -= n
                index += n
            } else {
                header.append(bytes[index])
                index += 1
                guard header.count == 8 else { continue }
                let size = Int(header[4]) | Int(header[5]) << 8 | Int(header[6]) << 16 | Int(header[7]) << 24
                let padded = size + (size & 1)
                if header[0] == 0x45, header[1] == 0x58, header[2] == 0x49, header[3] == 0x46, exif == nil {  // "EXIF"
                    keep = min(size, Self.exifLimit)
                    exif = []
                    skip = padded - keep
                    if keep == 0 { done = true }
                } else {
                    skip = padded
                }
                header.removeAll(keepingCapacity: true)
            }
        }
    }

    /// The orientation in the `EXIF` chunk seen so far; ``ImageOrientation/up`` without one.
    var orientation: ImageOrientation {
        exif.map { bytes in bytes.withUnsafeBytes { EXIFOrientationParser.orientation(tiff: $0) } } ?? .up
    }
}
