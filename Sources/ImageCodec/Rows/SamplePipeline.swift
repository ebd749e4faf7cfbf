/// The last step of every decoder: its samples, as its library hands them out, become the
/// package's pixels — sRGB, 4 bytes a pixel, premultiplied BGRA when the image has alpha, else
/// BGRX. One place for every format, so that byte orders, bit depths, CMYK, alpha and colour
/// profiles are handled alike whatever the file was.
///
/// Not thread-safe: one per decode (or per thread), made once, used for every row.
package struct SamplePipeline {
    /// How a decoder's samples are laid out (one list for the pipeline and the colour engine);
    /// 16-bit samples are native-endian, full range.
    package typealias Layout = ColorConverter.Layout

    /// The samples' layout.
    package let layout: Layout
    /// The colours the file declared.
    package let color: ColorDescription
    /// The conversion to sRGB, when the samples are not sRGB already (and for every CMYK layout).
    package let converter: ColorConverter?

    /// A pipeline for samples in `layout` whose colours are as `color` says. What cannot be
    /// honoured (an unusable profile) is appended to `warnings`; the pixels are then taken as sRGB.
    package init(layout: Layout, color: ColorDescription, warnings: inout [String]) {
        self.layout = layout
        self.color = color
        converter = ColorConverter.make(for: color, layout: layout, warnings: &warnings)
    }

    /// Whether the output is premultiplied BGRA (else BGRX).
    package var hasAlpha: Bool { layout.hasAlpha }

    /// The output's pixel format.
    package var pixelFormat: PixelFormat { hasAlpha ? .bgra32Premultiplied : .bgrx32 }

    /// Converts `count` pixels from `source` into `destination` (4 bytes a pixel). The two may
    /// be the same memory when the layout is 4 bytes a pixel.
    package func convert(_ source: UnsafeRawPointer, to destination: UnsafeMutableRawPointer, count: Int) {
        let out = destination.assumingMemoryBound(to: UInt32.self)
        if let converter {
            // sRGB, straight BGRA (opaque when the layout has no alpha), then premultiplied here.
            converter.convert(source, to: destination, count: count)
            if layout.hasAlpha {
                for i in 0..<count { out[i] = PixelConversion.premultiplied(out[i]) }
            }
            return
        }
        switch layout {
        case .bgrx8:
            for i in 0..<count { out[i] = source.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self) | 0xFF00_0000 }
        case .bgra8:
            for i in 0..<count {
                let p = source.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)
                out[i] = Self.pixel(p >> 16 & 0xFF, p >> 8 & 0xFF, p & 0xFF, p >> 24)
            }
        case .rgb8:
            // Opaque, so no premultiplying: the four bytes ending with pixel i's blue, read as one
            // little-endian word (x, r, g, b) and byte-swapped, are (b, g, r, x); x becomes 255.
            // One load, swap and store a pixel (the byte-by-byte form took twice as long).
            guard count > 0 else { return }
            let s = source.assumingMemoryBound(to: UInt8.self)
            out[0] = UInt32(s[2]) | UInt32(s[1]) << 8 | UInt32(s[0]) << 16 | 0xFF00_0000  // no byte before it to read
            for i in 1..<count {
                out[i] = source.loadUnaligned(fromByteOffset: i &* 3 &- 1, as: UInt32.self).byteSwapped | 0xFF00_0000
            }
        case .rgba8:
            let s = source.assumingMemoryBound(to: UInt8.self)
            for i in 0..<count { out[i] = Self.pixel(UInt32(s[i * 4]), UInt32(s[i * 4 + 1]), UInt32(s[i * 4 + 2]), UInt32(s[i * 4 + 3])) }
        case .rgb16:
            for i in 0..<count {
                out[i] = Self.pixel(Self.reduce(source, i * 3), Self.reduce(source, i * 3 + 1), Self.reduce(source, i * 3 + 2), 255)
            }
        case .rgba16:
            for i in 0..<count {
                out[i] = Self.pixel(
                    Self.reduce(source, i * 4), Self.reduce(source, i * 4 + 1), Self.reduce(source, i * 4 + 2),
                    Self.reduce(source, i * 4 + 3))
            }
        case .gray8:
            let s = source.assumingMemoryBound(to: UInt8.self)
            for i in 0..<count { out[i] = UInt32(s[i]) &* 0x0001_0101 | 0xFF00_0000 }
        case .grayAlpha8:
            let s = source.assumingMemoryBound(to: UInt8.self)
            for i in 0..<count { let g = UInt32(s[i * 2]); out[i] = Self.pixel(g, g, g, UInt32(s[i * 2 + 1])) }
        case .gray16:
            for i in 0..<count { let g = Self.reduce(source, i); out[i] = Self.pixel(g, g, g, 255) }
        case .grayAlpha16:
            for i in 0..<count { let g = Self.reduce(source, i * 2); out[i] = Self.pixel(g, g, g, Self.reduce(source, i * 2 + 1)) }
        case .cmyk8, .cmykInverted8:
            preconditionFailure("CMYK always has a converter (ColorConverter.make)")
        }
    }

    /// A premultiplied BGRA pixel (BGRX when `a` is 255) from 8-bit channels.
    @inline(__always)
    static func pixel(_ r: UInt32, _ g: UInt32, _ b: UInt32, _ a: UInt32) -> UInt32 {
        if a == 255 { return b | g << 8 | r << 16 | 0xFF00_0000 }
        if a == 0 { return 0 }
        return PixelConversion.premultiply(b, a) | PixelConversion.premultiply(g, a) << 8 | PixelConversion.premultiply(r, a) << 16 | a
            << 24
    }

    /// The 16-bit sample at `index` reduced to 8 bits with rounding: `round(v × 255 / 65535)`.
    @inline(__always)
    static func reduce(_ source: UnsafeRawPointer, _ index: Int) -> UInt32 {
        (UInt32(source.loadUnaligned(fromByteOffset: index * 2, as: UInt16.self)) * 255 + 32767) / 65535
    }
}
