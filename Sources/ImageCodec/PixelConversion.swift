/// Per-pixel conversions between RGBA byte orders and premultiplied alpha.
enum PixelConversion {
    /// `x / 255` rounded to nearest, exact for `x` in `0...255 * 255`.
    @inline(__always)
    static func divideBy255(_ x: UInt32) -> UInt32 {
        let biased = x &+ 128
        return (biased &+ (biased >> 8)) >> 8
    }

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

    /// Rewrites `width × height` RGBA8 pixels in place as BGRA, premultiplied when `premultiplied`
    /// (otherwise the fourth byte is set to 255, as cairo's RGB24 expects).
    static func rgbaToBGRAInPlace(
        _ base: UnsafeMutableRawPointer, width: Int, height: Int, bytesPerRow: Int, premultiplied: Bool
    ) {
        for y in 0..<height {
            let row = (base + y * bytesPerRow).assumingMemoryBound(to: UInt8.self)
            for x in 0..<width {
                let p = row + x * 4
                let r = UInt32(p[0]), g = UInt32(p[1]), b = UInt32(p[2])
                if premultiplied {
                    let a = UInt32(p[3])
                    p[0] = UInt8(truncatingIfNeeded: premultiply(b, a))
                    p[1] = UInt8(truncatingIfNeeded: premultiply(g, a))
                    p[2] = UInt8(truncatingIfNeeded: premultiply(r, a))
                } else {
                    p[0] = UInt8(truncatingIfNeeded: b)
                    p[2] = UInt8(truncatingIfNeeded: r)
                    p[3] = 255
                }
            }
        }
    }

    /// Premultiplies `width × height` BGRA8 pixels in place.
    static func premultiplyBGRAInPlace(_ base: UnsafeMutableRawPointer, width: Int, height: Int, bytesPerRow: Int) {
        for y in 0..<height {
            let row = (base + y * bytesPerRow).assumingMemoryBound(to: UInt8.self)
            for x in 0..<width {
                let p = row + x * 4
                let a = UInt32(p[3])
                guard a != 255 else { continue }
                p[0] = UInt8(truncatingIfNeeded: premultiply(UInt32(p[0]), a))
                p[1] = UInt8(truncatingIfNeeded: premultiply(UInt32(p[1]), a))
                p[2] = UInt8(truncatingIfNeeded: premultiply(UInt32(p[2]), a))
            }
        }
    }

    /// Reduces a 16-bit sample to 8 bits with rounding: `round(v × 255 / 65535)`.
    @inline(__always)
    static func reduce16(_ value: UInt16) -> UInt32 {
        (UInt32(value) &* 255 &+ 32767) / 65535
    }
}
