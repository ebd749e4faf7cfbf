import FICHarness
import FICTestSupport
import Foundation
@testable import ImageCodec
import Testing

/// JPEG XL files made at test time by `cjxl` from the bundled photos, decoded and compared with
/// `djxl`'s own decode (read back as PNG); damaged, truncated and bomb files.
@Suite struct JXLTests {
    /// A folder of its own for each test.
    final class Folder {
        let path: String
        init() throws { path = try TestImageBuilder.temporaryFolder() }
        deinit { try? FileManager.default.removeItem(atPath: path) }

        /// Writes `bytes` to `name` in the folder; its path.
        func write(_ bytes: [UInt8], _ name: String) throws -> String {
            let file = path + "/" + name
            try Data(bytes).write(to: URL(fileURLWithPath: file))
            return file
        }
    }

    static let adobeRGB = "/usr/share/color/icc/compatibleWithAdobeRGB1998.icc"

    /// The bytes of an ICC profile shipped by icc-profiles-free.
    static func profile(_ path: String) throws -> [UInt8] {
        try #require(FileManager.default.fileExists(atPath: path), "\(path) is missing: install icc-profiles-free (scripts/install-deps)")
        return try ExternalTools.bytes(atPath: path)
    }

    /// `jpeg` with `profile` embedded in an APP2 ICC_PROFILE segment right after SOI (no re-encoding).
    static func embedding(_ profile: [UInt8], in jpeg: [UInt8]) -> [UInt8] {
        let payload = Array("ICC_PROFILE".utf8) + [0, 1, 1] + profile
        return TestImageBuilder.inserting(TestImageBuilder.appSegment(2, payload), into: jpeg, at: 2)
    }

    /// Expects `image` within `decibels` of `reference` (same size).
    static func expectClose(
        _ image: DecodedImage, _ reference: DecodedImage, atLeast decibels: Double = 38, _ what: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(
            image.width == reference.width && image.height == reference.height,
            "\(what): \(image.width)×\(image.height) against \(reference.width)×\(reference.height)", sourceLocation: sourceLocation)
        guard image.width == reference.width && image.height == reference.height else { return }
        let psnr = PixelComparison.psnr(image, reference)
        #expect(psnr >= decibels, "\(what): \(psnr) dB against the reference", sourceLocation: sourceLocation)
    }

    @Test func aLosslessJPEGTranscodeKeepsItsOrientationAndProfile() throws {
        let folder = try Folder()
        let original = Self.embedding(try Self.profile(Self.adobeRGB), in: try TestData.bytes("jpeg/orientation/chelsea-orientation-6.jpg"))
        let jpeg = try folder.write(original, "chelsea-6-adobe.jpg")
        let jxl = try ExternalTools.cjxl(jpeg, in: folder.path, name: "lossless.jxl")
        let jpegInfo = try ImageDecoder.info(original)
        let info = try ImageDecoder.info(jxl)
        #expect(info.format == .jxl)
        #expect(info.orientation == .right)
        #expect(info.width == jpegInfo.width && info.height == jpegInfo.height, "the stored size: \(info.width)×\(info.height)")
        #expect(info.color == .iccProfile(try Self.profile(Self.adobeRGB)))
        #expect(info.bitsPerSample == 8 && info.frameCount == 1 && !info.hasAlpha)

        let upright = try ImageDecoder.decode(jxl)
        #expect(upright.isOrientationApplied && upright.pixelFormat == .bgrx32)
        Self.expectClose(upright, try ImageDecoder.decode(original), "against the original JPEG")
        let stored = try ImageDecoder.decode(jxl, options: DecodingOptions(applyOrientation: false))
        #expect(!stored.isOrientationApplied && stored.width == info.width && stored.height == info.height)
        // Adobe RGB converted to sRGB: against LittleCMS's conversion of the JPEG by vips (djxl
        // hands out the transcode's pixels in the file's own profile).
        let reference = try ColorTools.sRGBReference(of: jpeg, in: folder.path)
        let psnr = PixelComparison.psnr(samples: ColorFixtures.rgb(ofBGRA: PixelComparison.packed(stored)), reference)
        #expect(psnr >= 38, "against vips icc_transform: \(psnr) dB")
    }

