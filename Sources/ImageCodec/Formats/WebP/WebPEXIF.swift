/// Finds the EXIF orientation in a WebP's RIFF container (its `EXIF` chunk), bounds-checked.
enum WebPEXIF {
    /// The orientation from the `EXIF` chunk, or ``ImageOrientation/up`` when there is none.
    static func orientation(_ bytes: UnsafeRawBufferPointer) -> ImageOrientation {
        guard bytes.count >= 12 else { return .up }
        let end = min(bytes.count, 8 + Int(littleEndian32(bytes, at: 4)))
        var offset = 12
        while offset + 8 <= end {
            let size = Int(littleEndian32(bytes, at: offset + 4))
            let payload = offset + 8
            guard size <= end - payload else { return .up }
            if bytes[offset] == 0x45, bytes[offset + 1] == 0x58, bytes[offset + 2] == 0x49, bytes[offset + 3] == 0x46 {  // "EXIF"
                return EXIFOrientationParser.orientation(tiff: UnsafeRawBufferPointer(rebasing: bytes[payload..<payload + size]))
            }
            offset = payload + size + (size & 1)
        }
        return .up
    }

    private static func littleEndian32(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
    }
}
