import Foundation
import ImageCodec
import Testing

/// Makes awkward inputs at test time from the bundled files: JPEG segments edited, PNG chunks and
/// RIFF containers written by hand, large photos encoded with `cjpeg`.
enum TestImageBuilder {
    // MARK: JPEG

    /// The offset of each marker segment of the JPEG header (SOI excluded) up to and including SOS.
    static func jpegSegments(_ bytes: [UInt8]) -> [(marker: UInt8, offset: Int, length: Int)] {
        var segments: [(UInt8, Int, Int)] = []
        var offset = 2
        while offset + 4 <= bytes.count, bytes[offset] == 0xFF {
            let marker = bytes[offset + 1]
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            segments.append((marker, offset, length + 2))
            if marker == 0xDA { break }
            offset += length + 2
        }
        return segments
    }

    /// `bytes` with `insert` placed at `offset`.
    static func inserting(_ insert: [UInt8], into bytes: [UInt8], at offset: Int) -> [UInt8] {
        Array(bytes[..<offset]) + insert + Array(bytes[offset...])
    }

    /// The offset of the first segment with `marker` (e.g. 0xDB for DQT).
    static func offset(of marker: UInt8, in bytes: [UInt8]) throws -> Int {
        try #require(jpegSegments(bytes).first { $0.marker == marker }?.offset, "no marker 0x\(String(marker, radix: 16))")
    }

