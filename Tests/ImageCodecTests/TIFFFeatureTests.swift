import FICTestSupport
import Foundation
@testable import ImageCodec
import Testing

/// TIFF orientation, colour profiles, pages, pyramids and scaled decodes, against tools' decodes.
@Suite struct TIFFFeatureTests {
    /// Every Orientation tag value (set with tiffset) is applied as `vips autorot` applies it.
    @Test(arguments: 1...8)
    func orientationIsAppliedLikeVips(_ orientation: Int) throws {
        let folder = try TIFFMaker.folder()
        defer { TIFFMaker.remove(folder) }
        let tiff = folder + "/t.tif"
        try ExternalTools.run(
            TIFFMaker.vips,
            [
                "tiffsave", TIFFMaker.photo("chelsea.jpg"), tiff, "--tile", "--tile-width", "64", "--tile-height", "64", "--compression",
                "deflate"
            ])
        try ExternalTools.run(TIFFMaker.tiffset, ["-s", "274", "\(orientation)", tiff])
        try ExternalTools.run(TIFFMaker.vips, ["autorot", tiff, folder + "/ref.png"])
        let bytes = try ExternalTools.bytes(atPath: tiff)
        let info = try ImageDecoder.info(bytes)
        #expect(info.orientation.rawValue == orientation)
        let image = try ImageDecoder.decode(bytes)
        let reference = try TIFFMaker.decodePNG(folder + "/ref.png")
        #expect(image.isOrientationApplied)
        #expect(image.width == info.displayWidth && image.height == info.displayHeight)
        #expect(PixelComparison.identical(image, reference))
        // Stored orientation on request, and a scaled decode turned upright too.
        let stored = try ImageDecoder.decode(bytes, options: DecodingOptions(applyOrientation: false))
        #expect(stored.width == 451 && stored.height == 300 && !stored.isOrientationApplied)
        let small = try ImageDecoder.decode(bytes, options: DecodingOptions(targetSize: PixelSize(width: 100, height: 100)))
        #expect(small.width < image.width && (small.width >= 100 && small.height >= 100))
        #expect((small.width > small.height) == (image.width > image.height))
    }

    /// The ICC profile (tag 34675) is handed over byte for byte, for RGB and for CMYK.
    @Test func iccProfileIsReadFromTag34675() throws {
        let folder = try TIFFMaker.folder()
        defer { TIFFMaker.remove(folder) }
        try ExternalTools.run(TIFFMaker.vips, ["icc_transform", TIFFMaker.photo("chelsea.jpg"), folder + "/p3.tif", "p3"])
        try ExternalTools.run(TIFFMaker.convert, [folder + "/p3.tif", folder + "/p3.icc"])  // ImageMagick extracts the profile
        let profile = try ExternalTools.bytes(atPath: folder + "/p3.icc")
        #expect(profile.count > 100)
        let info = try ImageDecoder.info(try ExternalTools.bytes(atPath: folder + "/p3.tif"))
        #expect(info.color == .iccProfile(profile))
        // Untagged files say so.
        try ExternalTools.run(TIFFMaker.vips, ["tiffsave", TIFFMaker.photo("chelsea.jpg"), folder + "/plain.tif"])
        #expect(try ImageDecoder.info(try ExternalTools.bytes(atPath: folder + "/plain.tif")).color == .untagged)
    }

