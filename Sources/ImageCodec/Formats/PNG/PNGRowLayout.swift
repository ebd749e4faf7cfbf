import CSpng

/// How one row of a ``PixelFormat`` becomes one row of 8-bit PNG samples.
struct PNGRowLayout {
    let format: PixelFormat

    /// Samples per PNG pixel.
    var channels: Int {
        switch format {
        case .bgra32Premultiplied: return 4
        case .bgrx32, .rgb565: return 3
        case .gray8: return 1
        }
    }

    /// The PNG color type written.
    var colorType: UInt8 {
        switch format {
        case .bgra32Premultiplied: return UInt8(SPNG_COLOR_TYPE_TRUECOLOR_ALPHA.rawValue)
        case .bgrx32, .rgb565: return UInt8(SPNG_COLOR_TYPE_TRUECOLOR.rawValue)
        case .gray8: return UInt8(SPNG_COLOR_TYPE_GRAYSCALE.rawValue)
        }
    }

    /// Converts `width` pixels at `row` into PNG samples at `out`.
    func convert(row: UnsafeRawPointer, width: Int, into out: UnsafeMutablePointer<UInt8>) {
        let source = row.assumingMemoryBound(to: UInt8.self)
        switch format {
        case .bgra32Premultiplied:
            for x in 0..<width {
                let p = source + x * 4, q = out + x * 4
                let a = UInt32(p[3])
                q[0] = UInt8(truncatingIfNeeded: PixelConversion.unpremultiply(UInt32(p[2]), a))
                q[1] = UInt8(truncatingIfNeeded: PixelConversion.unpremultiply(UInt32(p[1]), a))
                q[2] = UInt8(truncatingIfNeeded: PixelConversion.unpremultiply(UInt32(p[0]), a))
                q[3] = p[3]
            }
        case .bgrx32:
            for x in 0..<width {
                let p = source + x * 4, q = out + x * 3
                q[0] = p[2]
                q[1] = p[1]
                q[2] = p[0]
            }
        case .rgb565:
            for x in 0..<width {
                let value = UInt32(source[x * 2]) | UInt32(source[x * 2 + 1]) << 8
                let q = out + x * 3
                q[0] = UInt8(truncatingIfNeeded: Self.expand5((value >> 11) & 0x1F))
                q[1] = UInt8(truncatingIfNeeded: Self.expand6((value >> 5) & 0x3F))
                q[2] = UInt8(truncatingIfNeeded: Self.expand5(value & 0x1F))
            }
        case .gray8:
            out.update(from: source, count: width)
        }
    }

    /// A 5-bit sample scaled to 8 bits, rounded.
    static func expand5(_ value: UInt32) -> UInt32 { (value * 255 + 15) / 31 }
    /// A 6-bit sample scaled to 8 bits, rounded.
    static func expand6(_ value: UInt32) -> UInt32 { (value * 255 + 31) / 63 }
}