    @Test func aLossyImageWithAProfileDecodesToSRGBNotLinear() throws {
        // XYB with an ICC profile (Adobe RGB, which cjxl keeps as ICC): libjxl 0.7 hands out
        // linear sRGB unless asked for sRGB, and so does djxl by default.
        let folder = try Folder()
        let profile = try Self.profile(Self.adobeRGB)
        let jpeg = try folder.write(Self.embedding(profile, in: try TestData.bytes("photos/coffee.jpg")), "coffee-adobe.jpg")
        let jxl = try ExternalTools.cjxl(jpeg, ["--lossless_jpeg=0", "-d", "1"], in: folder.path, name: "xyb.jxl")
        #expect(try ImageDecoder.info(jxl).color == .iccProfile(profile))
        let image = try ImageDecoder.decode(jxl)
        Self.expectClose(image, try ExternalTools.djxl(jxl, in: folder.path), "against djxl's sRGB")
        // djxl's linear output carries its linear profile, which the PNG decoder converts back to
        // sRGB: close too (8-bit linear samples lose some of the shadows).
        let linear = PixelComparison.psnr(image, try ExternalTools.djxl(jxl, in: folder.path, colorSpace: "RGB_D65_SRG_Rel_Lin"))
        #expect(linear >= 35, "djxl's linear decode, converted from its profile: \(linear) dB")
    }

    @Test func aVarDCTImageFromAnUntaggedPhotoIsSRGBByItsCodePoints() throws {
        let folder = try Folder()
        let jxl = try ExternalTools.cjxl(TestData.path("photos/coffee.jpg"), ["-d", "1"], in: folder.path, name: "d1.jxl")
        let info = try ImageDecoder.info(jxl)
        #expect(info.color == .codePoints(primaries: 1, transfer: 13, matrix: 0, fullRange: true))
        #expect(info.width == 600 && info.height == 400)
        Self.expectClose(try ImageDecoder.decode(jxl), try ExternalTools.djxl(jxl, in: folder.path), "against djxl")
        Self.expectClose(
            try ImageDecoder.decode(jxl), try ImageDecoder.decode(try TestData.bytes("photos/coffee.jpg")), atLeast: 34, "against the JPEG")
    }

    @Test func sixteenBitSamplesComeOutRounded() throws {
        let folder = try Folder()
        // Resized in ImageMagick's 16 bits, so that the samples need them (ImageMagick writes 8-bit
        // PNGs when 8 bits hold the samples exactly).
        _ = try ExternalTools.convert(
            [TestData.path("photos/chelsea.jpg"), "-resize", "77%", "-depth", "16"], in: folder.path, name: "chelsea16.png")
        let jxl = try ExternalTools.cjxl(folder.path + "/chelsea16.png", ["-d", "1"], in: folder.path, name: "deep.jxl")
        #expect(try ImageDecoder.info(jxl).bitsPerSample == 16)
        Self.expectClose(try ImageDecoder.decode(jxl), try ExternalTools.djxl(jxl, in: folder.path), "against djxl")
    }