    /// CMYK with a profile (`vips icc_transform … cmyk`): SamplePipeline gets the CMYK samples as
    /// stored (ImageMagick's raw dump) and the profile, and the decode is exactly what it makes of them.
    @Test func cmykWithProfileGoesThroughSamplePipeline() throws {
        let folder = try TIFFMaker.folder()
        defer { TIFFMaker.remove(folder) }
        let tiff = folder + "/cmyk.tif"
        try ExternalTools.run(TIFFMaker.vips, ["icc_transform", TIFFMaker.photo("chelsea.jpg"), tiff, "cmyk"])
        try ExternalTools.run(TIFFMaker.convert, [tiff, folder + "/cmyk.icc"])
        try ExternalTools.run(TIFFMaker.convert, [tiff, "-depth", "8", "cmyk:" + folder + "/cmyk.raw"])
        let profile = try ExternalTools.bytes(atPath: folder + "/cmyk.icc")
        let raw = try ExternalTools.bytes(atPath: folder + "/cmyk.raw")
        let bytes = try ExternalTools.bytes(atPath: tiff)
        let info = try ImageDecoder.info(bytes)
        #expect(info.color == .iccProfile(profile))
        #expect(!info.hasAlpha)
        let image = try ImageDecoder.decode(bytes)
        try #require(raw.count == image.width * image.height * 4)
        var warnings: [String] = []
        let pipeline = SamplePipeline(layout: .cmyk8, color: .iccProfile(profile), warnings: &warnings)
        let expected = DecodedImage(
            width: image.width, height: image.height, pixelFormat: pipeline.pixelFormat, source: info, isOrientationApplied: true)
        raw.withUnsafeBytes { samples in
            for y in 0..<image.height {
                pipeline.convert(
                    samples.baseAddress! + y * image.width * 4, to: expected.baseAddress + y * expected.bytesPerRow, count: image.width)
            }
        }
        #expect(PixelComparison.identical(image, expected))
    }

    /// Pages: a multi-page file counts its pages, decodes its first; a pyramid counts one page.
    @Test func pagesAreCountedAndTheFirstIsDecoded() throws {
        let folder = try TIFFMaker.folder()
        defer { TIFFMaker.remove(folder) }
        try ExternalTools.run(TIFFMaker.vips, ["tiffsave", TIFFMaker.photo("chelsea.jpg"), folder + "/a.tif"])
        try ExternalTools.run(TIFFMaker.vips, ["tiffsave", TIFFMaker.photo("coffee.jpg"), folder + "/b.tif"])
        try ExternalTools.run(TIFFMaker.tiffcp, [folder + "/a.tif", folder + "/b.tif", folder + "/a.tif", folder + "/multi.tif"])
        let bytes = try ExternalTools.bytes(atPath: folder + "/multi.tif")
        let info = try ImageDecoder.info(bytes)
        #expect(info.frameCount == 3)
        let image = try ImageDecoder.decode(bytes)
        #expect(PixelComparison.identical(image, try TIFFMaker.vipsReference(folder + "/a.tif", in: folder)))
        try ExternalTools.run(TIFFMaker.vips, ["tiffsave", TIFFMaker.photo("hubble.jpg"), folder + "/pyramid.tif", "--tile", "--pyramid"])
        #expect(try ImageDecoder.info(try ExternalTools.bytes(atPath: folder + "/pyramid.tif")).frameCount == 1)
    }

    /// A pyramidal TIFF serves a smaller decode from its smallest level that covers the target:
    /// pixels identical to that level as vips reads it (a shrink of the full image would differ),
    /// and no buffer near the full size.
    @Test(arguments: [false, true])
    func pyramidLevelServesAScaledDecode(_ subIFD: Bool) throws {
        let folder = try TIFFMaker.folder()
        defer { TIFFMaker.remove(folder) }
        let tiff = folder + "/pyramid.tif"
        try ExternalTools.run(
            TIFFMaker.vips,
            [
                "tiffsave", TIFFMaker.photo("hubble.jpg"), tiff, "--tile", "--tile-width", "128", "--tile-height", "128", "--pyramid",
                "--compression", "deflate"
            ] + (subIFD ? ["--subifd"] : []))
        let bytes = try ExternalTools.bytes(atPath: tiff)
        // Levels of 1000×872: 500×436, 250×218, 125×109.
        let probe = AllocationProbe()
        let image = try AllocationProbe.$current.withValue(probe) {
            try ImageDecoder.decode(bytes, options: DecodingOptions(targetSize: PixelSize(width: 250, height: 218)))
        }
        #expect(image.width == 250 && image.height == 218)
        #expect(image.scaleDenominator == 4)
        #expect(image.source.width == 1000 && image.source.height == 872)
        let level = try TIFFMaker.vipsReference(tiff, in: folder, suffix: subIFD ? "[subifd=1]" : "[page=2]")
        #expect(PixelComparison.identical(image, level))
        #expect(probe.largestBytes < 1000 * 872 * 4 / 4, "largest buffer \(probe.largestBytes)")
        // A target between levels: the larger level (500×436), shrunk to exactly the covering size.
        let between = try ImageDecoder.decode(bytes, options: DecodingOptions(targetSize: PixelSize(width: 300, height: 300)))
        #expect(between.width == 345 && between.height == 300 && between.scaleDenominator == 3)
        // The full size is the first page.
        let full = try ImageDecoder.decode(bytes)
        #expect(full.width == 1000 && full.scaleDenominator == 1)
    }

