/// Classic little-endian TIFFs written byte by byte, for what no tool writes: the directory before
/// the data (so that a file cut short still has it), and hostile directories (absurd sizes, strip
/// byte counts past the end).
public enum TIFFFiles {
    /// An uncompressed image in strips of `rowsPerStrip` rows; `samples` holds its rows, packed.
    /// `overrides` replaces (or adds) tags' values after the real ones are computed: a `[UInt32]`
    /// per tag, written as LONGs (SHORTs for tags libtiff wants SHORT); `removing` drops tags.
    public static func uncompressed(
        width: Int, height: Int, samplesPerPixel: Int, bitsPerSample: Int = 8, photometric: Int,
        rowsPerStrip: Int, samples: [UInt8], directoryFirst: Bool = false, extraSamples: [Int] = [],
        overrides: [UInt16: [UInt32]] = [:], removing: Set<UInt16> = []
    ) -> [UInt8] {
        let rowBytes = (width * samplesPerPixel * bitsPerSample + 7) / 8
        let strips = (height + rowsPerStrip - 1) / rowsPerStrip
        var counts: [UInt32] = []
        for strip in 0..<strips { counts.append(UInt32(min(rowsPerStrip, height - strip * rowsPerStrip) * rowBytes)) }
        let shorts: Set<UInt16> = [258, 259, 262, 277, 284, 338]
        var tags: [UInt16: [UInt32]] = [
            256: [UInt32(width)], 257: [UInt32(height)],
            258: Array(repeating: UInt32(bitsPerSample), count: samplesPerPixel), 259: [1], 262: [UInt32(photometric)],
            273: Array(repeating: 0, count: strips), 277: [UInt32(samplesPerPixel)], 278: [UInt32(rowsPerStrip)], 279: counts
        ]
        if !extraSamples.isEmpty { tags[338] = extraSamples.map(UInt32.init) }
        for (tag, values) in overrides { tags[tag] = values }
        for tag in removing { tags[tag] = nil }
        let order = tags.keys.sorted()
        func size(_ tag: UInt16) -> Int { (shorts.contains(tag) ? 2 : 4) * tags[tag]!.count }
        let directoryBytes = 2 + 12 * order.count + 4
        let outOfLine = order.map { size($0) > 4 ? size($0) : 0 }.reduce(0, +)
        let dataStart = directoryFirst ? 8 + directoryBytes + outOfLine : 8
        let directoryStart = directoryFirst ? 8 : 8 + samples.count
        if overrides[273] == nil && tags[273] != nil {
            var offset = dataStart
            tags[273] = counts.map { count in
                defer { offset += Int(count) }; return UInt32(offset)
            }
        }
        var out: [UInt8] = [0x49, 0x49, 0x2A, 0x00]
        func u16(_ v: Int) { out += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func u32(_ v: UInt32) { out += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)] }
        u32(UInt32(directoryStart))
        if !directoryFirst { out += samples }
        var values: [UInt8] = []
        var valuesAt = directoryStart + directoryBytes
        u16(order.count)
        for tag in order {
            let list = tags[tag]!, short = shorts.contains(tag)
            u16(Int(tag))
            u16(short ? 3 : 4)
            u32(UInt32(list.count))
            var encoded: [UInt8] = []
            for v in list {
                encoded +=
                    short
                    ? [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)]
                    : [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)]
            }
            if encoded.count <= 4 {
                out += encoded + Array(repeating: 0, count: 4 - encoded.count)
            } else {
                u32(UInt32(valuesAt))
                values += encoded
                valuesAt += encoded.count
            }
        }
        u32(0)
        out += values
        if directoryFirst { out += samples }
        return out
    }
}
