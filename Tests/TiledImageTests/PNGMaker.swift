import ImageCodec

/// PNGs written by hand at test time (stored zlib blocks, every chunk with its CRC), as the
/// ImageCodec tests make them: grey with tRNS at any bit depth, `eXIf` chunks, interlaced headers.
enum PNGMaker {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return b << 16 | a
    }

    static func bigEndian32(_ value: Int) -> [UInt8] {
        [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// One chunk: length, type, data, CRC.
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return bigEndian32(data.count) + body + bigEndian32(Int(crc32(body)))
    }

    /// The chunks of a PNG file (type and data), in order.
    static func chunks(_ bytes: [UInt8]) -> [(type: String, data: [UInt8])] {
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
    static func inserting(_ insert: [UInt8], into bytes: [UInt8], before: String) -> [UInt8] {
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

    /// A big-endian TIFF block holding only an orientation tag.
    static func exif(orientation: Int) -> [UInt8] {
        [0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 0x08, 0x00, 0x01, 0x01, 0x12, 0x00, 0x03, 0, 0, 0, 0x01, 0x00, UInt8(orientation), 0, 0, 0, 0, 0, 0]
    }

    /// Packs `samples` (each below 2^bits) into rows of `bits` per sample.
    static func pack(_ samples: [Int], width: Int, bits: Int) -> [[UInt8]] {
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

    /// A non-interlaced PNG of `rows` (filter type 0 each) in stored zlib blocks, with `extra`
    /// chunks between IHDR and IDAT, the image data split into IDAT chunks of `idatBytes`.
    static func png(width: Int, height: Int, bitDepth: UInt8, colorType: UInt8, rows: [[UInt8]], extra: [[UInt8]] = [], idatBytes: Int = 8192) -> [UInt8] {
        let raw: [UInt8] = rows.flatMap { (row: [UInt8]) -> [UInt8] in [0] + row }
        var zlib: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let n = min(65535, raw.count - offset)
            let final: UInt8 = offset + n == raw.count ? 1 : 0
            zlib += [final, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            zlib += raw[offset..<offset + n]
            offset += n
        } while offset < raw.count
        zlib += bigEndian32(Int(adler32(raw)))
        let header = bigEndian32(width) + bigEndian32(height) + [bitDepth, colorType, 0, 0, 0]
        let data = stride(from: 0, to: zlib.count, by: idatBytes).flatMap { chunk("IDAT", Array(zlib[$0..<min(zlib.count, $0 + idatBytes)])) }
        return signature + chunk("IHDR", header) + extra.flatMap { $0 } + data + chunk("IEND", [])
    }

    /// The grey levels of the bundled camera photograph, mirrored out to `width × height` (so the
    /// pyramid has several levels and odd sizes).
    static func greyLevels(width: Int, height: Int) throws -> [UInt8] {
        let photo = try ImageDecoder.decode(try Fixtures.bytes("png/camera-gray8.png"))
        var levels = [UInt8](repeating: 0, count: width * height)
        photo.withUnsafeBytes { raw in
            for y in 0..<height {
                var sy = y % photo.height
                if (y / photo.height) % 2 == 1 { sy = photo.height - 1 - sy }
                for x in 0..<width {
                    var sx = x % photo.width
                    if (x / photo.width) % 2 == 1 { sx = photo.width - 1 - sx }
                    levels[y * width + x] = raw[sy * photo.bytesPerRow + sx * 4]
                }
            }
        }
        return levels
    }
}
