import FICTestSupport
import Foundation
@testable import ImageCodec
import Testing

/// AVIF image sequences made at test time by avifenc from the bundled photos: every frame
/// against `avifdec --index N` and against the frame encoded, the durations and frame count
/// against what avifenc was given, lossless sequences turned, mirrored and cropped by their
/// track against the frames encoded, the limits, files cut short.
@Suite(.serialized, .enabled(if: AVIFSequenceFiles.available, AVIFSequenceFiles.missing))
struct AVIFAnimationTests {
    typealias Files = AVIFSequenceFiles

    /// Four photos of 64 × 48, each kind of samples: the frame count, the durations given to
    /// avifenc, loop forever; each frame against avifdec's decode of it, and against the frame
    /// encoded (which must be the closest of the four: the frames come in order).
    @Test(arguments: AVIFSequenceFiles.Kind.allCases)
    func everyFrameMatchesAvifdecAndTheFrameEncoded(_ kind: AVIFSequenceFiles.Kind) throws {
        let path = try Files.standard(kind)
        let (info, frames) = try Files.decode(path)
        #expect(info.format == .avif && info.width == Files.width && info.height == Files.height)
        #expect(info.frameCount == Files.photos.count && frames.count == Files.photos.count)
        #expect(info.durations == Files.durations && frames.map(\.durationMs) == Files.durations)
        #expect(info.loopCount == 0, "libavif 0.11 reads no repetition count: forever, as browsers play it")
        let sources = try Files.photos.map { try ImageDecoder.decode(contentsOf: try Files.frame($0, kind)) }
        let deep = kind == .tenBit || kind == .twelveBit
        for frame in frames {
            #expect(frame.image.width == info.width && frame.image.height == info.height)
            #expect(frame.image.pixelFormat == .bgra32Premultiplied)
            // The same libavif YUV → RGB on the same dav1d planes: only the last rounding differs
            // (16-bit samples to 8 bits, premultiplying), each done by the package in both cases
            // (avifdec's PNG is read back by the package's PNG decoder), so at most one level.
            let reference = try HEIFTestFiles.avifdec(path, sixteenBit: deep, index: frame.index)
            let difference = PixelComparison.maximumDifference(frame.image, reference)
            let psnr = PixelComparison.psnr(frame.image, reference)
            #expect(difference <= 1, "\(kind) frame \(frame.index): off by \(difference) from avifdec (PSNR \(psnr) dB)")
            // Lossy coding (quantisers 5 to 15): at least 36 dB against the frame encoded (measured
            // 40–50), and at least 6 dB further from every other frame.
            let own = PixelComparison.psnr(frame.image, sources[frame.index])
            #expect(own >= 36, "\(kind) frame \(frame.index): PSNR \(own) dB against the frame encoded")
            for (index, other) in sources.enumerated() where index != frame.index {
                #expect(PixelComparison.psnr(frame.image, other) < own - 6, "\(kind) frame \(frame.index) looks like frame \(index)")
            }
            if kind == .alpha {
                // avifenc codes alpha losslessly by default: it comes back exactly.
                #expect(HEIFTests.alphaPSNR(frame.image, sources[frame.index]) == .infinity, "frame \(frame.index): alpha")
            }
            print("AVIF sequence \(kind) frame \(frame.index): PSNR \(psnr) dB against avifdec (max difference \(difference)), \(own) dB against the frame encoded")
        }
    }

    /// A sequence's first frame is its still image too (avifenc stores it as the primary item),
    /// which the still decoder reads through libheif: the two libraries' decodes agree.
    @Test func theFirstFrameIsTheStillImageLibheifDecodes() throws {
        let path = try Files.standard(.alpha)
        let still = try ImageDecoder.decode(contentsOf: path)
        let first = try #require(try Files.decode(path).frames.first)
        let psnr = PixelComparison.psnr(first.image, still)
        #expect(psnr >= 45, "PSNR \(psnr) dB between libavif's first frame and libheif's still image")
        #expect(HEIFTests.alphaPSNR(first.image, still) == .infinity)
    }

    /// A timescale of 30 per second: 1, 2 and 3 units are 33⅓, 66⅔ and 100 ms, rounded.
    @Test func durationsAreTheTimescalesRoundedToMilliseconds() throws {
        let frames = try Files.photos.prefix(3).map { try Files.frame($0, .opaque) }
        let path = try Files.sequence("timescale30.avif", zip(frames, [1, 2, 3]).map { ($0, $1) }, timescale: 30)
        #expect(try Files.decode(path).info.durations == [33, 67, 100])
    }

