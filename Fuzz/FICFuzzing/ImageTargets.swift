import FICCore
import Foundation
import ImageCodec
import SystemPackage

/// The image parsers: every format's header and decode (with and without a target size), the
/// animation decoders, the row decoders fed in chunks, and TIFF read where it lies.
enum ImageTargets {
    static let all: [FuzzTarget] = [info, decode, animation, stream, tiff]

    /// `ImageDecoder.info`: the header of any format, "without decoding pixels".
    static let info = FuzzTarget(name: "info", summary: "ImageDecoder.info: every format's header") { bytes in
        FuzzBounds.checking { _ = try? ImageDecoder.info(bytes) }
    }

    /// `ImageDecoder.decode`: the first input byte chooses full size or one of several target
    /// sizes (the reduced decodes: DCT scaling, embedded thumbnails, pyramid levels, shrinkers).
    static let decode = FuzzTarget(name: "decode", summary: "ImageDecoder.decode: every format, at full size or a target size") { bytes in
        guard let (choice, file) = split(bytes) else { return }
        FuzzBounds.checking { _ = try? ImageDecoder.decode(file, options: FuzzBounds.options(target: target(choice))) }
    }

    /// `AnimatedImageDecoder`: every frame of a GIF, animated WebP, APNG or AVIF sequence (any
    /// other image: its one frame), composited, at full size or a target size.
    static let animation = FuzzTarget(name: "animation", summary: "AnimatedImageDecoder: every frame of GIF, WebP, APNG, AVIF sequences") {
        bytes in
        guard let (choice, file) = split(bytes) else { return }
        FuzzBounds.checking {
            guard let decoder = try? AnimatedImageDecoder(file, options: FuzzBounds.options(target: target(choice))) else { return }
            while (try? decoder.nextFrame()).flatMap({ $0 }) != nil {}
        }
    }

    /// Each format's row decoder fed the file in chunks as a download arrives (the tile
    /// pyramids' path), the chunk size chosen by the first input byte.
    static let stream = FuzzTarget(name: "stream", summary: "row decoders fed in chunks, as a download arrives") { bytes in
        guard let (choice, file) = split(bytes) else { return }
        FuzzBounds.checking {
            let sink = DiscardingSink()
            let options = RowDecodingOptions(maximumPixelCount: FuzzBounds.maximumPixelCount, allowCorruptData: choice & 0x80 != 0) {
                try FileDescriptor.memoryFile(named: "fic-fuzz-scratch")
            }
            guard let (decoder, _) = try? ImageFormats.sniff(file, final: true),
                let rows = try? decoder.makeRowDecoder(sink: sink, options: options)
            else { return }
            let chunk = [1, 7, 64, 1000, 4096, 65536][Int(choice & 0x07) % 6]
            var offset = 0
            do {
                while offset < file.count {
                    let count = min(chunk, file.count - offset)
                    try rows.append(UnsafeRawBufferPointer(rebasing: file[offset..<offset + count]))
                    offset += count
                }
                try rows.finish()
            } catch {}
        }
    }

    /// A TIFF decoded where it lies (`decodeRows(ofFile:)`: its directories and strips or tiles
    /// read with `pread`, in any order, as tile pyramids read TIFF files), and decoded at a
    /// target size, which picks a level of a pyramidal TIFF.
    static let tiff = FuzzTarget(name: "tiff", summary: "TIFF IFDs, strips, tiles and pyramid levels, read where they lie") { bytes in
        guard let (choice, file) = split(bytes) else { return }
        FuzzBounds.checking {
            _ = try? ImageDecoder.decode(file, options: FuzzBounds.options(target: target(choice)))
            guard let scratch = try? FileDescriptor.memoryFile(named: "fic-fuzz-tiff") else { return }
            defer { scratch.closeQuietly() }
            guard (try? scratch.writeAll(file, at: 0, path: nil)) != nil else { return }
            let options = RowDecodingOptions(maximumPixelCount: FuzzBounds.maximumPixelCount, allowCorruptData: true) {
                try FileDescriptor.memoryFile(named: "fic-fuzz-scratch")
            }
            _ = try? TIFFFormat.decodeRows(ofFile: scratch, from: 0, size: file.count, sink: DiscardingSink(), options: options)
        }
    }

    /// The first byte (the choice of size or chunking) and the rest (the file).
    static func split(_ bytes: UnsafeRawBufferPointer) -> (UInt8, UnsafeRawBufferPointer)? {
        guard let first = bytes.first else { return nil }
        return (first, UnsafeRawBufferPointer(rebasing: bytes[1...]))
    }

    /// Full size for even choices, else one of a few target sizes, small to large.
    static func target(_ choice: UInt8) -> PixelSize? {
        guard choice & 1 == 1 else { return nil }
        let sides = [1, 16, 75, 150, 300, 1024]
        let side = sides[Int(choice >> 1) % sides.count]
        return PixelSize(width: side, height: side)
    }
}

/// A row sink that keeps nothing: the decoders' work is what is fuzzed.
final class DiscardingSink: RowSink, @unchecked Sendable {
    private var width = 0

    func begin(_ header: SourceHeader) throws {
        width = header.width
    }

    func acquireBatch() throws -> RowBatch {
        try RowBatch(capacity: 8, bytesPerRow: max(width, 1) * 4)
    }

    func submit(_ batch: RowBatch) throws {}
}
