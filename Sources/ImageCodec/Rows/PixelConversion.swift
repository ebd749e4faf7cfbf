/// Per-pixel conversions between RGBA byte orders and premultiplied alpha.
package enum PixelConversion {
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

    /// A straight BGRA pixel (blue in the low byte) premultiplied; opaque ones as they are.
    @inline(__always)
    static func premultiplied(_ pixel: UInt32) -> UInt32 {
        let a = pixel >> 24
        if a == 255 { return pixel }
        if a == 0 { return 0 }
        return premultiply(pixel & 0xFF, a) | premultiply(pixel >> 8 & 0xFF, a) << 8 | premultiply(pixel >> 16 & 0xFF, a) << 16 | a << 24
    }

    /// A premultiplied BGRA pixel made straight again; opaque ones as they are.
    @inline(__always)
    package static func unpremultiplied(_ pixel: UInt32) -> UInt32 {
        let a = pixel >> 24
        if a == 255 { return pixel }
        return unpremultiply(pixel & 0xFF, a) | unpremultiply(pixel >> 8 & 0xFF, a) << 8 | unpremultiply(pixel >> 16 & 0xFF, a) << 16 | a
            << 24
    }
}
