/// PNG files written by hand at test time (stored zlib blocks, every chunk with its CRC, rows
/// filtered as asked), shared by the decoder's and the tile pyramids' tests, so that they can make
/// the awkward files no encoder writes: grey with `tRNS` at any bit depth, `eXIf` before or after
/// the image data, image data split anywhere.
public enum PNGFiles {
    /// The eight bytes every PNG starts with.
    public static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The CRC-32 of PNG chunks, written out rather than taken from zlib.
    public static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// zlib's Adler-32 checksum.
    public static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return b << 16 | a
    }

    /// `value` as four big-endian bytes.
    public static func bigEndian32(_ value: Int) -> [UInt8] {
        [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// One chunk: length, type, data, CRC.
    public static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return bigEndian32(data.count) + body + bigEndian32(Int(crc32(body)))
    }

    /// The chunks of a PNG file (type and data), in order.
    public static func chunks(_ bytes: [UInt8]) -> [(type: String, data: [UInt8])] {
        var result: [(String, [UInt8])] = []
        var offset = 8
        while offset + 12 <= bytes.count {
            let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            result.append((type, Array(bytes[offset + 8..<offset + 8 + length])))
            offset += 12 + length
        }
        return result
    }

    /// `bytes` rebuilt from its chunks with `insert` placed before the first chunk named `before`.
    public static func inserting(_ insert: [UInt8], into bytes: [UInt8], before: String) -> [UInt8] {
        var out = signature
        var inserted = false
        for chunk in chunks(bytes) {
            if chunk.type == before && !inserted {
                out += insert
                inserted = true
            }
            out += Self.chunk(chunk.type, chunk.data)
        }
        return out
    }

    /// A big-endian TIFF block (the payload of an `eXIf` chunk or, after `Exif\0\0`, of a JPEG's
    /// APP1 segment) holding only an orientation tag.
    public static func exif(orientation: Int) -> [UInt8] {
        [
            0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 0x08, 0x00, 0x01, 0x01, 0x12, 0x00, 0x03, 0, 0, 0, 0x01, 0x00, UInt8(orientation), 0, 0, 0, 0,
            0, 0
        ]
    }

    /// Packs `samples` (each below 2^bits) into rows of `bits` per sample.
    public static func pack(_ samples: [Int], width: Int, bits: Int) -> [[UInt8]] {
        stride(from: 0, to: samples.count, by: width).map { start in
            let row = samples[start..<start + width]
            if bits == 16 { return row.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } }
            var bytes = [UInt8](repeating: 0, count: (width * bits + 7) / 8)
            for (x, value) in row.enumerated() {
                let bit = x * bits
                bytes[bit / 8] |= UInt8(value << (8 - bits - bit % 8))
            }
            return bytes
        }
    }

    /// Row `row` filtered with PNG filter `type` (0 none, 1 sub, 2 up, 3 average, 4 Paeth) against
    /// `previous`, with `bpp` bytes per pixel (at least 1).
    public static func filtered(_ row: [UInt8], previous: [UInt8], type: UInt8, bpp: Int) -> [UInt8] {
        var out = [type]
        for i in 0..<row.count {
            let a = i >= bpp ? Int(row[i - bpp]) : 0, b = Int(previous[i]), c = i >= bpp ? Int(previous[i - bpp]) : 0
            let predictor: Int
            switch type {
            case 1: predictor = a
            case 2: predictor = b
            case 3: predictor = (a + b) / 2
            case 4:
                let p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                predictor = pa <= pb && pa <= pc ? a : (pb <= pc ? b : c)
            default: predictor = 0
            }
            out.append(UInt8(truncatingIfNeeded: Int(row[i]) - predictor))
        }
        return out
    }

    /// A zlib stream of `raw` in stored (uncompressed) blocks.
    public static func zlibStored(_ raw: [UInt8]) -> [UInt8] {
        var zlib: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let n = min(65535, raw.count - offset)
            let final: UInt8 = offset + n == raw.count ? 1 : 0
            zlib += [final, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            zlib += raw[offset..<offset + n]
            offset += n
        } while offset < raw.count
        return zlib + bigEndian32(Int(adler32(raw)))
    }

    /// A non-interlaced PNG of stored (uncompressed) zlib data: `rows` of raw samples, filtered
    /// with `filter` (0–4; 5 cycles through all five), `extra` chunks between IHDR and the image
    /// data, which is split into IDAT chunks of at most `idatBytes` bytes.
    public static func png(
        width: Int, height: Int, bitDepth: UInt8, colorType: UInt8, rows: [[UInt8]], extra: [[UInt8]] = [],
        filter: UInt8 = 0, idatBytes: Int = 1 << 30
    ) -> [UInt8] {
        let channels = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][Int(colorType)] ?? 1
        let bpp = max(1, channels * Int(bitDepth) / 8)
        var raw: [UInt8] = []
        var previous = [UInt8](repeating: 0, count: rows.first?.count ?? 0)
        for (index, row) in rows.enumerated() {
            raw += filtered(row, previous: previous, type: filter == 5 ? UInt8(index % 5) : filter, bpp: bpp)
            previous = row
        }
        let zlib = zlibStored(raw)
        let header = bigEndian32(width) + bigEndian32(height) + [bitDepth, colorType, 0, 0, 0]
        let data = stride(from: 0, to: zlib.count, by: idatBytes).flatMap {
            chunk("IDAT", Array(zlib[$0..<min(zlib.count, $0 + idatBytes)]))
        }
        return signature + chunk("IHDR", header) + extra.flatMap { $0 } + data + chunk("IEND", [])
    }
}
