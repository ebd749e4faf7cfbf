import FICTestSupport
import FICHarness
import Foundation
import ImageCodec
import Testing

/// Makes awkward inputs at test time from the bundled files: JPEG segments edited, PNG chunks and
/// RIFF containers written by hand, large photos encoded with `cjpeg`.
enum TestImageBuilder {
    // MARK: JPEG

    /// The offset of each marker segment of the JPEG header (SOI excluded) up to and including SOS.
    static func jpegSegments(_ bytes: [UInt8]) -> [JPEGFiles.Segment] {
        let all = JPEGFiles.segments(bytes)
        guard let scan = all.firstIndex(where: { $0.marker == 0xDA }) else { return all }
        return Array(all[...scan])
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

    // PNG files are made with FICTestSupport's PNGFiles.

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
    static func animatedWebP(
        canvas: (width: Int, height: Int), alpha: Bool, frames: [(file: [UInt8], x: Int, y: Int, width: Int, height: Int)]
    ) -> [UInt8] {
        let flags: UInt8 = 0x02 | (alpha ? 0x10 : 0)  // animation, alpha
        var body = riffChunk("VP8X", [flags, 0, 0, 0] + littleEndian24(canvas.width - 1) + littleEndian24(canvas.height - 1))
        body += riffChunk("ANIM", [0, 0, 0, 0, 0, 0])  // background, loop count
        for frame in frames {
            // The frame's bitstream chunks (ALPH, VP8 or VP8L), without the still file's VP8X.
            let data = riffChunks(frame.file).filter { ["ALPH", "VP8 ", "VP8L"].contains($0.fourCC) }.flatMap {
                riffChunk($0.fourCC, $0.payload)
            }
            let header =
                littleEndian24(frame.x / 2) + littleEndian24(frame.y / 2) + littleEndian24(frame.width - 1)
                + littleEndian24(frame.height - 1) + littleEndian24(100) + [0]
            body += riffChunk("ANMF", header + data)
        }
        return Array("RIFF".utf8) + littleEndian32(body.count + 4) + Array("WEBP".utf8) + body
    }

    // MARK: Large photos

    /// A `width × height` JPEG made by mirroring and tiling `photo`, encoded with
    /// `cjpeg -quality 90` (and `-progressive`, then `extra` arguments); nil when cjpeg is not
    /// installed.
    static func largeJPEG(
        from photo: String, width: Int, height: Int, progressive: Bool, extra: [String] = [], in folder: String
    ) throws -> String? {
        guard let cjpeg = ["/usr/bin/cjpeg", "/usr/local/bin/cjpeg"].first(where: { FileManager.default.isExecutableFile(atPath: $0) })
        else {
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
        let name =
            "\((photo as NSString).lastPathComponent)-\(width)x\(height)\(progressive ? "-progressive" : "")\(extra.isEmpty ? "" : "-\(UUID().uuidString)")"
        let ppmPath = folder + "/" + name + ".ppm", jpegPath = folder + "/" + name + ".jpg"
        try ppm.write(to: URL(fileURLWithPath: ppmPath))
        defer { try? FileManager.default.removeItem(atPath: ppmPath) }
        let arguments = ["-quality", "90"] + (progressive ? ["-progressive"] : []) + extra + ["-outfile", jpegPath, ppmPath]
        let run = try ChildProcess.run(cjpeg, arguments, timeout: .seconds(600))
        try #require(run.ending == .exited(0), "cjpeg \(run.ending): \(run.standardError)")
        return jpegPath
    }

    /// A fresh temporary folder; removed by the caller.
    static func temporaryFolder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fic-codec-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