    /// An APPn segment: `FF En`, a length covering `payload`, then `payload`.
    static func appSegment(_ n: UInt8, _ payload: [UInt8], declaredLength: Int? = nil) -> [UInt8] {
        let length = declaredLength ?? payload.count + 2
        return [0xFF, 0xE0 + n, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    // MARK: PNG

    /// The CRC-32 of PNG chunks (and zlib's adler-32 below), written out: tests make PNGs by hand.
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

    /// One PNG chunk with its length and CRC.
    static func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return bigEndian32(data.count) + body + bigEndian32(Int(crc32(body)))
    }

    /// The chunks of a PNG file (type and data), in order.
    static func pngChunks(_ bytes: [UInt8]) -> [(type: String, data: [UInt8])] {
        var chunks: [(String, [UInt8])] = []
        var offset = 8
        while offset + 12 <= bytes.count {
            let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            chunks.append((type, Array(bytes[offset + 8..<offset + 8 + length])))
            offset += 12 + length
        }
        return chunks
    }

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Row `row` filtered with PNG filter `type` (0 none, 1 sub, 2 up, 3 average, 4 Paeth) against
    /// `previous`, with `bpp` bytes per pixel (at least 1).
    static func filtered(_ row: [UInt8], previous: [UInt8], type: UInt8, bpp: Int) -> [UInt8] {
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

    /// A PNG of stored (uncompressed) zlib data: `rows` of raw samples, filtered with `filter`
    /// (0–4; 5 cycles through all five), in IDAT chunks of at most `chunk` bytes.
    static func png(width: Int, height: Int, bitDepth: UInt8, colorType: UInt8, rows: [[UInt8]], extra: [[UInt8]] = [], filter: UInt8 = 0, chunk: Int = 1 << 30) -> [UInt8] {
        let channels = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][Int(colorType)] ?? 1
        let bpp = max(1, channels * Int(bitDepth) / 8)
        var raw: [UInt8] = []
        var previous = [UInt8](repeating: 0, count: rows.first?.count ?? 0)
        for (index, row) in rows.enumerated() {
            raw += filtered(row, previous: previous, type: filter == 5 ? UInt8(index % 5) : filter, bpp: bpp)
            previous = row
        }
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
        let ihdr = bigEndian32(width) + bigEndian32(height) + [bitDepth, colorType, 0, 0, 0]
        let idat = stride(from: 0, to: zlib.count, by: chunk).flatMap { pngChunk("IDAT", Array(zlib[$0..<min(zlib.count, $0 + chunk)])) }
        return pngSignature + pngChunk("IHDR", ihdr) + extra.flatMap { $0 } + idat + pngChunk("IEND", [])
    }

    /// `bytes` rebuilt from its chunks with `insert` placed before the first chunk named `before`.
    static func pngInserting(_ insert: [UInt8], into bytes: [UInt8], before: String) -> [UInt8] {
        var out = pngSignature
        var inserted = false
        for chunk in pngChunks(bytes) {
            if chunk.type == before && !inserted {
                out += insert
                inserted = true
            }
            out += pngChunk(chunk.type, chunk.data)
        }
        return out
    }

    /// A big-endian TIFF block holding only an orientation tag.
    static func exif(orientation: Int) -> [UInt8] {
        [0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 0x08, 0x00, 0x01, 0x01, 0x12, 0x00, 0x03, 0, 0, 0, 0x01, 0x00, UInt8(orientation), 0, 0, 0, 0, 0, 0]
    }

    // MARK: WebP

    static func littleEndian32(_ value: Int) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24 & 0xFF)]
    }

    static func littleEndian24(_ value: Int) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)]
    }

    /// A RIFF chunk, padded to an even length.
    static func riffChunk(_ fourCC: String, _ payload: [UInt8]) -> [UInt8] {
        Array(fourCC.utf8) + littleEndian32(payload.count) + payload + (payload.count % 2 == 1 ? [0] : [])
    }

    /// The chunks of a simple WebP file (after `RIFF size WEBP`).
    static func riffChunks(_ bytes: [UInt8]) -> [(fourCC: String, payload: [UInt8])] {
        var chunks: [(String, [UInt8])] = []
        var offset = 12
        while offset + 8 <= bytes.count {
            let size = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16 | Int(bytes[offset + 7]) << 24
            chunks.append((String(decoding: bytes[offset..<offset + 4], as: UTF8.self), Array(bytes[offset + 8..<offset + 8 + size])))
            offset += 8 + size + (size & 1)
        }
        return chunks
    }

    /// An animated WebP: a `canvas` and frames, each a still WebP file placed at an (even) offset.
    static func animatedWebP(canvas: (width: Int, height: Int), alpha: Bool, frames: [(file: [UInt8], x: Int, y: Int, width: Int, height: Int)]) -> [UInt8] {
        let flags: UInt8 = 0x02 | (alpha ? 0x10 : 0)  // animation, alpha
        var body = riffChunk("VP8X", [flags, 0, 0, 0] + littleEndian24(canvas.width - 1) + littleEndian24(canvas.height - 1))
        body += riffChunk("ANIM", [0, 0, 0, 0, 0, 0])  // background, loop count
        for frame in frames {
            // The frame's bitstream chunks (ALPH, VP8 or VP8L), without the still file's VP8X.
            let data = riffChunks(frame.file).filter { ["ALPH", "VP8 ", "VP8L"].contains($0.fourCC) }.flatMap { riffChunk($0.fourCC, $0.payload) }
            let header = littleEndian24(frame.x / 2) + littleEndian24(frame.y / 2) + littleEndian24(frame.width - 1)
                + littleEndian24(frame.height - 1) + littleEndian24(100) + [0]
            body += riffChunk("ANMF", header + data)
        }
        return Array("RIFF".utf8) + littleEndian32(body.count + 4) + Array("WEBP".utf8) + body
    }

    // MARK: Large photos

    /// A `width × height` JPEG made by mirroring and tiling `photo`, encoded with
    /// `cjpeg -quality 90` (and `-progressive`); nil when cjpeg is not installed.
    static func largeJPEG(from photo: String, width: Int, height: Int, progressive: Bool, in folder: String) throws -> String? {
        guard let cjpeg = ["/usr/bin/cjpeg", "/usr/local/bin/cjpeg"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            return nil
        }
        let tile = try ImageDecoder.decode(contentsOf: TestData.path(photo))
        var ppm = Data("P6\n\(width) \(height)\n255\n".utf8)
        var row = [UInt8](repeating: 0, count: width * 3)
        for y in 0..<height {
            let ty = (y / tile.height) % 2 == 0 ? y % tile.height : tile.height - 1 - y % tile.height
            let source = (tile.baseAddress + ty * tile.bytesPerRow).assumingMemoryBound(to: UInt8.self)
            for x in 0..<width {
                let tx = (x / tile.width) % 2 == 0 ? x % tile.width : tile.width - 1 - x % tile.width
                row[x * 3] = source[tx * 4 + 2]
                row[x * 3 + 1] = source[tx * 4 + 1]
                row[x * 3 + 2] = source[tx * 4]
            }
            ppm.append(contentsOf: row)
        }
        let name = "\((photo as NSString).lastPathComponent)-\(width)x\(height)\(progressive ? "-progressive" : "")"
        let ppmPath = folder + "/" + name + ".ppm", jpegPath = folder + "/" + name + ".jpg"
        try ppm.write(to: URL(fileURLWithPath: ppmPath))
        defer { try? FileManager.default.removeItem(atPath: ppmPath) }
        // posix_spawn, not Foundation's Process, which leaks a weak reference under LeakSanitizer.
        let arguments = [cjpeg, "-quality", "90"] + (progressive ? ["-progressive"] : []) + ["-outfile", jpegPath, ppmPath]
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        try #require(posix_spawn(&pid, cjpeg, nil, nil, argv, environ) == 0, "cjpeg could not be started")
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        try #require(status == 0, "cjpeg failed (wait status \(status))")
        return jpegPath
    }

    /// A fresh temporary folder; removed by the caller.
    static func temporaryFolder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fic-codec-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
