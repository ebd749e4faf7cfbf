import FICHarness
import ImageCodec

/// Damages encoded images the ways real corruption and hostile files do.
enum FuzzMutator {
    /// `bytes` with one to four random mutations applied.
    static func mutate(_ bytes: [UInt8], format: ImageFileFormat, using rng: inout SplitMix64) -> [UInt8] {
        var data = bytes
        for _ in 0..<Int.random(in: 1...4, using: &rng) {
            guard !data.isEmpty else { break }
            switch Int.random(in: 0..<7, using: &rng) {
            case 0:  // bit flip
                let at = Int.random(in: 0..<data.count, using: &rng)
                data[at] ^= 1 << UInt8.random(in: 0..<8, using: &rng)
            case 1:  // byte set to an interesting or random value
                let at = Int.random(in: 0..<data.count, using: &rng)
                data[at] = [0x00, 0xFF, 0x7F, 0x80, UInt8.random(in: 0...255, using: &rng)].randomElement(using: &rng)!
            case 2:  // truncation
                data.removeLast(Int.random(in: 0..<data.count, using: &rng))
            case 3:  // chunk duplication
                let start = Int.random(in: 0..<data.count, using: &rng)
                let length = Int.random(in: 1...min(4096, data.count - start), using: &rng)
                let chunk = data[start..<(start + length)]
                data.insert(contentsOf: chunk, at: Int.random(in: 0...data.count, using: &rng))
            case 4:  // insertion of a 0xFF marker
                let marker: [UInt8] = [
                    0xFF, [0xD9, 0xDA, 0xC0, 0xC4, 0xDD, 0xD0, 0xFF, UInt8.random(in: 0...255, using: &rng)].randomElement(using: &rng)!
                ]
                data.insert(contentsOf: marker, at: Int.random(in: 0...data.count, using: &rng))
            case 5:  // big dimension edit
                editDimensions(&data, format: format, using: &rng)
            default:  // overwrite a short run
                let at = Int.random(in: 0..<data.count, using: &rng)
                for i in at..<min(data.count, at + Int.random(in: 1...16, using: &rng)) {
                    data[i] = UInt8.random(in: 0...255, using: &rng)
                }
            }
        }
        return data
    }

    private static func randomDimension(using rng: inout SplitMix64) -> UInt32 {
        [0, 1, 2, 0xFFFF, 0x7FFF_FFFF, 0xFFFF_FFFF, UInt32.random(in: 0...70_000, using: &rng)].randomElement(using: &rng)!
    }

