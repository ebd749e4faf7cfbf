import CSpng

/// Turns one row of PNG samples, as stored (any color type, 1 to 16 bits, packed), into 32-bit
/// pixels: premultiplied BGRA when the image has alpha (an alpha channel or `tRNS`), else BGRX.
///
/// One pass per row, straight from libspng's unfiltered output: no intermediate RGBA image.
/// `tRNS` is honoured at every bit depth: the transparent grey level or RGB color is compared at
/// the file's own precision (before 16-bit samples are reduced), and matching pixels become
/// transparent black. 16-bit samples reduce to 8 bits with rounding. Palette indices beyond the
/// palette become opaque black.
struct PNGRowConverter {
    /// How the stored samples are laid out.
    enum Layout {
        /// Grey or palette index of 1, 2, 4 or 8 bits, looked up in `table`.
        case lookup(bits: Int)
        /// 16-bit grey.
        case gray16(transparent: UInt16?)
        /// 8-bit grey and alpha.
        case grayAlpha8
        /// 16-bit grey and alpha.
        case grayAlpha16
        /// 8-bit RGB.
        case rgb8(transparent: (UInt8, UInt8, UInt8)?)
        /// 16-bit RGB.
        case rgb16(transparent: (UInt16, UInt16, UInt16)?)
        /// 8-bit RGBA.
        case rgba8
        /// 16-bit RGBA.
        case rgba16
    }

    /// The stored layout.
    let layout: Layout
    /// Pixels per row.
    let width: Int
    /// Whether output pixels are premultiplied BGRA (else BGRX with X = 255).
    let hasAlpha: Bool
    /// For ``Layout/lookup(bits:)``: the output pixel of each sample value (2^bits entries).
    private let table: [UInt32]
    /// Whether 16-bit samples come big-endian, as stored in the file (else in host order, as
    /// libspng hands them out).
    var bigEndianSamples = false

    /// The converter for an image with `ihdr`, its palette and its `tRNS` chunk (if any).
    init(ihdr: spng_ihdr, palette: spng_plte?, transparency: spng_trns?) throws {
        width = Int(ihdr.width)
        let bits = Int(ihdr.bit_depth)
        switch Int(ihdr.color_type) {
        case Int(SPNG_COLOR_TYPE_GRAYSCALE.rawValue):
            hasAlpha = transparency != nil
            if bits == 16 {
                layout = .gray16(transparent: transparency.map { $0.gray })
                table = []
            } else {
                layout = .lookup(bits: bits)
                let maximum = (1 << bits) - 1
                // An out-of-range tRNS level is masked to the bit depth, as libpng (and so every
                // browser) does: 0xFFFF in a 1-bit image makes white transparent.
                let transparent = transparency.map { Int($0.gray) & maximum }
                table = (0...maximum).map { value in
                    if value == transparent { return 0 }
                    let level = UInt32((value * 255 + maximum / 2) / maximum)
                    return level | level << 8 | level << 16 | 0xFF00_0000
                }
            }
        case Int(SPNG_COLOR_TYPE_INDEXED.rawValue):
            guard let palette else {
                throw ImageCacheError(.corruptData, "The PNG is a palette image without a palette (no PLTE chunk). Re-export the image.")
            }
            hasAlpha = transparency != nil
            layout = .lookup(bits: bits)
            var entries = [UInt32](repeating: 0xFF00_0000, count: 1 << bits)  // out of range: opaque black
            let count = min(Int(palette.n_entries), entries.count, 256)
            withUnsafeBytes(of: palette.entries) { raw in
                let colors = raw.bindMemory(to: spng_plte_entry.self)
                let alphaCount = Int(transparency?.n_type3_entries ?? 0)
                withUnsafeBytes(of: transparency?.type3_alpha ?? spng_trns().type3_alpha) { alphas in
                    for index in 0..<count {
                        let alpha = index < alphaCount ? UInt32(alphas[index]) : 255
                        let c = colors[index]
                        entries[index] = Self.pixel(UInt32(c.red), UInt32(c.green), UInt32(c.blue), alpha)
                    }
                }
            }
            table = entries
        case Int(SPNG_COLOR_TYPE_GRAYSCALE_ALPHA.rawValue):
            hasAlpha = true
            layout = bits == 16 ? .grayAlpha16 : .grayAlpha8
            table = []
        case Int(SPNG_COLOR_TYPE_TRUECOLOR.rawValue):
            hasAlpha = transparency != nil
            if bits == 16 {
                layout = .rgb16(transparent: transparency.map { ($0.red, $0.green, $0.blue) })
            } else {
                // A tRNS color beyond 8 bits matches no pixel of an 8-bit image.
                layout = .rgb8(
                    transparent: transparency.flatMap { t in
                        guard t.red <= 255, t.green <= 255, t.blue <= 255 else { return nil }
                        return (UInt8(t.red), UInt8(t.green), UInt8(t.blue))
                    })
            }
            table = []
        case Int(SPNG_COLOR_TYPE_TRUECOLOR_ALPHA.rawValue):
            hasAlpha = true
            layout = bits == 16 ? .rgba16 : .rgba8
            table = []
        default:
            throw ImageCacheError(.corruptData, "The PNG has an unknown color type \(ihdr.color_type). Re-export the image.")
        }
    }

