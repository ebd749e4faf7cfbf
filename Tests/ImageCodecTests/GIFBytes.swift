/// GIFs written byte by byte, for the cases no encoder writes on purpose: palette indices past the
/// palette, no palette at all, image data that ends early, a hundred thousand frames.
enum GIFBytes {
    /// An RGB colour.
    typealias Color = (r: UInt8, g: UInt8, b: UInt8)

    static func u16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }

    /// A palette's size field (2^(n+1) entries) and its bytes, padded with black to that size.
    static func palette(_ colors: [Color]) -> (field: UInt8, bytes: [UInt8]) {
        var bits = 0
        while 2 << bits < colors.count { bits += 1 }
        let padded = colors + Array(repeating: (0, 0, 0), count: (2 << bits) - colors.count)
        return (UInt8(bits), padded.flatMap { [$0.r, $0.g, $0.b] })
    }

    /// `GIF89a` and the logical screen descriptor, with a global palette when given.
    static func header(width: Int, height: Int, palette colors: [Color]?) -> [UInt8] {
        var out = Array("GIF89a".utf8) + u16(width) + u16(height)
        if let colors {
            let (field, bytes) = palette(colors)
            out += [0x80 | 0x70 | field, 0, 0] + bytes
        } else {
            out += [0x70, 0, 0]
        }
        return out
    }

    /// A graphic control extension.
    static func graphicControl(transparentIndex: Int?, delay: Int = 10) -> [UInt8] {
        [0x21, 0xF9, 4, transparentIndex == nil ? 0 : 1] + u16(delay) + [UInt8(transparentIndex ?? 0), 0]
    }

    /// An image descriptor and its LZW data, with a local palette when given; `ending` makes the
    /// data end after that many pixels (with an end-of-information code), however many the
    /// rectangle holds.
    static func image(
        left: Int, top: Int, width: Int, height: Int, palette colors: [Color]? = nil,
        interlaced: Bool = false, indices: [UInt8], minimumCodeSize: Int = 8, ending: Int? = nil
    ) -> [UInt8] {
        var out: [UInt8] = [0x2C] + u16(left) + u16(top) + u16(width) + u16(height)
        var flags: UInt8 = interlaced ? 0x40 : 0
        var table: [UInt8] = []
        if let colors {
            let (field, bytes) = palette(colors)
            flags |= 0x80 | field
            table = bytes
        }
        out += [flags] + table
        return out + lzw(Array(indices.prefix(ending ?? indices.count)), minimumCodeSize: minimumCodeSize)
    }

    /// The trailer.
    static let trailer: [UInt8] = [0x3B]

    /// LZW data in sub-blocks: the minimum code size, every index as a literal code (a clear code
    /// before the table would widen the codes), the end code, the block terminator.
    static func lzw(_ indices: [UInt8], minimumCodeSize: Int) -> [UInt8] {
        let clear = 1 << minimumCodeSize, end = clear + 1, width = minimumCodeSize + 1
        let run = clear - 2  // literals between clear codes: the table never reaches the next width
        var codes = [clear]
        for (i, index) in indices.enumerated() {
            if i > 0 && i % run == 0 { codes.append(clear) }
            codes.append(Int(index))
        }
        codes.append(end)
        var packed: [UInt8] = []
        var bits = 0, count = 0
        for code in codes {
            bits |= code << count
            count += width
            while count >= 8 {
                packed.append(UInt8(bits & 0xFF))
                bits >>= 8
                count -= 8
            }
        }
        if count > 0 { packed.append(UInt8(bits & 0xFF)) }
        var out: [UInt8] = [UInt8(minimumCodeSize)]
        for start in stride(from: 0, to: packed.count, by: 255) {
            let block = packed[start..<min(packed.count, start + 255)]
            out += [UInt8(block.count)] + block
        }
        return out + [0]
    }

    /// The offsets of the image descriptors of `gif`, found by walking its blocks (a `0x2C` byte
    /// may also be a palette entry or data).
    static func descriptors(_ gif: [UInt8]) -> [Int] {
        var index = 13 + (gif[10] & 0x80 != 0 ? 3 << (Int(gif[10] & 7) + 1) : 0)
        var found: [Int] = []
        func skipSubBlocks() {
            while index < gif.count, gif[index] != 0 { index += 1 + Int(gif[index]) }
            index += 1
        }
        while index < gif.count {
            switch gif[index] {
            case 0x21:
                index += 2
                skipSubBlocks()
            case 0x2C:
                found.append(index)
                let flags = gif[index + 9]
                index += 10 + (flags & 0x80 != 0 ? 3 << (Int(flags & 7) + 1) : 0) + 1
                skipSubBlocks()
            default:
                return found
            }
        }
        return found
    }

    /// The offset of the first sub-block of the image data of the frame whose descriptor is at `descriptor`.
    static func imageData(_ gif: [UInt8], descriptor: Int) -> Int {
        let flags = gif[descriptor + 9]
        return descriptor + 10 + (flags & 0x80 != 0 ? 3 << (Int(flags & 7) + 1) : 0) + 1
    }

    /// A 1 × 1 GIF of `count` white frames of 10 ms each: a file of many tiny frames.
    static func tinyFrames(_ count: Int) -> [UInt8] {
        var gif = header(width: 1, height: 1, palette: [(0, 0, 0), (255, 255, 255)])
        let frame =
            graphicControl(transparentIndex: nil, delay: 1) + image(left: 0, top: 0, width: 1, height: 1, indices: [1], minimumCodeSize: 2)
        gif.reserveCapacity(gif.count + frame.count * count + 1)
        for _ in 0..<count { gif += frame }
        return gif + trailer
    }
}