    /// Rewrites the width/height fields of the format's header.
    private static func editDimensions(_ data: inout [UInt8], format: ImageFileFormat, using rng: inout SplitMix64) {
        switch format {
        case .jpeg:
            // Find an SOFn marker: FF C0...CF except C4 (DHT), C8 (JPG), CC (DAC).
            var index = 2
            while index + 9 < data.count {
                if data[index] == 0xFF, (0xC0...0xCF).contains(data[index + 1]), ![0xC4, 0xC8, 0xCC].contains(data[index + 1]) {
                    let height = UInt16(truncatingIfNeeded: randomDimension(using: &rng))
                    let width = UInt16(truncatingIfNeeded: randomDimension(using: &rng))
                    data[index + 5] = UInt8(height >> 8); data[index + 6] = UInt8(height & 0xFF)
                    data[index + 7] = UInt8(width >> 8); data[index + 8] = UInt8(width & 0xFF)
                    return
                }
                index += 1
            }
        case .png:
            guard data.count >= 33 else { return }
            for (offset, value) in [(16, randomDimension(using: &rng)), (20, randomDimension(using: &rng))] {
                for i in 0..<4 { data[offset + i] = UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32(i))) }
            }
            if Bool.random(using: &rng) {  // fix the IHDR CRC so the decoder gets past it
                let crc = CRC32.checksum(data[12..<29])
                for i in 0..<4 { data[29 + i] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * UInt32(i))) }
            }
        case .webp:
            // VP8 frame size (lossy), VP8L packed size (lossless) or VP8X canvas: all within bytes 20...29.
            guard data.count >= 30 else { return }
            for i in Int.random(in: 20...26, using: &rng)..<30 where Bool.random(using: &rng) {
                data[i] = UInt8.random(in: 0...255, using: &rng)
            }
        case .heif, .avif:
            // An `ispe` property (a grid and each of its tiles, a thumbnail, alpha have one each):
            // "ispe", version and flags, then the 32-bit width and height. Or an image sequence's
            // track header (`tkhd`), whose box ends with the 16.16 fixed-point width and height.
            let ispe = Array("ispe".utf8), tkhd = Array("tkhd".utf8)
            let found = data.indices.dropFirst(4).dropLast(15).filter {
                Array(data[$0..<($0 + 4)]) == ispe || Array(data[$0..<($0 + 4)]) == tkhd
            }
            guard let at = found.randomElement(using: &rng) else { return }
            var fields = [(at + 8, randomDimension(using: &rng)), (at + 12, randomDimension(using: &rng))]
            if data[at] == tkhd[0] {
                let size = data[(at - 4)..<at].reduce(0) { $0 << 8 | Int($1) }
                guard size >= 16, at - 4 + size <= data.count else { return }
                fields = [(at - 4 + size - 8, randomDimension(using: &rng) << 16), (at - 4 + size - 4, randomDimension(using: &rng) << 16)]
            }
            for (offset, value) in fields {
                for i in 0..<4 { data[offset + i] = UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32(i))) }
            }
        case .jxl:
            // The size header is bit-packed right after the codestream's FF 0A (at 0 in a bare
            // codestream, after the jxlc or first jxlp box header in a container).
            var start = 0
            if data.count > 12, data[0] == 0 {
                guard
                    let box = (0..<(data.count - 4)).first(where: {
                        Array(data[$0..<$0 + 4]) == Array("jxlc".utf8) || Array(data[$0..<$0 + 4]) == Array("jxlp".utf8)
                    })
                else { return }
                start = box + (data[box + 3] == 0x70 ? 8 : 4)  // after the type; a jxlp box has a 4-byte index first
            }
            guard data.count >= start + 8 else { return }
            for i in (start + 2)..<(start + 8) where Bool.random(using: &rng) {
                data[i] = UInt8.random(in: 0...255, using: &rng)
            }
        case .gif:
            // The logical screen (bytes 6...9), or the first image descriptor's rectangle.
            guard data.count >= 13 else { return }
            var at = 6
            if Bool.random(using: &rng), let descriptor = data.indices.dropFirst(13).first(where: { data[$0] == 0x2C }),
                descriptor + 9 <= data.count
            {
                at = descriptor + 1 + 2 * Int.random(in: 0...2, using: &rng)
            }
            let value = UInt16(truncatingIfNeeded: randomDimension(using: &rng))
            data[at] = UInt8(value & 0xFF)
            data[at + 1] = UInt8(value >> 8)
            data[at + 2] = UInt8.random(in: 0...255, using: &rng)
            data[at + 3] = UInt8.random(in: 0...255, using: &rng)
        case .tiff:
            editTIFFDirectory(&data, using: &rng)
        }
    }

    /// Rewrites the inline values of size and layout tags in a TIFF's first directory: width,
    /// height, bits and samples per pixel, rows per strip, tile width and length, strip and tile
    /// byte counts and offsets.
    private static func editTIFFDirectory(_ data: inout [UInt8], using rng: inout SplitMix64) {
        guard data.count >= 16 else { return }
        let little = data[0] == 0x49
        func read(_ at: Int, _ count: Int) -> Int {
            guard at >= 0, at + count <= data.count else { return -1 }
            let bytes = data[at..<(at + count)]
            return (little ? bytes.reversed() : Array(bytes)).reduce(0) { $0 << 8 | Int($1) }
        }
        func write(_ at: Int, _ count: Int, _ value: UInt64) {
            guard at >= 0, at + count <= data.count else { return }
            for i in 0..<count {
                let shift = UInt64(8 * (little ? i : count - 1 - i))
                data[at + i] = UInt8(truncatingIfNeeded: value >> shift)
            }
        }
        let big = read(2, 2) == 43
        let directory = big ? read(8, 8) : read(4, 4)
        let countBytes = big ? 8 : 2, entryBytes = big ? 20 : 12, valueBytes = big ? 8 : 4
        let entries = read(directory, countBytes)
        guard directory > 0, entries > 0, entries < 1000 else { return }
        let edited: Set<Int> = [256, 257, 258, 273, 277, 278, 279, 322, 323, 324, 325]
        for index in 0..<entries {
            let entry = directory + countBytes + index * entryBytes
            guard edited.contains(read(entry, 2)), Int.random(in: 0..<3, using: &rng) == 0 else { continue }
            let value = UInt64(randomDimension(using: &rng))
            let type = read(entry + 2, 2)
            // SHORT values sit in the first two bytes of the value field.
            write(entry + 4 + (big ? 8 : 4), type == 3 ? 2 : valueBytes, type == 3 ? value & 0xFFFF : value)
        }
    }
}

/// CRC-32 as used by PNG chunks.
enum CRC32 {
    static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = (c & 1) != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in bytes { c = table[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}
