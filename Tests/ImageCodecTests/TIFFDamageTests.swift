import FICCore
import FICTestSupport
import Foundation
@testable import ImageCodec
import Testing

/// Truncated, corrupt and hostile TIFFs: a named refusal or what can be decoded, never a crash,
/// a runaway allocation or uninitialised pixels.
@Suite struct TIFFDamageTests {
    /// A small image's samples (RGB, a gradient), for hand-written TIFFs.
    static func gradient(width: Int, height: Int) -> [UInt8] {
        var samples: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width { samples += [UInt8(x * 255 / max(width - 1, 1)), UInt8(y * 255 / max(height - 1, 1)), 128] }
        }
        return samples
    }

    static func code(of body: () throws -> Any) -> ImageCacheError.Code? {
        do {
            _ = try body()
            return nil
        } catch let error as ImageCacheError {
            return error.code
        } catch {
            return ImageCacheError.Code("not an ImageCacheError: \(error)")
        }
    }

    /// Every generator writes the directory last: a file cut anywhere is refused as cut short, in
    /// every mode, by the one-shot decoder, the header reader and both row decoders.
    @Test func fileCutBeforeItsDirectoryIsRefused() throws {
        let folder = try TIFFMaker.folder()
        defer { TIFFMaker.remove(folder) }
        let bytes = try TIFFMaker.make(
            folder + "/t.tif", TIFFMaker.vips,
            ["tiffsave", TIFFMaker.photo("chelsea.jpg"), folder + "/t.tif", "--tile", "--compression", "deflate"])
        for cut in [3, 8, 12, bytes.count / 10, bytes.count / 2, bytes.count * 9 / 10, bytes.count - 1] {
            let part = Array(bytes[0..<cut])
            for strict in [false, true] {
                #expect(
                    Self.code { try ImageDecoder.decode(part, options: DecodingOptions(allowCorruptData: !strict)) } == .truncated,
                    "cut at \(cut)")
                #expect(
                    Self.code { try RowStreaming.decode(part, chunkSize: 4096, options: RowStreaming.options(allowCorruptData: !strict)) }
                        == .truncated, "cut at \(cut)")
            }
            #expect(Self.code { try ImageDecoder.info(part) } == .truncated)
        }
        #expect(Self.code { try ImageDecoder.decode([UInt8]()) } == .emptyInput)
    }

    /// A file whose directory comes first, cut inside its strips: by default the strips that are
    /// there are decoded and the rest is grey (with a warning); strict refuses it as cut short.
    @Test func fileCutAfterAFrontDirectoryShowsWhatIsThere() throws {
        let width = 64, height = 48
        let samples = Self.gradient(width: width, height: height)
        let whole = TIFFFiles.uncompressed(
            width: width, height: height, samplesPerPixel: 3, photometric: 2, rowsPerStrip: 8, samples: samples, directoryFirst: true)
        let complete = try ImageDecoder.decode(whole)
        let part = Array(whole[0..<(whole.count - samples.count / 2)])  // the second half of the strips is missing
        let image = try ImageDecoder.decode(part)
        #expect(image.warnings.contains { $0.contains("cut short") }, "\(image.warnings)")
        for y in 0..<height {
            let row = (image.baseAddress + y * image.bytesPerRow).assumingMemoryBound(to: UInt32.self)
            let expected = (complete.baseAddress + y * complete.bytesPerRow).assumingMemoryBound(to: UInt32.self)
            for x in 0..<width {
                #expect(row[x] == (y < height / 2 ? expected[x] : 0xFF80_8080), "(\(x), \(y))")
            }
        }
        #expect(Self.code { try ImageDecoder.decode(part, options: DecodingOptions(allowCorruptData: false)) } == .truncated)
        #expect(
            Self.code { try RowStreaming.decode(part, chunkSize: 1000, options: RowStreaming.options(allowCorruptData: false)) }
                == .truncated)
        let streamed = try RowStreaming.decode(part, chunkSize: 1000, options: RowStreaming.options(allowCorruptData: true))
        #expect(streamed.pixels == PixelComparison.packed(image))
    }

    /// Corrupt compressed strips: by default the others are decoded exactly and the damaged ones
    /// grey, and the damage is listed; strict refuses the file.
    @Test func corruptStripsAreGreyByDefaultAndRefusedWhenStrict() throws {
        let folder = try TIFFMaker.folder()
        defer { TIFFMaker.remove(folder) }
        let tiff = folder + "/t.tif"
        try ExternalTools.run(TIFFMaker.vips, ["tiffsave", TIFFMaker.photo("chelsea.jpg"), folder + "/s.tif", "--compression", "none"])
        try ExternalTools.run(TIFFMaker.tiffcp, ["-c", "zip", "-r", "20", folder + "/s.tif", tiff])
        var bytes = try ExternalTools.bytes(atPath: tiff)
        let reference = try TIFFMaker.vipsReference(tiff, in: folder)
        let middle = bytes.count / 2
        for i in middle..<(middle + 200) { bytes[i] ^= 0x5A }
        let image = try ImageDecoder.decode(bytes)
        #expect(image.warnings.contains { $0.contains("could not be decoded") }, "\(image.warnings)")
        var greyRows = 0, exactRows = 0
        for y in 0..<image.height {
            let row = (image.baseAddress + y * image.bytesPerRow).assumingMemoryBound(to: UInt32.self)
            let expected = (reference.baseAddress + y * reference.bytesPerRow).assumingMemoryBound(to: UInt32.self)
            if (0..<image.width).allSatisfy({ row[$0] == 0xFF80_8080 }) { greyRows += 1 }
            if (0..<image.width).allSatisfy({ row[$0] == expected[$0] }) { exactRows += 1 }
        }
        #expect(greyRows >= 20 && greyRows % 20 == 0, "whole strips are grey (\(greyRows) rows)")
        #expect(greyRows + exactRows == image.height, "every other row is decoded exactly")
        #expect(Self.code { try ImageDecoder.decode(bytes, options: DecodingOptions(allowCorruptData: false)) } == .corruptData)
        #expect(
            Self.code { try RowStreaming.decode(bytes, chunkSize: 65536, options: RowStreaming.options(allowCorruptData: false)) }
                == .corruptData)
        #expect(
            try RowStreaming.decode(bytes, chunkSize: 65536, options: RowStreaming.options(allowCorruptData: true)).pixels
                == PixelComparison.packed(image))
    }

    /// A declared 1,000,000 × 1,000,000 image is refused before anything is decoded; its header still reads.
    @Test func hugeDeclaredSizeIsRefused() throws {
        let bomb = TIFFFiles.uncompressed(
            width: 16, height: 16, samplesPerPixel: 3, photometric: 2, rowsPerStrip: 16,
            samples: Self.gradient(width: 16, height: 16), overrides: [256: [1_000_000], 257: [1_000_000]])
        let info = try ImageDecoder.info(bomb)
        #expect(info.width == 1_000_000 && info.height == 1_000_000)
        let probe = AllocationProbe()
        AllocationProbe.$current.withValue(probe) {
            #expect(Self.code { try ImageDecoder.decode(bomb) } == .dimensionsTooLarge)
            #expect(
                Self.code { try ImageDecoder.decode(bomb, options: DecodingOptions(targetSize: PixelSize(width: 10, height: 10))) }
                    == .dimensionsTooLarge)
            #expect(Self.code { try RowStreaming.decode(bomb, chunkSize: 100) } == .dimensionsTooLarge)
        }
        #expect(probe.largestBytes < 1 << 20)
        #expect(Self.code { try ImageDecoder.estimatedMemory(bomb) } == nil, "an estimate is only arithmetic")
    }

    /// A strip that declares 4 GiB of decoded samples (16-bit RGBA, 32768 × 16384, one strip) is
    /// read a few scanlines at a time, never allocated: the damaged data is refused with nothing
    /// large in memory.
    @Test func stripOfFourGigabytesIsNeverAllocated() throws {
        let width = 32768, height = 16384
        let bomb = TIFFFiles.uncompressed(
            width: 4, height: 4, samplesPerPixel: 4, bitsPerSample: 16, photometric: 2, rowsPerStrip: 4,
            samples: [UInt8](repeating: 0x55, count: 100),
            extraSamples: [2], overrides: [256: [UInt32(width)], 257: [UInt32(height)], 278: [UInt32(height)], 259: [8], 279: [100]])
        let options = DecodingOptions(maximumPixelCount: 1 << 30, targetSize: PixelSize(width: 64, height: 64), allowCorruptData: false)
        let probe = AllocationProbe()
        AllocationProbe.$current.withValue(probe) {
            #expect(Self.code { try ImageDecoder.decode(bomb, options: options) } == .corruptData)
            #expect(
                Self.code { try RowStreaming.decode(bomb, chunkSize: 4096, options: RowStreaming.options(maximumPixelCount: 1 << 30)) }
                    == .corruptData)
        }
        #expect(probe.largestBytes <= 8 << 20, "largest buffer \(probe.largestBytes)")
        // The pixel limit comes first at the default limit.
        #expect(Self.code { try ImageDecoder.decode(bomb) } == .dimensionsTooLarge)
    }

    /// A strip byte count of 4 GB on a small file: no read of it, a grey strip by default and
    /// "cut short" when strict.
    @Test func stripByteCountPastTheEndIsNotRead() throws {
        let samples = Self.gradient(width: 32, height: 32)
        let bomb = TIFFFiles.uncompressed(
            width: 32, height: 32, samplesPerPixel: 3, photometric: 2, rowsPerStrip: 16, samples: samples,
            overrides: [279: [0xFFFF_FFF0, 32 * 16 * 3]])
        let image = try ImageDecoder.decode(bomb)
        #expect(image.warnings.contains { $0.contains("cut short") }, "\(image.warnings)")
        let first = image.baseAddress.assumingMemoryBound(to: UInt32.self)
        #expect(first[0] == 0xFF80_8080)
        let last = (image.baseAddress + 31 * image.bytesPerRow).assumingMemoryBound(to: UInt32.self)
        #expect(last[31] != 0xFF80_8080)
        #expect(Self.code { try ImageDecoder.decode(bomb, options: DecodingOptions(allowCorruptData: false)) } == .truncated)
    }

    /// Tiles far taller than the image (allowed by the format: a 4000 × 64 image in 16 × 12560
    /// tiles, as a fuzzed file had) are read with the band holding the image's rows only: the
    /// picture is vips' reading of the source, and no buffer near the 1.4 GB of rows that do not exist is taken.
    @Test func tilesTallerThanTheImageHoldOnlyItsRows() throws {
        let folder = try TIFFMaker.folder()
        defer { TIFFMaker.remove(folder) }
        try ExternalTools.run(
            TIFFMaker.convert, [TIFFMaker.photo("retina.jpg"), "-resize", "4000x64!", "-depth", "8", "-compress", "none", folder + "/s.tif"]
        )
        let tiff = folder + "/tall-tiles.tif"
        try ExternalTools.run(TIFFMaker.tiffcp, ["-c", "zip", "-t", "-w", "16", "-l", "12560", folder + "/s.tif", tiff])
        // vips refuses such tiles ("tile size out of range"): it reads the lossless source instead.
        let reference = try TIFFMaker.vipsReference(folder + "/s.tif", in: folder)
        let probe = AllocationProbe()
        let image = try AllocationProbe.$current.withValue(probe) { try ImageDecoder.decode(try ExternalTools.bytes(atPath: tiff)) }
        #expect(image.width == 4000 && image.height == 64)
        #expect(probe.largestBytes <= 8 << 20, "largest buffer \(probe.largestBytes)")
        for y in 0..<64 {
            let row = (image.baseAddress + y * image.bytesPerRow).assumingMemoryBound(to: UInt32.self)
            let expected = (reference.baseAddress + y * reference.bytesPerRow).assumingMemoryBound(to: UInt32.self)
            for x in 0..<4000 where row[x] != expected[x] {
                Issue.record("pixel \(x), \(y): \(String(row[x], radix: 16)) where vips has \(String(expected[x], radix: 16))")
                return
            }
        }
    }

    /// Tiles of 65536 × 65536 are refused before anything is allocated for them.
    @Test func hugeTilesAreRefused() throws {
        let bomb = TIFFFiles.uncompressed(
            width: 16, height: 16, samplesPerPixel: 3, photometric: 2, rowsPerStrip: 16,
            samples: Self.gradient(width: 16, height: 16),
            overrides: [256: [70_000], 257: [1000], 322: [65536], 323: [65536], 324: [8], 325: [768]], removing: [273, 278, 279])
        let probe = AllocationProbe()
        AllocationProbe.$current.withValue(probe) {
            let code = Self.code { try ImageDecoder.decode(bomb) }
            #expect(code == .overMemoryBudget || code == .corruptData, "\(String(describing: code))")
        }
        #expect(probe.largestBytes < 1 << 20)
    }

    /// Strip or tile offsets fewer than the page's strips or tiles: libtiff pads them with zeros
    /// (with a warning). A chunk at offset 0 (where the header is) is never read: grey by default,
    /// with a warning, refused when strict; the chunks that have offsets decode. (A fuzzer's
    /// 65448 × 64 of 16 × 16 JPEG tiles, 24 of them with offsets, took seconds to fail tile by
    /// tile; the header read as pixels would be a wrong picture.)
    @Test func chunksWithoutOffsetsAreGreyNeverTheHeader() throws {
        let samples = Self.gradient(width: 32, height: 32)
        let strips = TIFFFiles.uncompressed(
            width: 32, height: 32, samplesPerPixel: 3, photometric: 2, rowsPerStrip: 16, samples: samples,
            overrides: [273: [8]])
        let tiles = TIFFFiles.uncompressed(
            width: 32, height: 32, samplesPerPixel: 3, photometric: 2, rowsPerStrip: 32, samples: samples,
            overrides: [322: [16], 323: [16], 324: [8], 325: [16 * 16 * 3, 16 * 16 * 3, 16 * 16 * 3, 16 * 16 * 3]],
            removing: [273, 278, 279])
        for (name, file, grey) in [("strips", strips, (x: 0, y: 16)), ("tiles", tiles, (x: 16, y: 0))] {
            let image = try ImageDecoder.decode(file)
            #expect(image.warnings.contains { $0.contains("no data (offset 0)") }, "\(name): \(image.warnings)")
            let pixel = (image.baseAddress + grey.y * image.bytesPerRow).assumingMemoryBound(to: UInt32.self)[grey.x]
            #expect(pixel == 0xFF80_8080, "\(name): the chunk without data is grey, not the file's header")
            let first = image.baseAddress.assumingMemoryBound(to: UInt32.self)[0]
            #expect(first != 0xFF80_8080, "\(name): the first chunk decodes")
            #expect(
                Self.code { try ImageDecoder.decode(file, options: DecodingOptions(allowCorruptData: false)) } == .corruptData, "\(name)")
        }
    }

    /// Damaged headers: named refusals.
    @Test func damagedHeadersAreRefused() throws {
        let noDirectory: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 0, 0, 0, 0] + [UInt8](repeating: 0, count: 64)
        #expect(Self.code { try ImageDecoder.decode(noDirectory) } == .corruptData)
        let garbage: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8] + [UInt8](repeating: 0xFF, count: 64)
        let code = Self.code { try ImageDecoder.decode(garbage) }
        #expect(code == .corruptData || code == .truncated, "\(String(describing: code))")
        let float = TIFFFiles.uncompressed(
            width: 4, height: 4, samplesPerPixel: 1, bitsPerSample: 32, photometric: 1, rowsPerStrip: 4,
            samples: [UInt8](repeating: 0, count: 64), overrides: [339: [3]])
        #expect(Self.code { try ImageDecoder.decode(float) } == .unsupportedFormat)
        #expect(try ImageDecoder.info(float).bitsPerSample == 32)
    }
}
