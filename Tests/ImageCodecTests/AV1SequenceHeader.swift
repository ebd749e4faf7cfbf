import Testing

/// Rewrites the colour description of the AV1 sequence header in an AVIF's coded data (AV1
/// specification 5.5), to make files whose stream says what an encoder refuses to write.
///
/// Only the reduced still-picture header avifenc writes for a single image is handled:
/// `seq_profile` (3 bits), `still_picture`, `reduced_still_picture_header`, `seq_level_idx` (5),
/// the frame-size bit counts (4 + 4) and sizes, three tool flags, `enable_superres`,
/// `enable_cdef`, `enable_restoration`, then `color_config`.
enum AV1SequenceHeader {
    /// Sets `color_primaries` in the first sequence-header OBU after the `mdat` box.
    static func setColourPrimaries(_ value: UInt8, in bytes: inout [UInt8]) throws {
        let mdat = try #require(find(Array("mdat".utf8), in: bytes), "no mdat box")
        // A sequence-header OBU with a size field: type 1 → 0x0A, then its size (one LEB128 byte here).
        let obu = try #require(bytes[mdat...].firstIndex(of: 0x0A), "no sequence header OBU")
        let start = obu + 2
        var reader = BitReader(bytes: bytes, bit: start * 8)
        let profile = reader.read(3)
        _ = reader.read(1)  // still_picture
        try #require(reader.read(1) == 1, "not a reduced still-picture header")
        _ = reader.read(5)  // seq_level_idx
        let widthBits = reader.read(4) + 1, heightBits = reader.read(4) + 1
        _ = reader.read(widthBits)
        _ = reader.read(heightBits)
        _ = reader.read(3 + 3)  // use_128x128_superblock, filter intra, intra edge; superres, cdef, restoration
        let highBitDepth = reader.read(1)
        if profile == 2 && highBitDepth == 1 { _ = reader.read(1) }  // twelve_bit
        if profile != 1 { try #require(reader.read(1) == 0, "a monochrome stream") }
        try #require(reader.read(1) == 1, "the encoder wrote no colour description")
        for bit in 0..<8 {
            let at = reader.bit + bit
            let mask = UInt8(0x80) >> UInt8(at % 8)
            if value & (0x80 >> UInt8(bit)) != 0 { bytes[at / 8] |= mask } else { bytes[at / 8] &= ~mask }
        }
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        return (0...(bytes.count - needle.count)).first { Array(bytes[$0..<($0 + needle.count)]) == needle }
    }

    /// Reads big-endian bit fields.
    private struct BitReader {
        let bytes: [UInt8]
        var bit: Int

        mutating func read(_ count: Int) -> Int {
            var value = 0
            for _ in 0..<count {
                value = value << 1 | Int(bytes[bit / 8] >> UInt8(7 - bit % 8) & 1)
                bit += 1
            }
            return value
        }
    }
}
