import ImageCodec

/// Reads the orientation tag (0x0112) of IFD0 from an EXIF TIFF block. Anything malformed reads
/// as ``ImageOrientation/up``: a damaged tag must not stop an image from being shown.
enum EXIFOrientation {
    static func parse(_ tiff: UnsafeRawBufferPointer) -> ImageOrientation {
        guard tiff.count >= 8 else { return .up }
        let little: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return .up
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= tiff.count else { return nil }
            return little ? Int(tiff[at]) | Int(tiff[at + 1]) << 8 : Int(tiff[at]) << 8 | Int(tiff[at + 1])
        }
        func u32(_ at: Int) -> Int? {
            guard let a = u16(at), let b = u16(at + 2) else { return nil }
            return little ? a | b << 16 : a << 16 | b
        }
        guard u16(2) == 42, let ifd = u32(4), let count = u16(ifd) else { return .up }
        for index in 0..<min(count, 512) {
            let entry = ifd + 2 + index * 12
            guard let tag = u16(entry) else { return .up }
            guard tag == 0x0112 else { continue }
            guard u16(entry + 2) == 3, let value = u16(entry + 8) else { return .up }
            return ImageOrientation(rawValue: value) ?? .up
        }
        return .up
    }
}