    /// A premultiplied BGRA pixel (BGRX when `a` is 255) from 8-bit channels.
    @inline(__always)
    static func pixel(_ r: UInt32, _ g: UInt32, _ b: UInt32, _ a: UInt32) -> UInt32 {
        if a == 255 { return b | g << 8 | r << 16 | 0xFF00_0000 }
        if a == 0 { return 0 }
        return PixelConversion.premultiply(b, a) | PixelConversion.premultiply(g, a) << 8
            | PixelConversion.premultiply(r, a) << 16 | a << 24
    }

    /// `round(v × 255 / 65535)`.
    @inline(__always)
    static func reduce(_ value: UInt16) -> UInt32 {
        (UInt32(value) &+ 128) / 257
    }

    /// A 16-bit sample in host order.
    @inline(__always)
    private func sample(_ stored: UInt16) -> UInt16 {
        bigEndianSamples ? UInt16(bigEndian: stored) : stored
    }

    /// Converts one stored row at `source` (2-byte aligned) into `width` pixels at `out`.
    func convert(_ source: UnsafeRawPointer, into out: UnsafeMutablePointer<UInt32>) {
        let s = source.assumingMemoryBound(to: UInt8.self)
        switch layout {
        case .lookup(let bits):
            table.withUnsafeBufferPointer { lut in
                if bits == 8 {
                    for x in 0..<width { out[x] = lut[Int(s[x])] }
                } else {
                    let perByte = 8 / bits
                    let mask = (1 << bits) - 1
                    for x in 0..<width {
                        let byte = Int(s[x / perByte])
                        let shift = 8 - bits * (x % perByte + 1)
                        out[x] = lut[(byte >> shift) & mask]
                    }
                }
            }
        case .gray16(let transparent):
            let samples = source.assumingMemoryBound(to: UInt16.self)
            for x in 0..<width {
                let v = sample(samples[x])
                if v == transparent {
                    out[x] = 0
                } else {
                    let level = Self.reduce(v)
                    out[x] = level | level << 8 | level << 16 | 0xFF00_0000
                }
            }
        case .grayAlpha8:
            for x in 0..<width {
                let g = UInt32(s[2 * x])
                out[x] = Self.pixel(g, g, g, UInt32(s[2 * x + 1]))
            }
        case .grayAlpha16:
            let samples = source.assumingMemoryBound(to: UInt16.self)
            for x in 0..<width {
                let g = Self.reduce(sample(samples[2 * x]))
                out[x] = Self.pixel(g, g, g, Self.reduce(sample(samples[2 * x + 1])))
            }
        case .rgb8(let transparent):
            if let (tr, tg, tb) = transparent {
                for x in 0..<width {
                    let r = s[3 * x], g = s[3 * x + 1], b = s[3 * x + 2]
                    out[x] = r == tr && g == tg && b == tb ? 0 : UInt32(b) | UInt32(g) << 8 | UInt32(r) << 16 | 0xFF00_0000
                }
            } else {
                for x in 0..<width {
                    out[x] = UInt32(s[3 * x + 2]) | UInt32(s[3 * x + 1]) << 8 | UInt32(s[3 * x]) << 16 | 0xFF00_0000
                }
            }
        case .rgb16(let transparent):
            let samples = source.assumingMemoryBound(to: UInt16.self)
            for x in 0..<width {
                let r = sample(samples[3 * x]), g = sample(samples[3 * x + 1]), b = sample(samples[3 * x + 2])
                if let (tr, tg, tb) = transparent, r == tr, g == tg, b == tb {
                    out[x] = 0
                } else {
                    out[x] = Self.reduce(b) | Self.reduce(g) << 8 | Self.reduce(r) << 16 | 0xFF00_0000
                }
            }
        case .rgba8:
            for x in 0..<width {
                out[x] = Self.pixel(UInt32(s[4 * x]), UInt32(s[4 * x + 1]), UInt32(s[4 * x + 2]), UInt32(s[4 * x + 3]))
            }
        case .rgba16:
            let samples = source.assumingMemoryBound(to: UInt16.self)
            for x in 0..<width {
                out[x] = Self.pixel(
                    Self.reduce(sample(samples[4 * x])), Self.reduce(sample(samples[4 * x + 1])),
                    Self.reduce(sample(samples[4 * x + 2])), Self.reduce(sample(samples[4 * x + 3]))
                )
            }
        }
    }
}