    /// Without levels, a scaled decode shrinks rows as strips and tiles are read, exactly as the
    /// PNG decoder shrinks the same pixels, without a full-size bitmap.
    @Test(arguments: [PixelSize(width: 100, height: 100), PixelSize(width: 333, height: 200), PixelSize(width: 1, height: 1)])
    func scaledDecodeShrinksRowsLikeThePNGDecoder(_ target: PixelSize) throws {
        let folder = try TIFFMaker.folder()
        defer { TIFFMaker.remove(folder) }
        for layout in [["--tile", "--tile-width", "128", "--tile-height", "128"], []] {
            try ExternalTools.run(
                TIFFMaker.vips, ["tiffsave", TIFFMaker.photo("hubble.jpg"), folder + "/t.tif", "--compression", "deflate"] + layout)
            try ExternalTools.run(TIFFMaker.vips, ["copy", TIFFMaker.photo("hubble.jpg"), folder + "/t.png"])
            let options = DecodingOptions(targetSize: target)
            let probe = AllocationProbe()
            let image = try AllocationProbe.$current.withValue(probe) {
                try ImageDecoder.decode(try ExternalTools.bytes(atPath: folder + "/t.tif"), options: options)
            }
            let png = try TIFFMaker.decodePNG(folder + "/t.png", options: options)
            #expect(image.width == png.width && image.height == png.height && image.scaleDenominator == png.scaleDenominator)
            #expect(PixelComparison.identical(image, png))
            #expect(probe.largestBytes < 1000 * 872 * 4 / 2, "largest buffer \(probe.largestBytes)")
        }
    }

    /// The memory estimate comes from the header and follows the level a scaled decode reads.
    @Test func memoryEstimateFollowsTheLevel() throws {
        let folder = try TIFFMaker.folder()
        defer { TIFFMaker.remove(folder) }
        let tiff = folder + "/pyramid.tif"
        try ExternalTools.run(
            TIFFMaker.vips, ["tiffsave", TIFFMaker.photo("hubble.jpg"), tiff, "--tile", "--pyramid", "--compression", "deflate"])
        let full = try ImageDecoder.estimatedMemory(ofFileAt: tiff)
        let small = try ImageDecoder.estimatedMemory(
            ofFileAt: tiff, options: DecodingOptions(targetSize: PixelSize(width: 100, height: 100)))
        #expect(full.info.format == .tiff && full.encodedBytes > 0)
        #expect(full.outputBytes == 1000 * 872 * 4)
        #expect(small.outputBytes < full.outputBytes / 16)
        #expect(small.workingBytes <= full.workingBytes)
    }

    /// The four signatures, and too few bytes to tell.
    @Test func sniffsTIFFAndBigTIFF() {
        for signature: [UInt8] in [[0x49, 0x49, 0x2A, 0x00], [0x4D, 0x4D, 0x00, 0x2A], [0x49, 0x49, 0x2B, 0x00], [0x4D, 0x4D, 0x00, 0x2B]] {
            #expect(signature.withUnsafeBytes { ImageDecoder.sniffFormat($0) } == .tiff)
            #expect(signature.withUnsafeBytes { TIFFFormat.sniff($0) } == .match(offset: 0))
            #expect(Array(signature.prefix(3)).withUnsafeBytes { TIFFFormat.sniff($0) } == .needMoreBytes)
        }
        #expect([0x49, 0x49, 0x2A, 0x01].withUnsafeBytes { TIFFFormat.sniff($0) } == .noMatch)
        #expect([0x4D, 0x4D, 0x2A, 0x00].withUnsafeBytes { TIFFFormat.sniff($0) } == .noMatch)
    }
}