    @Test(arguments: [["-d", "1"], ["-d", "0"], ["-d", "1", "--premultiply=1"]])
    func alphaComesOutPremultiplied(arguments: [String]) throws {
        let folder = try Folder()
        let jxl = try ExternalTools.cjxl(TestData.path("png/astronaut-rgba.png"), arguments, in: folder.path, name: "alpha.jxl")
        let info = try ImageDecoder.info(jxl)
        #expect(info.hasAlpha)
        let image = try ImageDecoder.decode(jxl)
        #expect(image.pixelFormat == .bgra32Premultiplied)
        let reference = try ExternalTools.djxl(jxl, in: folder.path)
        Self.expectClose(image, reference, "against djxl")
        // djxl converts the PNG's gamma of 1/2.2 (which cjxl keeps) to sRGB's curve; the package,
        // as libpng and browsers, takes that gamma as sRGB: up to a few levels apart.
        #expect(PixelComparison.maximumDifference(image, reference) <= 64)
        if arguments == ["-d", "0"] {
            #expect(
                PixelComparison.identical(image, try ImageDecoder.decode(try TestData.bytes("png/astronaut-rgba.png"))),
                "lossless: the PNG's pixels")
        }
    }

    @Test func greyStaysGrey() throws {
        let folder = try Folder()
        let jxl = try ExternalTools.cjxl(TestData.path("png/camera-gray8.png"), ["-d", "0"], in: folder.path, name: "grey.jxl")
        let image = try ImageDecoder.decode(jxl)
        #expect(PixelComparison.identical(image, try ImageDecoder.decode(try TestData.bytes("png/camera-gray8.png"))))
    }

    @Test func anAnimationShowsItsFirstFrameAndCountsItsFrames() throws {
        let folder = try Folder()
        let photo = TestData.path("photos/hubble.jpg")
        let gif = try ExternalTools.convert(
            [
                "-delay", "10", "(", photo, "-crop", "200x150+0+0", "+repage", ")", "(", photo, "-crop", "200x150+300+300", "+repage", ")",
                "(", photo, "-crop", "200x150+600+500", "+repage", ")", "-colors", "200", "-loop", "0"
            ], in: folder.path, name: "three.gif")
        let jxl = try ExternalTools.cjxl(folder.path + "/three.gif", in: folder.path, name: "three.jxl")
        let info = try ImageDecoder.info(jxl)
        #expect(info.frameCount == 3)
        #expect(info.width == 200 && info.height == 150)
        let image = try ImageDecoder.decode(jxl)
        #expect(image.source.frameCount == 3)
        Self.expectClose(image, try ImageDecoder.decode(gif), atLeast: 45, "against the GIF's first frame")
    }

    @Test func aSmallTargetShrinksTheFullDecode() throws {
        let folder = try Folder()
        let jxl = try ExternalTools.cjxl(TestData.path("photos/hubble.jpg"), in: folder.path, name: "hubble.jxl")
        let full = try ImageDecoder.decode(jxl)
        let small = try ImageDecoder.decode(jxl, options: DecodingOptions(targetSize: PixelSize(width: 100, height: 100)))
        #expect(small.height == 100 && small.width == 115, "covering 100×100 keeps 1000×872's aspect: \(small.width)×\(small.height)")
        #expect(small.scaleDenominator == 9)
        Self.expectClose(
            small, try ScaleTests.areaAverage(full, width: small.width, height: small.height), atLeast: 30, "against an area average")
    }

    @Test(arguments: ["jpeg/orientation/chelsea-orientation-6.jpg", "png/astronaut-rgba.png"])
    func theRowDecoderGivesTheDecodersPixels(file: String) throws {
        let folder = try Folder()
        let jxl = try ExternalTools.cjxl(TestData.path(file), file.hasSuffix(".png") ? ["-d", "1"] : [], in: folder.path, name: "row.jxl")
        let streamed = try RowStreaming.decode(jxl, chunkSize: 4096)
        let image = try ImageDecoder.decode(jxl, options: DecodingOptions(applyOrientation: false))
        #expect(streamed.header.format == .jxl && streamed.header.width == image.width && streamed.header.height == image.height)
        #expect(streamed.pixels == PixelComparison.packed(image))
    }

    @Test func aFileCutShortIsTruncatedWhereverItIsCut() throws {
        let folder = try Folder()
        let bare = try ExternalTools.cjxl(
            TestData.path("photos/coffee.jpg"), ["-d", "1", "--lossless_jpeg=0"], in: folder.path, name: "bare.jxl")
        let container = try ExternalTools.cjxl(TestData.path("photos/coffee.jpg"), in: folder.path, name: "container.jxl")
        #expect(bare[0] == 0xFF && bare[1] == 0x0A && container[0] == 0)
        for file in [bare, container] {
            for cut in [3, 20, file.count / 2, file.count * 9 / 10, file.count - 1] {
                let part = Array(file[..<cut])
                for strict in [false, true] {
                    let error = try #require(throws: ImageCacheError.self, "cut at \(cut)") {
                        try ImageDecoder.decode(part, options: DecodingOptions(allowCorruptData: !strict))
                    }
                    #expect(error.code == .truncated, "cut at \(cut) of \(file.count): \(error)")
                }
                let streamed = try #require(throws: ImageCacheError.self) { try RowStreaming.decode(part, chunkSize: 1000) }
                #expect(streamed.code == .truncated, "streamed, cut at \(cut): \(streamed)")
            }
        }
    }

    @Test func junkAfterTheSignatureIsRefused() throws {
        var rng = SplitMix64(seed: 0x4A58_4C)
        for length in [2, 16, 300, 5000] {
            let junk: [UInt8] = [0xFF, 0x0A] + (2..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let error = try #require(throws: ImageCacheError.self) { try ImageDecoder.decode(junk) }
            #expect([.corruptData, .truncated, .dimensionsTooLarge].contains(error.code), "\(length) bytes: \(error)")
        }
        // Damage inside a real file's frame data.
        let folder = try Folder()
        var damaged = try ExternalTools.cjxl(
            TestData.path("photos/coffee.jpg"), ["-d", "1", "--lossless_jpeg=0"], in: folder.path, name: "d.jxl")
        for i in (damaged.count / 3)..<(damaged.count / 3 + 64) { damaged[i] = UInt8.random(in: 0...255, using: &rng) }
        do {
            _ = try ImageDecoder.decode(damaged)  // libjxl may decode damaged coefficients without noticing
        } catch let error as ImageCacheError {
            #expect([.corruptData, .truncated].contains(error.code), "\(error)")
        }
    }

    /// A bare codestream whose size header declares `width × height`, with default metadata (8-bit
    /// sRGB), and nothing after: the size header's fields are written bit by bit, least significant first.
    static func header(width: Int, height: Int) -> [UInt8] {
        var bits: [Bool] = []
        func put(_ value: Int, _ count: Int) { for i in 0..<count { bits.append(value >> i & 1 == 1) } }
        func size(_ value: Int) {  // U32(1 + u(9), 1 + u(13), 1 + u(18), 1 + u(30))
            let (selector, width) = value <= 1 << 9 ? (0, 9) : value <= 1 << 13 ? (1, 13) : value <= 1 << 18 ? (2, 18) : (3, 30)
            put(selector, 2)
            put(value - 1, width)
        }
        put(0, 1)  // not small
        size(height)
        put(0, 3)  // no ratio: the width follows
        size(width)
        put(1, 1)  // all_default metadata
        var bytes: [UInt8] = [0xFF, 0x0A]
        for start in stride(from: 0, to: bits.count, by: 8) {
            var byte: UInt8 = 0
            for i in 0..<8 where start + i < bits.count && bits[start + i] { byte |= 1 << i }
            bytes.append(byte)
        }
        return bytes + [UInt8](repeating: 0, count: 256)  // libjxl reports the colour encoding only with bytes after it
    }

    @Test func aBombIsRefusedBeforeAnythingIsAllocated() throws {
        let bomb = Self.header(width: 65536, height: 65536)
        let info = try ImageDecoder.info(bomb)
        #expect(info.width == 65536 && info.height == 65536)
        let probe = AllocationProbe()
        let error = try AllocationProbe.$current.withValue(probe) {
            try #require(throws: ImageCacheError.self) { try ImageDecoder.decode(bomb) }
        }
        #expect(error.code == .dimensionsTooLarge, "\(error)")
        #expect(probe.largestBytes < 1 << 20)
        let huge = Self.header(width: 1 << 30, height: 1 << 30)
        let streamed = try #require(throws: ImageCacheError.self) { try RowStreaming.decode(huge, chunkSize: 7) }
        #expect(streamed.code == .dimensionsTooLarge, "\(streamed)")
        #expect(try ImageDecoder.estimatedMemory(bomb).outputBytes == 65536 * 65536 * 4)
    }

    @Test(arguments: [["-d", "1"], ["-d", "0"]])
    func theEstimateComesFromTheHeaderAndCoversTheDecode(arguments: [String]) throws {
        let folder = try Folder()
        let jxl = try ExternalTools.cjxl(TestData.path("png/astronaut-rgba.png"), arguments, in: folder.path, name: "e.jxl")
        let full = try ImageDecoder.estimatedMemory(jxl)
        #expect(full.info.width == 256 && full.info.height == 256 && full.info.hasAlpha)
        #expect(try ImageDecoder.estimatedMemory(Array(jxl.prefix(2048))) == full, "the header alone")
        for target in [nil, PixelSize(width: 40, height: 40)] {
            let options = DecodingOptions(targetSize: target)
            let estimate = try ImageDecoder.estimatedMemory(jxl, options: options)
            let probe = AllocationProbe()
            _ = try AllocationProbe.$current.withValue(probe) { try ImageDecoder.decode(jxl, options: options) }
            #expect(
                estimate.outputBytes + estimate.workingBytes >= probe.totalBytes,
                "\(String(describing: target)): \(estimate) against \(probe.sizes)")
        }
    }
}