    /// Lossless sequences (4:4:4, identity matrix: the pixels come back exactly) with every
    /// `irot` and `imir`: each frame is the frame encoded, turned as ISO/IEC 23008-12 says.
    @Test(arguments: HEIFTests.turns)
    func framesAreTurnedByTheTracksIrotAndImir(quarterTurns: Int, axis: Int?) throws {
        let sources = try ["coffee", "rocket"].map { try Files.png($0, 48, 32) }
        var options = ["-l", "--irot", "\(quarterTurns)"]
        if let axis { options += ["--imir", "\(axis)"] }
        let path = try Files.sequence("turned-irot\(quarterTurns)-imir\(axis.map(String.init) ?? "none").avif", sources.map { ($0, 50) }, options: options)
        let (info, frames) = try Files.decode(path)
        #expect(frames.count == 2)
        for (frame, source) in zip(frames, sources) {
            let expected = HEIFTests.Pixels(try ImageDecoder.decode(contentsOf: source)).transformed(quarterTurns: quarterTurns, mirror: axis)
            #expect(info.width == expected.width && info.height == expected.height)
            let same = HEIFTests.Pixels(frame.image) == expected
            #expect(same, "frame \(frame.index), irot \(quarterTurns), imir \(axis.map(String.init) ?? "none")")
        }
    }

    /// The track's clean aperture crops each frame before it is turned.
    @Test(arguments: [0, 1]) func theCleanApertureCropsBeforeTheRotation(quarterTurns: Int) throws {
        let sources = try ["chelsea", "hubble"].map { try Files.png($0, 64, 48) }
        let path = try Files.sequence("cropped-irot\(quarterTurns).avif", sources.map { ($0, 50) },
                                      options: ["-l", "--crop", "8,4,40,30", "--irot", "\(quarterTurns)"])
        let (info, frames) = try Files.decode(path)
        #expect(frames.count == 2)
        #expect(info.width == (quarterTurns == 0 ? 40 : 30) && info.height == (quarterTurns == 0 ? 30 : 40))
        for (frame, source) in zip(frames, sources) {
            let expected = HEIFTests.Pixels(try ImageDecoder.decode(contentsOf: source)).cropped(x: 8, y: 4, width: 40, height: 30)
                .transformed(quarterTurns: quarterTurns, mirror: nil)
            let same = HEIFTests.Pixels(frame.image) == expected
            #expect(same, "frame \(frame.index)")
        }
    }

    /// A track with an ICC profile (Adobe RGB, assigned to lossless frames): every frame is
    /// converted to sRGB, as LittleCMS converts the frame encoded (vips icc_transform), and is
    /// closer to that than the samples taken as sRGB.
    @Test(.enabled(if: ColorTools.available, ColorTools.missing))
    func theTracksICCProfileIsConvertedToSRGB() throws {
        let sources = try ["rocket", "coffee"].map { try Files.png($0, 48, 32, profile: ColorTools.adobeRGB) }
        let path = try Files.sequence("adobe-rgb.avif", sources.map { ($0, 50) }, options: ["-l"])
        let (info, frames) = try Files.decode(path)
        #expect(frames.count == 2)
        for (frame, source) in zip(frames, sources) {
            let reference = try ColorTools.sRGBReference(of: source, in: HEIFTestFiles.folder)
            let samples = ColorFixtures.rgb(ofBGRA: ColorDecodeTests.packed(frame.image))
            let psnr = PixelComparison.psnr(samples: samples, reference)
            let untagged = PixelComparison.psnr(samples: samples, try ColorTools.rawPixels(of: source, in: HEIFTestFiles.folder))
            print("AVIF sequence in Adobe RGB, frame \(frame.index): \(psnr) dB against LittleCMS, \(untagged) dB against its samples as they are")
            #expect(psnr >= 38 && psnr > untagged, "frame \(frame.index): \(psnr) dB against LittleCMS, \(untagged) dB unconverted")
        }
        #expect(info.width == 48 && info.height == 32)
    }

    /// The sniff says a sequence may be animated, and a still AVIF (one image, brand `avif`) is
    /// not: it stays a still image of one frame that plays once, decoded by libheif.
    @Test func aSequenceMayBeAnimatedAndAStillAVIFIsOneFrame() throws {
        let sequence = try HEIFTestFiles.bytes(try Files.standard(.opaque))
        #expect(sequence.withUnsafeBytes { AnimatedImageDecoder.mayBeAnimated($0) })
        #expect(sequence.prefix(64).withUnsafeBytes { AnimatedImageDecoder.mayBeAnimated(UnsafeRawBufferPointer($0)) }, "the ftyp box is enough")
        let stillPath = try HEIFTestFiles.avifenc("still-chelsea.avif", source: try Files.frame("chelsea", .opaque))
        let still = try HEIFTestFiles.bytes(stillPath)
        #expect(!still.withUnsafeBytes { AnimatedImageDecoder.mayBeAnimated($0) })
        let (info, frames) = try AnimationFiles.decode(still)
        #expect(info.format == .avif && info.frameCount == 1 && info.loopCount == 1 && frames.count == 1)
        #expect(PixelComparison.identical(frames[0].image, try ImageDecoder.decode(still)))
    }

