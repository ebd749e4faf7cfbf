/// Turns runs of a TIFF's samples (contiguous, as a strip, a tile's row or interleaved planes hold
/// them) into the package's pixels: the plan's conversion first (picking, inverting,
/// un-premultiplying, expanding bits, looking up a palette), then ``SamplePipeline``.
///
/// Not thread-safe: its scratch row is reused.
package final class TIFFSampleConverter {
    /// How the samples are converted.
    package let plan: TIFFSamplePlan
    /// The last step.
    package let pipeline: SamplePipeline
    /// The most pixels one call converts.
    package let capacity: Int
    /// Samples in SamplePipeline's layout, for conversions that need a copy.
    private let scratch: LargeBufferPool.Storage
    /// Whether the samples are 8-bit RGBA with associated alpha going to sRGB unchanged: then each
    /// pixel is swizzled with every colour clamped to its alpha, which is exactly what
    /// un-premultiplying and premultiplying again gives (every colour and alpha pair checked by
    /// the tests), without a division a sample.
    private let associatedRGBA8: Bool

    /// A converter of runs of up to `capacity` pixels; `warnings` gets what the colour step could not honour.
    package init(plan: TIFFSamplePlan, color: ColorDescription, capacity: Int, warnings: inout [String]) throws {
        self.plan = plan
        self.capacity = capacity
        pipeline = SamplePipeline(layout: plan.layout, color: color, warnings: &warnings)
        scratch = try LargeBufferPool.allocate(byteCount: capacity * 8, zeroed: false)
        if case .pick(channels: [0, 1, 2, 3], invert: false, unpremultiply: true, reduceTo8: false) = plan.conversion {
            associatedRGBA8 = plan.bitsPerSample == 8 && plan.samplesPerPixel == 4 && pipeline.converter == nil
        } else {
            associatedRGBA8 = false
        }
    }

    /// Converts `count` pixels at `source` into `destination` (4 bytes a pixel).
    package func convert(_ source: UnsafeRawPointer, count: Int, into destination: UnsafeMutableRawPointer) {
        precondition(count <= capacity)
        if associatedRGBA8 {
            let s = source.assumingMemoryBound(to: UInt8.self), o = destination.assumingMemoryBound(to: UInt32.self)
            for i in 0..<count {
                let p = s + i &* 4
                let a = p[3]
                o[i] = UInt32(min(p[2], a)) | UInt32(min(p[1], a)) << 8 | UInt32(min(p[0], a)) << 16 | UInt32(a) << 24
            }
        } else if case .none = plan.conversion {
            pipeline.convert(source, to: destination, count: count)
        } else {
            prepare(source, count: count, into: scratch.base)
            pipeline.convert(scratch.base, to: destination, count: count)
        }
    }

    /// Writes `count` pixels at `source` into `destination` as SamplePipeline's layout
    /// (``TIFFSamplePlan/layout``) takes them, without converting them further.
    package func prepare(_ source: UnsafeRawPointer, count: Int, into destination: UnsafeMutableRawPointer) {
        switch plan.conversion {
        case .none:
            destination.copyMemory(from: source, byteCount: count * plan.layout.bytesPerPixel)
        case .pick(let channels, let invert, let unpremultiply, let reduceTo8):
            if plan.bitsPerSample == 16 {
                if reduceTo8 {
                    Self.pick16to8(source, count: count, samples: plan.samplesPerPixel, channels: channels, into: destination)
                } else {
                    Self.pick16(
                        source, count: count, samples: plan.samplesPerPixel, channels: channels, invert: invert,
                        unpremultiply: unpremultiply, into: destination)
                }
            } else {
                Self.pick8(
                    source, count: count, samples: plan.samplesPerPixel, channels: channels, invert: invert, unpremultiply: unpremultiply,
                    into: destination)
            }
        case .lowBitGray(let bits, let invert):
            Self.expand(source, count: count, bits: bits, invert: invert, into: destination)
        case .palette(let bits, let table):
            Self.lookUp(source, count: count, bits: bits, table: table, into: destination)
        }
    }

    /// One opaque mid-grey pixel in an opaque layout (where a strip could not be decoded, in
    /// samples that are shrunk before they are converted).
    static func grey(_ layout: SamplePipeline.Layout) -> [UInt8] {
        switch layout {
        case .gray8: [0x80]
        case .gray16: [0x80, 0x80]
        case .rgb8: [0x80, 0x80, 0x80]
        case .rgb16: [0x80, 0x80, 0x80, 0x80, 0x80, 0x80]
        case .cmyk8: [0, 0, 0, 127]  // (255 − 0) × (255 − 127) / 255 = 128
        case .cmykInverted8: [255, 255, 255, 128]
        default: [0x80, 0x80, 0x80, 0xFF]
        }
    }

    /// 8-bit samples: the chosen channels, colour inverted, alpha (last) un-premultiplied.
    private static func pick8(
        _ source: UnsafeRawPointer, count: Int, samples: Int, channels: [Int], invert: Bool, unpremultiply: Bool,
        into out: UnsafeMutableRawPointer
    ) {
        let s = source.assumingMemoryBound(to: UInt8.self), o = out.assumingMemoryBound(to: UInt8.self)
        let n = channels.count
        let color = unpremultiply ? n - 1 : n
        channels.withUnsafeBufferPointer { channels in
            for i in 0..<count {
                let pixel = s + i * samples, target = o + i * n
                for c in 0..<n { target[c] = pixel[channels[c]] }
                if invert { for c in 0..<color { target[c] = 255 - target[c] } }
                if unpremultiply {
                    let a = UInt32(target[n - 1])
                    for c in 0..<color {
                        target[c] = a == 0 ? 0 : UInt8(min(255, (UInt32(target[c]) * 255 + a / 2) / a))
                    }
                }
            }
        }
    }

    /// 16-bit samples, the same way.
    private static func pick16(
        _ source: UnsafeRawPointer, count: Int, samples: Int, channels: [Int], invert: Bool, unpremultiply: Bool,
        into out: UnsafeMutableRawPointer
    ) {
        let n = channels.count
        let color = unpremultiply ? n - 1 : n
        let o = out.assumingMemoryBound(to: UInt16.self)
        channels.withUnsafeBufferPointer { channels in
            for i in 0..<count {
                let target = o + i * n
                for c in 0..<n { target[c] = source.loadUnaligned(fromByteOffset: (i * samples + channels[c]) * 2, as: UInt16.self) }
                if invert { for c in 0..<color { target[c] = 65535 - target[c] } }
                if unpremultiply {
                    let a = UInt64(target[n - 1])
                    for c in 0..<color {
                        target[c] = a == 0 ? 0 : UInt16(min(65535, (UInt64(target[c]) * 65535 + a / 2) / a))
                    }
                }
            }
        }
    }

    /// 16-bit samples reduced to 8 bits, rounded (CMYK, which SamplePipeline takes at 8 bits).
    private static func pick16to8(_ source: UnsafeRawPointer, count: Int, samples: Int, channels: [Int], into out: UnsafeMutableRawPointer)
    {
        let n = channels.count
        let o = out.assumingMemoryBound(to: UInt8.self)
        channels.withUnsafeBufferPointer { channels in
            for i in 0..<count {
                for c in 0..<n {
                    let v = UInt32(source.loadUnaligned(fromByteOffset: (i * samples + channels[c]) * 2, as: UInt16.self))
                    o[i * n + c] = UInt8((v * 255 + 32767) / 65535)
                }
            }
        }
    }

    /// 1-, 2- or 4-bit grey (most significant bits first) to 8 bits.
    private static func expand(_ source: UnsafeRawPointer, count: Int, bits: Int, invert: Bool, into out: UnsafeMutableRawPointer) {
        let s = source.assumingMemoryBound(to: UInt8.self), o = out.assumingMemoryBound(to: UInt8.self)
        let perByte = 8 / bits, mask = UInt8((1 << bits) - 1), scale = 255 / Int(mask)
        for i in 0..<count {
            let byte = s[i / perByte]
            let shift = 8 - bits * (i % perByte + 1)
            let v = UInt8(Int((byte >> UInt8(shift)) & mask) * scale)
            o[i] = invert ? 255 - v : v
        }
    }

    /// Palette indexes to 16-bit RGB.
    private static func lookUp(_ source: UnsafeRawPointer, count: Int, bits: Int, table: [UInt16], into out: UnsafeMutableRawPointer) {
        let s = source.assumingMemoryBound(to: UInt8.self), o = out.assumingMemoryBound(to: UInt16.self)
        table.withUnsafeBufferPointer { table in
            for i in 0..<count {
                let index: Int
                switch bits {
                case 16: index = Int(source.loadUnaligned(fromByteOffset: i * 2, as: UInt16.self))
                case 8: index = Int(s[i])
                default:
                    let perByte = 8 / bits
                    index = Int(s[i / perByte] >> UInt8(8 - bits * (i % perByte + 1))) & ((1 << bits) - 1)
                }
                o[3 * i] = table[3 * index]
                o[3 * i + 1] = table[3 * index + 1]
                o[3 * i + 2] = table[3 * index + 2]
            }
        }
    }
}
