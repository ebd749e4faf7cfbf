/// Conversions between 8-bit luminance and the `RGB24` (B, G, R, unused) scratch buffer that
/// ``ImageCanvas`` draws gray8 bitmaps through.
enum Gray8Conversion {
    /// BT.601 luma weights for red, green and blue, scaled to sum to 256, so that a gray pixel
    /// converts back to exactly its own value.
    static let redWeight: UInt32 = 77
    /// See ``redWeight``.
    static let greenWeight: UInt32 = 150
    /// See ``redWeight``.
    static let blueWeight: UInt32 = 29

    /// The BT.601 luminance of an `RGB24` pixel value (`0x??RRGGBB`), rounded.
    @inline(__always)
    static func luminance(ofRGB24 pixel: UInt32) -> UInt8 {
        let red = (pixel >> 16) & 0xFF
        let green = (pixel >> 8) & 0xFF
        let blue = pixel & 0xFF
        return UInt8(truncatingIfNeeded: (redWeight * red + greenWeight * green + blueWeight * blue + 128) >> 8)
    }

    /// Writes every gray pixel as an opaque `RGB24` pixel of equal red, green and blue.
    static func expand(
        gray: UnsafeRawPointer, grayBytesPerRow: Int,
        into rgb: UnsafeMutableRawPointer, rgbBytesPerRow: Int, width: Int, height: Int
    ) {
        for row in 0..<height {
            let source = (gray + row * grayBytesPerRow).assumingMemoryBound(to: UInt8.self)
            let destination = (rgb + row * rgbBytesPerRow).assumingMemoryBound(to: UInt32.self)
            for column in 0..<width {
                let value = UInt32(source[column])
                destination[column] = 0xFF00_0000 | value << 16 | value << 8 | value
            }
        }
    }

    /// Writes the luminance of every `RGB24` pixel into the gray bitmap, leaving its row padding alone.
    static func reduce(
        rgb: UnsafeRawPointer, rgbBytesPerRow: Int,
        into gray: UnsafeMutableRawPointer, grayBytesPerRow: Int, width: Int, height: Int
    ) {
        for row in 0..<height {
            let source = (rgb + row * rgbBytesPerRow).assumingMemoryBound(to: UInt32.self)
            let destination = (gray + row * grayBytesPerRow).assumingMemoryBound(to: UInt8.self)
            for column in 0..<width {
                destination[column] = luminance(ofRGB24: UInt32(littleEndian: source[column]))
            }
        }
    }
}