    /// Over a limit, refused while the structure is read, before any frame is decoded: more
    /// frames than `maximumFrames` (libavif's `imageCountLimit`), more pixels in all than
    /// `maximumAnimationPixels`, a frame over `maximumPixelCount` (libavif's `imageSizeLimit`).
    /// At the limits exactly, every frame is decoded.
    @Test func tooManyFramesOrPixelsAreRefusedBeforeDecoding() throws {
        let bytes = try HEIFTestFiles.bytes(try Files.standard(.alpha))
        let pixels = Files.width * Files.height, count = Files.photos.count
        for options in [DecodingOptions(maximumFrames: count - 1), DecodingOptions(maximumAnimationPixels: pixels * count - 1),
                        DecodingOptions(maximumPixelCount: pixels - 1)] {
            let (frames, error) = AnimationFiles.decodeUntilError(bytes, options: options)
            #expect(frames.isEmpty && error?.code == .dimensionsTooLarge, "\(options): \(String(describing: error))")
        }
        let exact = DecodingOptions(maximumPixelCount: pixels, maximumFrames: count, maximumAnimationPixels: pixels * count)
        #expect(try AnimationFiles.decode(bytes, options: exact).frames.count == count)
    }

    /// Cut anywhere after its header: the frames whose data lies before the cut, each the same as
    /// from the whole file, never fewer for a later cut, then `.truncated`; cut one byte short,
    /// all but the last. Cut inside its header (the `moov` box): `.truncated` and no frame.
    @Test func aFileCutShortDeliversTheFramesBeforeTheCut() throws {
        let bytes = try HEIFTestFiles.bytes(try Files.standard(.alpha))
        let whole = try AnimationFiles.decode(bytes)
        let boxes = Self.topLevelBoxes(bytes)
        let movie = try #require(boxes.first { $0.type == "moov" }), data = try #require(boxes.first { $0.type == "mdat" })
        #expect(movie.range.upperBound <= data.range.lowerBound, "avifenc writes the header before the data")

        for cut in stride(from: movie.range.lowerBound + 8, to: movie.range.upperBound, by: 97) {
            let (frames, error) = AnimationFiles.decodeUntilError(Array(bytes.prefix(cut)))
            #expect(frames.isEmpty && error?.code == .truncated, "cut at \(cut) in the header: \(String(describing: error))")
        }
        var delivered = 0
        for cut in Array(stride(from: data.range.lowerBound + 8, to: bytes.count, by: 61)) + [bytes.count - 1] {
            let (frames, error) = AnimationFiles.decodeUntilError(Array(bytes.prefix(cut)))
            #expect(error?.code == .truncated, "cut at \(cut): \(String(describing: error))")
            #expect(frames.count >= delivered && frames.count < whole.frames.count, "cut at \(cut): \(frames.count) frames")
            delivered = frames.count
            for frame in frames {
                #expect(PixelComparison.identical(frame.image, whole.frames[frame.index].image), "cut at \(cut), frame \(frame.index)")
            }
        }
        #expect(delivered == whole.frames.count - 1, "one byte short: all but the last frame")
    }

    /// The top-level boxes of an ISO BMFF file: their types and where they lie.
    static func topLevelBoxes(_ bytes: [UInt8]) -> [(type: String, range: Range<Int>)] {
        var boxes: [(type: String, range: Range<Int>)] = []
        var offset = 0
        while offset + 8 <= bytes.count {
            let size = bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            guard size >= 8, offset + size <= bytes.count else { break }
            boxes.append((String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self), offset..<(offset + size)))
            offset += size
        }
        return boxes
    }
}

/// Which `ftyp` brands make an AVIF a sequence for ``AnimatedImageDecoder``: libavif's own rule
/// (the major brand `avis`, or `avis` compatible under a major brand other than `avif`), read
/// from hostile bytes without reading past them.
@Suite struct AVIFSequenceBrandTests {
    func mayBeAnimated(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { AnimatedImageDecoder.mayBeAnimated($0) }
    }

    @Test func theBrandsDecide() {
        #expect(mayBeAnimated(HEIFTests.fileType("avis", ["avif", "avis", "msf1", "iso8", "mif1", "miaf"])), "avifenc's sequences")
        #expect(mayBeAnimated(HEIFTests.fileType("msf1", ["avis"])), "a neutral major brand, avis compatible")
        #expect(!mayBeAnimated(HEIFTests.fileType("avif", ["avis", "mif1"])), "the major brand asks for the still image")
        #expect(!mayBeAnimated(HEIFTests.fileType("avif", ["mif1", "miaf"])), "a still AVIF")
        #expect(!mayBeAnimated(HEIFTests.fileType("heic", ["avis", "mif1"])), "an HEVC major brand")
        #expect(!mayBeAnimated(HEIFTests.fileType("msf1", ["hevs"])), "an HEVC sequence")
    }

    @Test func aDamagedFileTypeBoxIsNotASequence() {
        let box = HEIFTests.fileType("avis", ["avif", "msf1"])
        var oversized = box
        oversized[3] = UInt8(box.count + 4)  // claims more bytes than there are
        #expect(!mayBeAnimated(oversized))
        #expect(!mayBeAnimated(Array(box.prefix(12))), "cut inside the box")
        var undersized = box
        undersized[3] = 8  // shorter than a brand
        #expect(!mayBeAnimated(undersized))
        #expect(!mayBeAnimated([]))
    }
}
