/// Per-pixel conversions between RGBA byte orders and premultiplied alpha.
enum PixelConversion {
    /// Premultiplies one channel with correct rounding: `(c × a + 127) / 255`.
    @inline(__always)
    static func premultiply(_ channel: UInt32, _ alpha: UInt32) -> UInt32 {
        (channel &* alpha &+ 127) / 255
    }

    /// Undoes premultiplication, rounding to nearest and clamping to 255; 0 when `alpha` is 0.
    @inline(__always)
    static func unpremultiply(_ channel: UInt32, _ alpha: UInt32) -> UInt32 {
        guard alpha > 0 else { return 0 }
        return min(255, (channel &* 255 &+ alpha / 2) / alpha)
    }
}
