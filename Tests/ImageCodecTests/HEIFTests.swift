import FICHarness
import FICTestSupport
import Foundation
@testable import ImageCodec
import Testing

/// HEIC and AVIF through libheif, on files made at test time (``HEIFTestFiles``) and compared
/// with their encoders' own decoders.
@Suite struct HEIFTests {
    typealias Files = HEIFTestFiles

    /// Requires `decoded` and `reference` to have one size and to be `decibels` apart at worst.
    static func expectClose(_ decoded: DecodedImage, _ reference: DecodedImage, _ what: String, atLeast decibels: Double = 38) {
        #expect(
            decoded.width == reference.width && decoded.height == reference.height,
            "\(what): \(decoded.width)×\(decoded.height) against \(reference.width)×\(reference.height)")
        guard decoded.width == reference.width, decoded.height == reference.height else { return }
        let psnr = PixelComparison.psnr(decoded, reference)
        #expect(psnr >= decibels, "\(what): PSNR \(psnr) dB")
    }

    static func decode(_ path: String, _ options: DecodingOptions = .init()) throws -> DecodedImage {
        try ImageDecoder.decode(contentsOf: path, options: options)
    }

    // MARK: Recognising the files

    /// An `ftyp` box: its size, the major brand, a minor version, then the compatible brands.
    static func fileType(_ major: String, _ compatible: [String]) -> [UInt8] {
        let size = 16 + 4 * compatible.count
        return [0, 0, 0, UInt8(size)] + Array("ftyp".utf8) + Array(major.utf8) + [0, 0, 0, 0] + compatible.flatMap { Array($0.utf8) }
    }

    @Test func brandsAreRecognised() {
        func sniff(_ bytes: [UInt8]) -> ImageFileFormat? { bytes.withUnsafeBytes { ImageDecoder.sniffFormat($0) } }
        for brand in ["heic", "heix", "hevc", "heim", "heis", "hevm", "hevs", "mif1", "msf1"] {
            #expect(sniff(Self.fileType(brand, ["mif1"])) == .heif, "\(brand)")
        }
        #expect(sniff(Self.fileType("avif", ["mif1", "miaf"])) == .avif)
        #expect(sniff(Self.fileType("avis", ["msf1"])) == .avif)
        #expect(sniff(Self.fileType("mif1", ["avif", "miaf"])) == .avif, "an AV1 brand among the compatible ones")
        #expect(sniff(Self.fileType("mif1", ["heic"])) == .heif)
        #expect(sniff(Self.fileType("heic", ["avif"])) == .heif, "an HEVC major brand wins")
        #expect(sniff(Self.fileType("isom", ["iso2", "avif"])) == .avif, "an image brand only among the compatible ones")
        #expect(sniff(Self.fileType("isom", ["iso2", "mp41"])) == nil, "an MP4 video")
        #expect(sniff(Self.fileType("qt  ", [])) == nil)
        // Bytes 4…7 are not "ftyp", or the box size is absurd.
        #expect(sniff(Array("\u{0}\u{0}\u{0}\u{18}ftop".utf8) + Array("heic".utf8) + [0, 0, 0, 0]) == nil)
        #expect(sniff([0x7F, 0, 0, 0x18] + Array("ftypheic".utf8) + [0, 0, 0, 0]) == nil)
        // Cut short: the start of a HEIF file, or not.
        #expect(Self.fileType("heic", []).prefix(10).withUnsafeBytes { HEIFFormat.sniff($0) } == .needMoreBytes)
        #expect(Self.fileType("isom", ["iso2", "avif"]).prefix(16).withUnsafeBytes { HEIFFormat.sniff($0) } == .needMoreBytes)
        #expect([UInt8]([0xFF, 0xD8]).withUnsafeBytes { HEIFFormat.sniff($0) } == .noMatch)
    }

    @Test func aFileCutInsideItsFileTypeBoxIsTruncated() throws {
        let error = try #require(throws: ImageCacheError.self) { try ImageDecoder.decode(Self.fileType("heic", ["mif1"]).prefix(10)) }
        #expect(error.code == .truncated)
        #expect(error.message.contains("HEIF"))
    }

    @Test func anMP4VideoIsNotAnImage() throws {
        let error = try #require(throws: ImageCacheError.self) {
            try ImageDecoder.decode(Self.fileType("isom", ["iso2", "mp41"]) + [UInt8](repeating: 0, count: 64))
        }
        #expect(error.code == .unsupportedFormat)
    }

    // MARK: Decoding, against the encoders' own decoders

    @Test func heicMatchesLibheifsExampleDecoderAndThePhoto() throws {
        let source = try Files.sourcePNG("coffee", 600, 400)
        let heic = try Files.heifEnc("coffee.heic", source: source, ["-q", "80"])
        let info = try ImageDecoder.info(try Files.bytes(heic))
        #expect(
            info == ImageInfo(format: .heif, width: 600, height: 400, hasAlpha: false, color: .untagged, bitsPerSample: 8, frameCount: 1))
        let decoded = try Self.decode(heic)
        #expect(decoded.pixelFormat == .bgrx32)
        #expect(decoded.source.format == .heif && decoded.scaleDenominator == 1)
        Self.expectClose(decoded, try Files.heifConvert(heic), "against heif-convert")
        Self.expectClose(decoded, try ImageDecoder.decode(contentsOf: source), "against the photo encoded", atLeast: 30)
    }

    @Test func anOddSizedHEICIsAGridOfOneTile() throws {
        // heif-enc wraps an odd-sized image in a 1 × 1 grid whose tile is padded to even sizes.
        let source = try Files.sourcePNG("chelsea", 451, 300)
        let heic = try Files.heifEnc("chelsea-odd.heic", source: source, ["-q", "80"])
        let decoded = try Self.decode(heic)
        #expect(decoded.width == 451 && decoded.height == 300)
        Self.expectClose(decoded, try Files.heifConvert(heic), "against heif-convert")
        Self.expectClose(decoded, try ImageDecoder.decode(contentsOf: source), "against the photo encoded", atLeast: 30)
    }

    @Test(arguments: ["heif-enc", "avifenc"])
    func avifMatchesAvifdec(encoder: String) throws {
        let source = try Files.sourcePNG("coffee", 600, 400)
        let avif =
            encoder == "heif-enc"
            ? try Files.heifEnc("coffee-heif-enc.avif", source: source, ["-q", "80"])
            : try Files.avifenc("coffee-avifenc.avif", source: source, ["--min", "10", "--max", "20"])
        let info = try ImageDecoder.info(try Files.bytes(avif))
        #expect(info.format == .avif && info.width == 600 && info.height == 400 && !info.hasAlpha && info.bitsPerSample == 8)
        let decoded = try Self.decode(avif)
        #expect(decoded.source.format == .avif)
        Self.expectClose(decoded, try Files.avifdec(avif), "\(encoder): against avifdec")
        Self.expectClose(decoded, try ImageDecoder.decode(contentsOf: source), "\(encoder): against the photo encoded", atLeast: 30)
    }

    // MARK: Rotation, mirroring, crop

    /// The pixels of `image` as rows of 32-bit values.
    struct Pixels: Equatable {
        var width: Int, height: Int
        var values: [UInt32]

        init(width: Int, height: Int, values: [UInt32]) {
            self.width = width
            self.height = height
            self.values = values
        }

        init(_ image: DecodedImage) {
            width = image.width
            height = image.height
            values = (0..<image.height).flatMap { y in
                (0..<image.width).map { x in (image.baseAddress + y * image.bytesPerRow + x * 4).load(as: UInt32.self) }
            }
        }

        subscript(x: Int, y: Int) -> UInt32 { values[y * width + x] }

        /// Turned as an `irot` of `quarterTurns` (each 90° anticlockwise), then mirrored as an
        /// `imir` of `axis` (0: top and bottom exchanged, 1: left and right), per ISO/IEC 23008-12.
        func transformed(quarterTurns: Int, mirror axis: Int?) -> Pixels {
            var result = self
            for _ in 0..<quarterTurns {
                let old = result
                // Anticlockwise: the old top-right corner becomes the top-left one.
                result = Pixels(
                    width: old.height, height: old.width,
                    values: (0..<old.width).flatMap { y in
                        (0..<old.height).map { x in old[old.width - 1 - y, x] }
                    })
            }
            if let axis {
                let old = result
                result.values = (0..<old.height).flatMap { y in
                    (0..<old.width).map { x in axis == 0 ? old[x, old.height - 1 - y] : old[old.width - 1 - x, y] }
                }
            }
            return result
        }

        /// The rectangle at (`x`, `y`) of `width × height`.
        func cropped(x: Int, y: Int, width: Int, height: Int) -> Pixels {
            Pixels(width: width, height: height, values: (y..<(y + height)).flatMap { row in (x..<(x + width)).map { self[$0, row] } })
        }
    }

    /// Every `irot` (0–3 quarter turns) with no `imir`, each mirror axis: the eight orientations, each more than once.
    static let turns: [(Int, Int?)] = (0..<4).flatMap { turns in [(turns, nil), (turns, 0), (turns, 1)] }

    @Test(arguments: turns)
    func rotationAndMirroringAreApplied(quarterTurns: Int, axis: Int?) throws {
        // Lossless AVIF (4:4:4, identity matrix): the pixels come back exactly.
        let source = try Files.sourcePNG("coffee", 150, 100)
        var options = ["-l", "--irot", "\(quarterTurns)"]
        if let axis { options += ["--imir", "\(axis)"] }
        let avif = try Files.avifenc("coffee-irot\(quarterTurns)-imir\(axis.map(String.init) ?? "none").avif", source: source, options)
        let expected = Pixels(try ImageDecoder.decode(contentsOf: source)).transformed(quarterTurns: quarterTurns, mirror: axis)
        let info = try ImageDecoder.info(try Files.bytes(avif))
        #expect(info.width == expected.width && info.height == expected.height && info.orientation == .up)
        for applyOrientation in [true, false] {  // libheif applies the file's transformations either way
            let decoded = try Self.decode(avif, DecodingOptions(applyOrientation: applyOrientation))
            #expect(Pixels(decoded) == expected, "irot \(quarterTurns), imir \(axis.map(String.init) ?? "none")")
        }
    }

    @Test func theCleanApertureCropsBeforeTheRotation() throws {
        let source = try Files.sourcePNG("coffee", 150, 100)
        let original = Pixels(try ImageDecoder.decode(contentsOf: source))
        let cropped = try Files.avifenc("coffee-crop.avif", source: source, ["-l", "--crop", "20,10,96,64"])
        #expect(Pixels(try Self.decode(cropped)) == original.cropped(x: 20, y: 10, width: 96, height: 64))
        let turned = try Files.avifenc("coffee-crop-irot1.avif", source: source, ["-l", "--crop", "20,10,96,64", "--irot", "1"])
        #expect(try ImageDecoder.info(try Files.bytes(turned)).width == 64)
        #expect(
            Pixels(try Self.decode(turned))
                == original.cropped(x: 20, y: 10, width: 96, height: 64).transformed(quarterTurns: 1, mirror: nil))
    }

    // MARK: Alpha, bit depths, grids

    /// PSNR of the alpha channels of two bitmaps of one size.
    static func alphaPSNR(_ a: DecodedImage, _ b: DecodedImage) -> Double {
        var squared = 0.0
        for y in 0..<a.height {
            for x in 0..<a.width {
                let alphaA: UInt8 = (a.baseAddress + y * a.bytesPerRow + 4 * x + 3).load(as: UInt8.self)
                let alphaB: UInt8 = (b.baseAddress + y * b.bytesPerRow + 4 * x + 3).load(as: UInt8.self)
                let d = Double(Int(alphaA) - Int(alphaB))
                squared += d * d
            }
        }
        let mse = squared / Double(a.width * a.height)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    @Test(arguments: ["alpha.heic", "alpha.avif", "alpha-avifenc.avif", "alpha-premultiplied.avif"])
    func alphaIsKept(name: String) throws {
        let source = try Files.sourcePNG("rocket", 160, 107, alpha: true)
        let file: String
        let reference: DecodedImage
        switch name {
        case "alpha-avifenc.avif":
            file = try Files.avifenc(name, source: source, ["--min", "5", "--max", "15", "--minalpha", "0", "--maxalpha", "5"])
            reference = try Files.avifdec(file)
        case "alpha-premultiplied.avif":
            // The colour stored premultiplied (and the file says so); avifdec's PNG is straight.
            file = try Files.avifenc(name, source: source, ["-p", "--min", "5", "--max", "15", "--minalpha", "0", "--maxalpha", "5"])
            reference = try Files.avifdec(file)
        default:
            file = try Files.heifEnc(name, source: source, ["-q", "90"])
            reference = name.hasSuffix(".heic") ? try Files.heifConvert(file) : try Files.avifdec(file)
        }
        let info = try ImageDecoder.info(try Files.bytes(file))
        #expect(info.hasAlpha)
        let decoded = try Self.decode(file)
        #expect(decoded.pixelFormat == .bgra32Premultiplied)
        Self.expectClose(decoded, reference, "\(name): colour, premultiplied, against its encoder's decoder")
        #expect(Self.alphaPSNR(decoded, reference) >= 38, "\(name): alpha PSNR \(Self.alphaPSNR(decoded, reference)) dB")
        // And against the image encoded: colour over transparency is where a wrongly
        // (un)premultiplied decode shows.
        let original = try ImageDecoder.decode(contentsOf: source)
        Self.expectClose(decoded, original, "\(name): against the image encoded", atLeast: 30)
        #expect(Self.alphaPSNR(decoded, original) >= 30)
    }

    // heif-enc -b 10 aborts in aom (libheif 1.15 hands it 10-bit RGB it cannot take); -b 12 works.
    // 4:4:4 throughout: libheif and libavif upsample 4:2:0 chroma differently (by up to 26 levels
    // at edges), which is not what these tests are about.
    @Test(arguments: [("avifenc", 10), ("avifenc", 12), ("heif-enc", 12)])
    func highBitDepthAVIF(encoder: String, bits: Int) throws {
        let source = try Files.sourcePNG("coffee", 300, 200, sixteenBit: true)
        let avif =
            encoder == "avifenc"
            ? try Files.avifenc("coffee-\(bits)bit-avifenc.avif", source: source, ["-d", "\(bits)", "--min", "5", "--max", "15"])
            : try Files.heifEnc("coffee-\(bits)bit-heif-enc.avif", source: source, ["-b", "\(bits)", "-q", "90", "-p", "chroma=444"])
        let info = try ImageDecoder.info(try Files.bytes(avif))
        #expect(info.bitsPerSample == bits)
        let decoded = try Self.decode(avif)
        // avifdec's 16-bit decode, rounded to 8 bits by the package's PNG decoder.
        let reference = try Files.avifdec(avif, sixteenBit: true)
        Self.expectClose(decoded, reference, "\(encoder) \(bits)-bit: against avifdec -d 16", atLeast: 45)
        // Scaled to 16 bits before the 8-bit rounding: never off by more than the two decoders' arithmetic.
        #expect(PixelComparison.maximumDifference(decoded, reference) <= 3)
    }

    @Test func tenBitHEIC() throws {
        let source = try Files.sourcePNG("coffee", 300, 200, sixteenBit: true)
        let heic = try Files.heifEnc("coffee-10bit.heic", source: source, ["-b", "10", "-q", "90"])
        #expect(try ImageDecoder.info(try Files.bytes(heic)).bitsPerSample == 10)
        let decoded = try Self.decode(heic)
        Self.expectClose(decoded, try Files.heifConvert(heic), "against heif-convert", atLeast: 45)
        Self.expectClose(decoded, try ImageDecoder.decode(contentsOf: source), "against the image encoded", atLeast: 35)
    }

    /// libheif 1.15 mirrors only 8-bit planes and refused these; libavif, which decodes still AVIFs
    /// now, turns and mirrors any depth.
    @Test func tenBitRotationAndMirroringAreApplied() throws {
        let source = try Files.sourcePNG("coffee", 150, 100, sixteenBit: true)
        let original = try ImageDecoder.decode(contentsOf: source)
        let turned = try Files.avifenc("coffee-10bit-irot3.avif", source: source, ["-d", "10", "--irot", "3", "--min", "0", "--max", "5"])
        let decoded = try Self.decode(turned)
        let expected = Pixels(original).transformed(quarterTurns: 3, mirror: nil)
        #expect(decoded.width == expected.width && decoded.height == expected.height)
        let reference = DecodedImage(
            width: expected.width, height: expected.height, pixelFormat: .bgrx32, source: decoded.source, isOrientationApplied: true)
        for (index, value) in expected.values.enumerated() {
            (reference.baseAddress + (index / expected.width) * reference.bytesPerRow + (index % expected.width) * 4).storeBytes(
                of: value, as: UInt32.self)
        }
        Self.expectClose(decoded, reference, "10-bit, irot 3", atLeast: 35)
        let mirrored = try Files.avifenc("coffee-10bit-imir1.avif", source: source, ["-d", "10", "--imir", "1", "--min", "0", "--max", "5"])
        let flipped = try Self.decode(mirrored)
        let expectedFlip = Pixels(original).transformed(quarterTurns: 0, mirror: 1)
        #expect(flipped.width == expectedFlip.width && flipped.height == expectedFlip.height)
        let flipReference = DecodedImage(
            width: expectedFlip.width, height: expectedFlip.height, pixelFormat: .bgrx32, source: flipped.source, isOrientationApplied: true
        )
        for (index, value) in expectedFlip.values.enumerated() {
            (flipReference.baseAddress + (index / expectedFlip.width) * flipReference.bytesPerRow + (index % expectedFlip.width) * 4)
                .storeBytes(of: value, as: UInt32.self)
        }
        Self.expectClose(flipped, flipReference, "10-bit, imir 1", atLeast: 35)
    }

    /// A 4:2:0 AVIF of odd size, many bands of rows tall, is converted in bands: each band's
    /// chroma upsampling must see the rows a whole conversion sees, so the picture is `avifdec`'s
    /// (libavif converting the whole image at once) to the last bit, at full size and turned
    /// (`avifdec` writes the picture as stored: turned here by the test's own transform).
    @Test(arguments: [0, 1])
    func aSubsampledAVIFConvertedInBandsIsAvifdecsPicture(quarterTurns: Int) throws {
        let source = try Files.sourcePNG("coffee", 301, 333)
        let turn = quarterTurns == 0 ? [] : ["--irot", "\(quarterTurns)"]
        let avif = try Files.avifenc(
            "coffee-420-301x333-irot\(quarterTurns).avif", source: source, ["-y", "420", "--min", "20", "--max", "30"] + turn)
        let decoded = try Self.decode(avif)
        let expected = Pixels(try Files.avifdec(avif)).transformed(quarterTurns: quarterTurns, mirror: nil)
        #expect(decoded.width == expected.width && decoded.height == expected.height)
        #expect(Pixels(decoded) == expected)
    }

    @Test func aMonochromeAVIFIsGrey() throws {
        let avif = try Files.avifenc(
            "camera-gray.avif", source: TestData.path("photos/camera-gray.png"), ["-y", "400", "--min", "5", "--max", "15"])
        let decoded = try Self.decode(avif)
        #expect(decoded.pixelFormat == .bgrx32)
        Self.expectClose(decoded, try Files.avifdec(avif), "against avifdec")
        let values = Pixels(decoded).values
        #expect(values.allSatisfy { ($0 & 0xFF) == ($0 >> 8 & 0xFF) && ($0 & 0xFF) == ($0 >> 16 & 0xFF) })
    }

    @Test func gridTilesAreAssembled() throws {
        // avifenc splits the image into a 2 × 2 grid of 4:4:4 tiles.
        let source = try Files.sourcePNG("coffee", 300, 200)
        let grid = try Files.avifenc("coffee-grid.avif", source: source, ["-g", "2x2", "-y", "444", "--min", "5", "--max", "15"])
        let info = try ImageDecoder.info(try Files.bytes(grid))
        #expect(info.width == 300 && info.height == 200)
        let decoded = try Self.decode(grid)
        Self.expectClose(decoded, try Files.avifdec(grid), "against avifdec")
        Self.expectClose(decoded, try ImageDecoder.decode(contentsOf: source), "against the image encoded", atLeast: 30)
    }

    @Test func anAnimatedAVIFDecodesItsPrimaryImageAndCountsItsFrames() throws {
        let first = try Files.sourcePNG("coffee", 150, 100)
        let second = try Files.file("coffee-150x100-inverted.png") { path in
            let image = try Files.photo("coffee", covering: 150, 100)
            for y in 0..<image.height {
                let row = (image.baseAddress + y * image.bytesPerRow).assumingMemoryBound(to: UInt32.self)
                for x in 0..<image.width { row[x] ^= 0x00FF_FFFF }
            }
            try Files.png(image, at: path)
        }
        let animation = try Files.file("animated.avif") { path in
            try Files.run("avifenc", package: "libavif-bin", ["-s", "8", first, second, first, path])
        }
        let bytes = try Files.bytes(animation)
        #expect(bytes.withUnsafeBytes { ImageDecoder.sniffFormat($0) } == .avif)
        let info = try ImageDecoder.info(bytes)
        #expect(info.frameCount == 3)
        let decoded = try Self.decode(animation)
        Self.expectClose(decoded, try Files.avifdec(animation), "the first frame, against avifdec")
    }

    // MARK: Scaled decoding and thumbnails

    @Test func aSmallTargetShrinksTheFullImage() throws {
        let source = try Files.sourcePNG("coffee", 600, 400)
        let heic = try Files.heifEnc("coffee.heic", source: source, ["-q", "80"])
        let decoded = try Self.decode(heic, DecodingOptions(targetSize: PixelSize(width: 100, height: 100)))
        #expect(decoded.width == 150 && decoded.height == 100 && decoded.scaleDenominator == 4)
        #expect(decoded.source.width == 600)
        // The reference decoded whole, then shrunk by the package's PNG decoder (area averages).
        let reference = try ImageDecoder.decode(
            contentsOf: try Files.heifConvertPNG(heic), options: DecodingOptions(targetSize: PixelSize(width: 100, height: 100)))
        Self.expectClose(decoded, reference, "shrunk", atLeast: 40)
    }

    @Test func anEmbeddedThumbnailServesASmallTarget() throws {
        // heif-enc -t 128 embeds a 128 × 84 thumbnail (nearest-neighbour scaled, then coded).
        let source = try Files.sourcePNG("coffee", 600, 400)
        let heic = try Files.heifEnc("coffee-thumb.heic", source: source, ["-q", "80", "-t", "128"])
        let small = try Self.decode(heic, DecodingOptions(targetSize: PixelSize(width: 90, height: 60)))
        #expect(small.width == 90 && small.height == 60)
        #expect(small.source.width == 600 && small.source.height == 400)
        let reference = try ImageDecoder.decode(contentsOf: source, options: DecodingOptions(targetSize: PixelSize(width: 90, height: 60)))
        Self.expectClose(small, reference, "from the thumbnail", atLeast: 24)
    }

    @Test func aThumbnailIsUsedOnlyWhenItCoversTheTargetAndIsTurnedAsTheImage() throws {
        // A photo whose thumbnail is plain red: whichever is decoded shows.
        let photo = try Files.photo("coffee", covering: 240, 160)
        let file = try Files.file("red-thumbnail.avif") {
            try HEIFThumbnailFiles.write(photo, thumbnail: (240, 160), red: true, box: 64, to: $0)
        }
        let turnedFile = try Files.file("turned-red-thumbnail.avif") {
            try HEIFThumbnailFiles.write(photo, thumbnail: (160, 240), red: true, box: 64, to: $0)
        }
        func isRed(_ image: DecodedImage) -> Bool {
            let p = Pixels(image).values
            return p.allSatisfy { ($0 >> 16 & 0xFF) > 200 && ($0 >> 8 & 0xFF) < 60 && ($0 & 0xFF) < 60 }
        }
        // 64 × 42 covers 60 × 40 (the covering size of 240 × 160 for 60 × 36).
        let small = try Self.decode(file, DecodingOptions(targetSize: PixelSize(width: 60, height: 36)))
        #expect(small.width == 60 && small.height == 40)
        #expect(isRed(small), "the thumbnail")
        let larger = try Self.decode(file, DecodingOptions(targetSize: PixelSize(width: 100, height: 60)))
        #expect(larger.width == 100 && !isRed(larger), "a thumbnail smaller than the target is not used")
        #expect(!isRed(try Self.decode(file)))
        let turned = try Self.decode(turnedFile, DecodingOptions(targetSize: PixelSize(width: 30, height: 20)))
        #expect(turned.width == 30 && !isRed(turned), "a thumbnail turned otherwise than its image is not used")
    }

    // MARK: Colour

    /// The ICC profile a JPEG carries in its APP2 segments.
    static func jpegICCProfile(_ bytes: [UInt8]) -> [UInt8] {
        JPEGFiles.segments(bytes).filter { segment in
            segment.marker == 0xE2 && Array(bytes[(segment.offset + 4)..<(segment.offset + 16)]) == Array("ICC_PROFILE\u{0}".utf8)
        }.sorted { bytes[$0.offset + 16] < bytes[$1.offset + 16] }
            .flatMap { bytes[($0.offset + 18)..<($0.offset + $0.length)] }
    }

    @Test func anICCProfileIsReadFromTheFile() throws {
        let jpeg = TestData.path("photos/hubble.jpg")
        let profile = Self.jpegICCProfile(try TestData.bytes("photos/hubble.jpg"))
        #expect(profile.count > 128)
        let heic = try Files.heifEnc("hubble-icc.heic", source: jpeg, ["-q", "60"])
        #expect(try ImageDecoder.info(try Files.bytes(heic)).color == .iccProfile(profile))
        let iccFile = try Files.file("hubble.icc") { try Data(profile).write(to: URL(fileURLWithPath: $0)) }
        let avif = try Files.avifenc("coffee-icc.avif", source: try Files.sourcePNG("coffee", 150, 100), ["--icc", iccFile])
        let bytes = try Files.bytes(avif)
        #expect(try ImageDecoder.info(bytes).color == .iccProfile(profile))
        #expect(try ImageDecoder.decode(bytes).source.color == .iccProfile(profile))
    }

    @Test func nclxCodePointsAreReadFromTheFile() throws {
        let source = try Files.sourcePNG("coffee", 150, 100)
        let p3 = try Files.avifenc("coffee-p3.avif", source: source, ["--cicp", "12/13/6"])
        #expect(try ImageDecoder.info(try Files.bytes(p3)).color == .codePoints(primaries: 12, transfer: 13, matrix: 6, fullRange: true))
        let limited = try Files.avifenc("coffee-2020-limited.avif", source: source, ["--cicp", "9/16/9", "-r", "limited"])
        #expect(
            try ImageDecoder.info(try Files.bytes(limited)).color == .codePoints(primaries: 9, transfer: 16, matrix: 9, fullRange: false))
    }

    // MARK: Damage and limits

    @Test(arguments: ["coffee.heic", "coffee-avifenc.avif"])
    func aTruncatedFileIsRefused(name: String) throws {
        let source = try Files.sourcePNG("coffee", 600, 400)
        let path =
            name.hasSuffix(".heic")
            ? try Files.heifEnc(name, source: source, ["-q", "80"])
            : try Files.avifenc(name, source: source, ["--min", "10", "--max", "20"])
        let bytes = try Files.bytes(path)
        for cut in [20, 200, bytes.count / 10, bytes.count / 2, bytes.count * 9 / 10, bytes.count - 1] {
            for allow in [true, false] {
                let error = try #require(throws: ImageCacheError.self, "cut at \(cut) of \(bytes.count)") {
                    try ImageDecoder.decode(Array(bytes.prefix(cut)), options: DecodingOptions(allowCorruptData: allow))
                }
                // Past the boxes that say where the data is, libheif names the data running out.
                #expect(cut < 400 ? [.truncated, .corruptData].contains(error.code) : error.code == .truncated, "cut at \(cut): \(error)")
            }
            #expect(throws: ImageCacheError.self) { try ImageDecoder.info(Array(bytes.prefix(cut))) }
        }
    }

    @Test func junkAfterAFileTypeBoxIsRefused() throws {
        var rng = SplitMix64(seed: 0x4845_4946)
        let junk = Self.fileType("heic", ["mif1", "heic"]) + (0..<4000).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let error = try #require(throws: ImageCacheError.self) { try ImageDecoder.decode(junk) }
        #expect([.corruptData, .truncated].contains(error.code))
        #expect(throws: ImageCacheError.self) { try ImageDecoder.info(junk) }
    }

    /// `bytes` with every `ispe` property set to `width × height`.
    static func withImageSize(_ bytes: [UInt8], _ width: UInt32, _ height: UInt32) -> [UInt8] {
        var edited = bytes
        let marker = Array("ispe".utf8)
        for at in 0..<(bytes.count - 16) where Array(bytes[at..<(at + 4)]) == marker {
            for (offset, value) in [(at + 8, width), (at + 12, height)] {
                for i in 0..<4 { edited[offset + i] = UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32(i))) }
            }
        }
        return edited
    }

    @Test func aDimensionBombIsRefusedBeforeDecoding() throws {
        let source = try Files.sourcePNG("coffee", 600, 400)
        let bytes = try Files.bytes(try Files.heifEnc("coffee.heic", source: source, ["-q", "80"]))
        // Over libheif's 32768 a side: refused as the file is read, by info as well.
        let huge = Self.withImageSize(bytes, 60_000, 60_000)
        #expect(try #require(throws: ImageCacheError.self) { try ImageDecoder.decode(huge) }.code == .dimensionsTooLarge)
        #expect(try #require(throws: ImageCacheError.self) { try ImageDecoder.info(huge) }.code == .dimensionsTooLarge)
        // 30000 × 30000 passes libheif's limit but not the pixel limit, which is checked before decoding.
        let large = Self.withImageSize(bytes, 30_000, 30_000)
        #expect(try ImageDecoder.info(large).width == 30_000)
        let error = try #require(throws: ImageCacheError.self) { try ImageDecoder.decode(large) }
        #expect(error.code == .dimensionsTooLarge && error.message.contains("30000×30000"))
        // The real size over a small limit.
        #expect(
            try #require(throws: ImageCacheError.self) {
                try ImageDecoder.decode(bytes, options: DecodingOptions(maximumPixelCount: 100_000))
            }.code == .dimensionsTooLarge)
        #expect(
            try #require(throws: ImageCacheError.self) { try ImageDecoder.decode(bytes, options: DecodingOptions(maximumPixelCount: 500)) }
                .code == .dimensionsTooLarge)
    }

    @Test func corruptCodedDataIsDecodedOrRefusedButNeverCrashes() throws {
        // libheif 1.15 decodes damaged HEVC or AV1 data to whatever the codec makes of it,
        // without an error: that cannot be told from a real picture. It must never crash.
        let source = try Files.sourcePNG("coffee", 600, 400)
        for path in [
            try Files.heifEnc("coffee.heic", source: source, ["-q", "80"]),
            try Files.avifenc("coffee-avifenc.avif", source: source, ["--min", "10", "--max", "20"])
        ] {
            var bytes = try Files.bytes(path)
            var rng = SplitMix64(seed: 7)
            for at in stride(from: bytes.count / 2, to: bytes.count, by: 97) { bytes[at] = UInt8.random(in: 0...255, using: &rng) }
            do {
                let image = try ImageDecoder.decode(bytes)
                #expect(image.width == 600 && image.height == 400)
            } catch is ImageCacheError {}
        }
    }

    /// An AV1 sequence header whose colour primaries (99) no standard defines, in a file whose
    /// `colr` box (nclx) says sRGB: the box is the authority (MIAF; libavif and Chromium read it
    /// so), and the picture is the original's, strict decodes too. (libheif 1.15 warned, and its
    /// strict mode leaked the picture, which the Address Sanitizer run reported.)
    @Test func unknownColourPrimariesInTheAV1StreamGiveWayToTheColrBox() throws {
        let path = try Files.avifenc("cicp-99.avif", source: try Files.sourcePNG("coffee", 64, 64), ["-y", "444"])
        var bytes = try Files.bytes(path)
        let original = try ImageDecoder.decode(bytes, options: DecodingOptions(allowCorruptData: false))
        #expect(original.warnings.isEmpty)
        try AV1SequenceHeader.setColourPrimaries(99, in: &bytes)
        let image = try ImageDecoder.decode(bytes, options: DecodingOptions(allowCorruptData: false))
        #expect(image.width == original.width && image.height == original.height)
        #expect(image.warnings.isEmpty, "\(image.warnings)")
        #expect(Pixels(image) == Pixels(original))
    }

    // MARK: The paths tile pyramids and budgets use

    @Test(arguments: ["coffee.heic", "coffee-irot1-imir1.avif", "alpha.avif"])
    func theRowDecoderGivesTheDecodersPixels(name: String) throws {
        let path: String
        switch name {
        case "coffee.heic": path = try Files.heifEnc(name, source: try Files.sourcePNG("coffee", 600, 400), ["-q", "80"])
        case "alpha.avif": path = try Files.heifEnc(name, source: try Files.sourcePNG("rocket", 160, 107, alpha: true), ["-q", "90"])
        default: path = try Files.avifenc(name, source: try Files.sourcePNG("coffee", 150, 100), ["-l", "--irot", "1", "--imir", "1"])
        }
        let bytes = try Files.bytes(path)
        let whole = try ImageDecoder.decode(bytes, options: DecodingOptions(applyOrientation: false))
        let streamed = try RowStreaming.decode(bytes, chunkSize: 4096)
        #expect(streamed.header.width == whole.width && streamed.header.height == whole.height)
        #expect(streamed.header.hasAlpha == (whole.pixelFormat == .bgra32Premultiplied))
        #expect(streamed.pixels == Pixels(whole).values.flatMap { withUnsafeBytes(of: $0.littleEndian) { Array($0) } })
    }

    @Test func theMemoryEstimateCoversTheDecode() throws {
        let source = try Files.sourcePNG("coffee", 600, 400)
        let heic = try Files.heifEnc("coffee-thumb.heic", source: source, ["-q", "80", "-t", "128"])
        let full = try ImageDecoder.estimatedMemory(ofFileAt: heic)
        #expect(full.info.width == 600 && full.outputBytes == 600 * 400 * 4)
        #expect(full.workingBytes >= 600 * 400 * 6, "the codec's planes, libheif's copy of them and its RGB planes")
        #expect(full.encodedBytes == (try Files.bytes(heic)).count)
        let small = try ImageDecoder.estimatedMemory(ofFileAt: heic, options: DecodingOptions(targetSize: PixelSize(width: 90, height: 60)))
        #expect(small.outputBytes == 90 * 60 * 4)
        let fixed = MemoryEstimator.fixedOverhead
        #expect(small.workingBytes - fixed < (full.workingBytes - fixed) / 4, "the thumbnail is decoded, not the image")
    }
}
