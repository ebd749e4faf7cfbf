import FICCore
import FICTestSupport
import Foundation
@testable import ImageCodec
import SystemPackage
import Testing

/// The row decoders tile pyramids run — from a file where it lies, and spooled from chunks —
/// give the pixels of the one-shot decode (stored orientation).
@Suite struct TIFFRowDecoderTests {
    static let layouts: [(String, [[String]])] = [
        (
            "tiles",
            [
                [
                    TIFFMaker.vips, "tiffsave", "{photo}", "{dir}/t.tif", "--tile", "--tile-width", "64", "--tile-height", "64",
                    "--compression", "deflate", "--bigtiff"
                ]
            ]
        ),
        ("strips", [[TIFFMaker.vips, "tiffsave", "{photo}", "{dir}/t.tif", "--compression", "lzw"]]),
        (
            "separate planes in tiles",
            [
                [TIFFMaker.vips, "tiffsave", "{photo}", "{dir}/s.tif", "--compression", "none"],
                [TIFFMaker.tiffcp, "-p", "separate", "-t", "-w", "64", "-l", "64", "{dir}/s.tif", "{dir}/t.tif"]
            ]
        ),
        (
            "YCbCr JPEG tiles, orientation 6",
            [
                [TIFFMaker.vips, "tiffsave", "{photo}", "{dir}/s.tif", "--compression", "none"],
                [TIFFMaker.tiffcp, "-c", "jpeg:90", "-t", "-w", "64", "-l", "64", "{dir}/s.tif", "{dir}/t.tif"],
                [TIFFMaker.tiffset, "-s", "274", "6", "{dir}/t.tif"]
            ]
        ),
        (
            "associated alpha",
            [
                [
                    TIFFMaker.convert, "{photo}", "(", "+clone", "-fx", "i/w", ")", "-alpha", "off", "-compose", "copy_opacity",
                    "-composite", "-define", "tiff:alpha=associated", "{dir}/t.tif"
                ]
            ]
        ),
        ("16-bit CMYK", [[TIFFMaker.convert, "{photo}", "-colorspace", "CMYK", "-depth", "16", "{dir}/t.tif"]]),
        ("4-bit palette", [[TIFFMaker.convert, "{photo}", "-colors", "16", "-type", "Palette", "{dir}/t.tif"]]),
        (
            "CIE L*a*b*",
            [[TIFFMaker.vips, "colourspace", "{photo}", "{dir}/l.v", "labq"], [TIFFMaker.vips, "tiffsave", "{dir}/l.v", "{dir}/t.tif"]]
        )
    ]

    static func make(_ steps: [[String]], in folder: String) throws -> [UInt8] {
        for step in steps {
            try ExternalTools.run(
                step[0],
                step.dropFirst().map {
                    $0.replacingOccurrences(of: "{photo}", with: TIFFMaker.photo("chelsea.jpg")).replacingOccurrences(
                        of: "{dir}", with: folder)
                })
        }
        return try ExternalTools.bytes(atPath: folder + "/t.tif")
    }

    @Test(arguments: 0..<layouts.count)
    func rowDecodersMatchTheOneShotDecode(_ index: Int) throws {
        let (name, steps) = Self.layouts[index]
        let folder = try TIFFMaker.folder()
        defer { TIFFMaker.remove(folder) }
        let bytes = try Self.make(steps, in: folder)
        let whole = try ImageDecoder.decode(bytes, options: DecodingOptions(applyOrientation: false, allowCorruptData: false))
        let expected = PixelComparison.packed(whole)
        // Spooled from chunks of several sizes.
        for chunk in [1000, 65536, bytes.count] {
            let streamed = try RowStreaming.decode(bytes, chunkSize: chunk)
            #expect(streamed.header.format == .tiff)
            #expect(streamed.header.width == whole.width && streamed.header.height == whole.height, "\(name)")
            #expect(streamed.header.orientation == whole.source.orientation)
            #expect(streamed.header.hasAlpha == (whole.pixelFormat == .bgra32Premultiplied))
            #expect(streamed.pixels == expected, "\(name), chunks of \(chunk)")
        }
        // From the file where it lies.
        let sink = CollectingSink()
        let file = try FileDescriptor.open(folder + "/t.tif", .readOnly)
        defer { try? file.close() }
        _ = try TIFFFormat.decodeRows(ofFile: file, from: 0, size: bytes.count, sink: sink, options: RowStreaming.options())
        #expect(sink.rowCount == whole.height)
        #expect(sink.pixels == expected, "\(name), from the file")
    }

    /// A strip too large to hold (one deflate strip of 40 MB decoded) is read a run of scanlines at
    /// a time: the same pixels as vips reads, and no buffer near the strip's size.
    @Test func hugeStripIsReadInScanlineRuns() throws {
        let folder = try TIFFMaker.folder()
        defer { TIFFMaker.remove(folder) }
        try ExternalTools.run(TIFFMaker.vips, ["resize", TIFFMaker.photo("hubble.jpg"), folder + "/big.v", "4"])
        try ExternalTools.run(TIFFMaker.vips, ["tiffsave", folder + "/big.v", folder + "/s.tif", "--compression", "none"])
        try ExternalTools.run(TIFFMaker.tiffcp, ["-c", "zip", "-r", "4000", folder + "/s.tif", folder + "/t.tif"])
        let bytes = try ExternalTools.bytes(atPath: folder + "/t.tif")
        let probe = AllocationProbe()
        let small = try AllocationProbe.$current.withValue(probe) {
            try ImageDecoder.decode(
                bytes, options: DecodingOptions(targetSize: PixelSize(width: 500, height: 500), allowCorruptData: false))
        }
        #expect(probe.largestBytes <= 8 << 20, "largest buffer \(probe.largestBytes)")
        let image = try ImageDecoder.decode(bytes, options: DecodingOptions(allowCorruptData: false))
        #expect(image.width == 4000 && image.height == 3488)
        #expect(PixelComparison.identical(image, try TIFFMaker.vipsReference(folder + "/t.tif", in: folder)))
        #expect(small.width == 574 && small.height == 500)
    }

    /// A sink that fails stops the decode with its error; a stopped spooling decoder closes its file.
    @Test func sinkFailureStopsTheDecode() throws {
        let folder = try TIFFMaker.folder()
        defer { TIFFMaker.remove(folder) }
        let bytes = try Self.make(Self.layouts[0].1, in: folder)
        let sink = CollectingSink()
        sink.failure = ImageCacheError(.cancelled, "stop")
        let decoder = try TIFFFormat.makeRowDecoder(sink: sink, options: RowStreaming.options())
        try bytes.withUnsafeBytes { try decoder.append($0) }
        #expect(throws: ImageCacheError.self) { try decoder.finish() }
        let idle = try TIFFFormat.makeRowDecoder(sink: CollectingSink(), options: RowStreaming.options())
        try bytes.withUnsafeBytes { try idle.append(UnsafeRawBufferPointer(rebasing: $0[0..<100])) }
        idle.stop()
        #expect(throws: ImageCacheError.self) { try idle.finish() }
    }
}
