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
            print(
                "AVIF sequence \(kind) frame \(frame.index): PSNR \(psnr) dB against avifdec (max difference \(difference)), \(own) dB against the frame encoded"
            )
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
        let path = try Files.sequence(
            "turned-irot\(quarterTurns)-imir\(axis.map(String.init) ?? "none").avif", sources.map { ($0, 50) }, options: options)
        let (info, frames) = try Files.decode(path)
        #expect(frames.count == 2)
        for (frame, source) in zip(frames, sources) {
            let expected = HEIFTests.Pixels(try ImageDecoder.decode(contentsOf: source)).transformed(
                quarterTurns: quarterTurns, mirror: axis)
            #expect(info.width == expected.width && info.height == expected.height)
            let same = HEIFTests.Pixels(frame.image) == expected
            #expect(same, "frame \(frame.index), irot \(quarterTurns), imir \(axis.map(String.init) ?? "none")")
        }
    }

    /// The track's clean aperture crops each frame before it is turned.
    @Test(arguments: [0, 1]) func theCleanApertureCropsBeforeTheRotation(quarterTurns: Int) throws {
        let sources = try ["chelsea", "hubble"].map { try Files.png($0, 64, 48) }
        let path = try Files.sequence(
            "cropped-irot\(quarterTurns).avif", sources.map { ($0, 50) },
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
            let samples = ColorFixtures.rgb(ofBGRA: PixelComparison.packed(frame.image))
            let psnr = PixelComparison.psnr(samples: samples, reference)
            let untagged = PixelComparison.psnr(samples: samples, try ColorTools.rawPixels(of: source, in: HEIFTestFiles.folder))
            print(
                "AVIF sequence in Adobe RGB, frame \(frame.index): \(psnr) dB against LittleCMS, \(untagged) dB against its samples as they are"
            )
            #expect(psnr >= 38 && psnr > untagged, "frame \(frame.index): \(psnr) dB against LittleCMS, \(untagged) dB unconverted")
        }
        #expect(info.width == 48 && info.height == 32)
    }

    /// The sniff says a sequence may be animated, and a still AVIF (one image, brand `avif`) is
    /// not: it stays a still image of one frame that plays once, decoded by libheif.
    @Test func aSequenceMayBeAnimatedAndAStillAVIFIsOneFrame() throws {
        let sequence = try HEIFTestFiles.bytes(try Files.standard(.opaque))
        #expect(sequence.withUnsafeBytes { AnimatedImageDecoder.mayBeAnimated($0) })
        #expect(
            sequence.prefix(64).withUnsafeBytes { AnimatedImageDecoder.mayBeAnimated(UnsafeRawBufferPointer($0)) }, "the ftyp box is enough"
        )
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
        for options in [
            DecodingOptions(maximumFrames: count - 1), DecodingOptions(maximumAnimationPixels: pixels * count - 1),
            DecodingOptions(maximumPixelCount: pixels - 1)
        ] {
            let (frames, error) = AnimationFiles.decodeUntilError(bytes, options: options)
            #expect(frames.isEmpty && error?.code == .dimensionsTooLarge, "\(options): \(String(describing: error))")
        }
        // At the limits exactly, every frame is decoded. The pixels, and libavif's steps through
        // the timing tables: 8 entries (every duration differs, in the colour and the alpha
        // track), sample i found after i + 1 steps by each of the 4 − i frames from it: 4 + 6 + 6 + 4.
        #expect(bytes.withUnsafeBytes { HEIFBoxes.timeToSampleEntryCount($0) } == 2 * count)
        let exact = DecodingOptions(maximumPixelCount: pixels, maximumFrames: count, maximumAnimationPixels: pixels * count + 20)
        #expect(try AnimationFiles.decode(bytes, options: exact).frames.count == count)
        let (frames, error) = AnimationFiles.decodeUntilError(bytes, options: DecodingOptions(maximumAnimationPixels: pixels * count + 19))
        #expect(frames.isEmpty && error?.code == .dimensionsTooLarge, "\(String(describing: error))")
    }

    /// libavif 0.11 walks the timing table from its start to time each frame: a crafted table of
    /// 10,000 frames with as many entries (160 KB) kept it busy for 88 s. Such a file is refused
    /// before decoding; the same frames with one entry are not (their data is not there, so the
    /// first frame after the real ones ends the animation as a file cut short).
    @Test func aTimingTableTooCostlyToWalkIsRefused() throws {
        let bytes = try HEIFTestFiles.bytes(try Files.standard(.opaque))
        let costly = try Self.craftedSampleTable(bytes, frames: 10_000, timingEntries: 10_000)
        #expect(costly.withUnsafeBytes { HEIFBoxes.timeToSampleEntryCount($0) } == 10_000)
        let refused = AnimationFiles.decodeUntilError(costly)
        #expect(refused.frames.isEmpty && refused.error?.code == .dimensionsTooLarge, "\(String(describing: refused.error))")

        let cheap = try Self.craftedSampleTable(bytes, frames: 10_000, timingEntries: 1)
        let decoder = try AnimatedImageDecoder(cheap)
        #expect(decoder.info.frameCount == 10_000 && decoder.info.durations.allSatisfy { $0 == 10 })
        #expect(throws: ImageCacheError.self) { try decoder.forEachFrame { _ in } }
    }

    /// `bytes` (a sequence of one track whose samples lie in one chunk) with that track's sample
    /// table rewritten: `frames` samples of the first one's size, one after another, in one chunk,
    /// timed by `timingEntries` entries of 10 ms (the last one covering the rest).
    static func craftedSampleTable(_ bytes: [UInt8], frames: Int, timingEntries: Int) throws -> [UInt8] {
        func u32(_ value: Int) -> [UInt8] {
            [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
        }
        func word(_ at: Int) -> Int { bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        func rebuilt(_ range: Range<Int>) throws -> [UInt8] {
            var out: [UInt8] = []
            for (type, whole) in Self.boxes(bytes, in: range) {
                let payload = (whole.lowerBound + 8)..<whole.upperBound
                switch type {
                case "moov", "trak", "mdia", "minf", "stbl":
                    out += Self.box(type, try rebuilt(payload))
                case "stsz":  // version and flags, a size for every sample (0) or the sizes
                    let size = word(payload.lowerBound + 4) != 0 ? word(payload.lowerBound + 4) : word(payload.lowerBound + 12)
                    out += Self.box(type, u32(0) + u32(size) + u32(frames))
                case "stsc":
                    out += Self.box(type, u32(0) + u32(1) + u32(1) + u32(frames) + u32(1))
                case "stco":
                    out += Self.box(type, u32(0) + u32(1) + u32(word(payload.lowerBound + 8)))
                case "stts":
                    let runs = (0..<timingEntries).flatMap { u32($0 == timingEntries - 1 ? frames - timingEntries + 1 : 1) + u32(10) }
                    out += Self.box(type, u32(0) + u32(timingEntries) + runs)
                default:
                    out += Array(bytes[whole])
                }
            }
            return out
        }
        // The movie after the data, so that the data's offsets stay as they were.
        let top = Self.boxes(bytes, in: 0..<bytes.count)
        let movie = try #require(top.first { $0.type == "moov" })
        return top.filter { $0.type != "moov" }.flatMap { Array(bytes[$0.range]) } + (try rebuilt(movie.range))
    }

    /// `type` with `payload`.
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        let size = 8 + payload.count
        return [UInt8(size >> 24 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + Array(type.utf8)
            + payload
    }

    /// Cut anywhere after its header: the frames whose data lies before the cut, each the same as
    /// from the whole file, never fewer for a later cut, then `.truncated`; cut one byte short,
    /// all but the last. Cut inside its header (the `moov` box): `.truncated` and no frame.
    @Test func aFileCutShortDeliversTheFramesBeforeTheCut() throws {
        let bytes = try HEIFTestFiles.bytes(try Files.standard(.alpha))
        let whole = try AnimationFiles.decode(bytes)
        let boxes = Self.boxes(bytes, in: 0..<bytes.count)
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

    /// The boxes of an ISO BMFF file within `range` (its top level: all of it): their types and
    /// where they lie, headers included.
    static func boxes(_ bytes: [UInt8], in range: Range<Int>) -> [(type: String, range: Range<Int>)] {
        var boxes: [(type: String, range: Range<Int>)] = []
        var offset = range.lowerBound
        while offset + 8 <= range.upperBound {
            let size = bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            guard size >= 8, offset + size <= range.upperBound else { break }
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
