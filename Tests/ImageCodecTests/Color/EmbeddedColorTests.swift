import FICTestSupport
import Foundation
import ImageCodec
import Testing

/// The parsers of colour information: what real writers produce, the odd numbering of ICC
/// pieces other decoders' test suites carry, PNG's order of precedence, WebP's flag.
@Suite struct EmbeddedColorTests {
    static func jpeg(_ bytes: [UInt8]) -> EmbeddedColor { bytes.withUnsafeBytes { EmbeddedColor.jpeg($0) } }
    static func png(_ bytes: [UInt8]) -> EmbeddedColor { bytes.withUnsafeBytes { EmbeddedColor.png($0) } }
    static func webp(_ bytes: [UInt8]) -> EmbeddedColor { bytes.withUnsafeBytes { EmbeddedColor.webp($0) } }

    /// A small JPEG with `segments` placed after SOI.
    static func jpeg(with segments: [[UInt8]]) throws -> [UInt8] {
        let plain = try TestData.bytes("jpeg/odd-17x13.jpg")
        return TestImageBuilder.inserting(segments.flatMap { $0 }, into: plain, at: 2)
    }

    /// An `APP2 ICC_PROFILE` piece.
    static func iccPiece(_ sequence: Int, of count: Int, _ data: [UInt8]) -> [UInt8] {
        TestImageBuilder.appSegment(2, Array("ICC_PROFILE".utf8) + [0, UInt8(sequence), UInt8(count)] + data)
    }

    // MARK: JPEG

    @Test func jpegPiecesOddlyNumbered() throws {
        // jpeg-decoder's (image-rs) test files: 254 one-byte pieces, piece n holding the byte n.
        let order = Self.jpeg(try ExternalTools.bytes(atPath: ColorFixtures.jpegSuite + "/jpeg-decoder__icc_icc_chunk_order.jpeg"))
        #expect(order.description == .iccProfile((1...254).map { UInt8($0) }), "pieces in any order are put in sequence order")
        #expect(order.warnings.isEmpty && order.isComplete)
        for (file, reason) in [
            ("chunk_count_mismatch", "of 250"), ("chunk_double_seq_no", "two pieces"), ("chunk_seq_no_0", "numbered 0"),
            ("missing_chunk", "missing")
        ] {
            let info = Self.jpeg(try ExternalTools.bytes(atPath: ColorFixtures.jpegSuite + "/jpeg-decoder__icc_icc_\(file).jpeg"))
            #expect(info.description == .untagged, "\(file)")
            #expect(info.warnings.count == 1 && info.warnings[0].contains(reason), "\(file): \(info.warnings)")
            #expect(info.isComplete)
        }
        let mozilla = Self.jpeg(
            try ExternalTools.bytes(atPath: ColorFixtures.jpegSuite + "/jpeg-decoder__reftest_mozilla_jpg-srgb-icc.jpg"))
        guard case .iccProfile(let profile) = mozilla.description else {
            Issue.record("no profile in Mozilla's sRGB test JPEG")
            return
        }
        #expect(profile.count > 40 && Array(profile[36..<40]) == Array("acsp".utf8))
    }

    @Test func jpegPiecesReassembled() throws {
        let profile = (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
        let pieces = stride(from: 0, to: profile.count, by: 30_000).map { Array(profile[$0..<min(profile.count, $0 + 30_000)]) }
        // Written backwards, with other markers between.
        let segments = [
            Self.iccPiece(3, of: 3, pieces[2]), TestImageBuilder.appSegment(1, Array("Exif\0\0".utf8)),
            Self.iccPiece(2, of: 3, pieces[1]), Self.iccPiece(1, of: 3, pieces[0])
        ]
        let info = Self.jpeg(try Self.jpeg(with: segments))
        #expect(info.description == .iccProfile(profile) && info.warnings.isEmpty && info.isComplete)
        // 255 pieces, the most a count byte allows.
        let many = (1...255).map { Self.iccPiece($0, of: 255, [UInt8($0), 0xAA]) }
        let manyInfo = Self.jpeg(try Self.jpeg(with: many))
        #expect(manyInfo.description == .iccProfile((1...255).flatMap { [UInt8($0), 0xAA] }))
        // A count of zero, and empty pieces: no profile.
        #expect(Self.jpeg(try Self.jpeg(with: [Self.iccPiece(1, of: 0, [1, 2])])).description == .untagged)
        #expect(Self.jpeg(try Self.jpeg(with: [Self.iccPiece(1, of: 1, [])])).description == .untagged)
        // A marker shorter than the ICC header, or not ICC at all, is not a piece.
        let short = TestImageBuilder.appSegment(2, Array("ICC_PROF".utf8))
        let other = TestImageBuilder.appSegment(2, Array("MPF\0".utf8) + [1, 2, 3])
        #expect(
            Self.jpeg(try Self.jpeg(with: [short, other]))
                == {
                    var e = EmbeddedColor(); e.isComplete = true; return e
                }())
    }

    @Test func jpegAdobeMarker() throws {
        func adobe(_ transform: UInt8) -> [UInt8] {
            TestImageBuilder.appSegment(14, Array("Adobe".utf8) + [0, 100, 0, 0, 0, 0, transform])
        }
        #expect(Self.jpeg(try Self.jpeg(with: [adobe(1)])).adobeTransform == 1)
        #expect(Self.jpeg(try Self.jpeg(with: [adobe(0), adobe(2)])).adobeTransform == 2, "the last marker wins, as in libjpeg")
        #expect(Self.jpeg(try Self.jpeg(with: [TestImageBuilder.appSegment(14, Array("Adobe".utf8) + [0, 100])])).adobeTransform == nil)
        #expect(Self.jpeg(try TestData.bytes("jpeg/odd-17x13.jpg")).adobeTransform == nil)
    }

    @Test func jpegCutShort() throws {
        let profile = (0..<3000).map { UInt8(truncatingIfNeeded: $0) }
        let file = try Self.jpeg(with: [
            Self.iccPiece(1, of: 2, Array(profile.prefix(1500))), Self.iccPiece(2, of: 2, Array(profile.dropFirst(1500)))
        ])
        let scan = try #require(JPEGFiles.scanOffsets(file).first)
        for length in 0...(scan + 2) {
            let info = Self.jpeg(Array(file.prefix(length)))
            #expect(info.isComplete == (length >= scan + 2), "cut at \(length)")
            // Either the whole profile or none: never a part.
            if case .iccProfile(let found) = info.description { #expect(found == profile, "cut at \(length)") }
        }
        // A segment whose length runs past the end.
        let absurd = [0xFF, 0xD8, 0xFF, 0xE2, 0xFF, 0xFF] + Array("ICC_PROFILE".utf8) + [0, 1, 1, 5]
        #expect(Self.jpeg(absurd) == EmbeddedColor())
        #expect(Self.jpeg([0xFF, 0xD8, 0xFF, 0xE2, 0x00, 0x01]) == EmbeddedColor())
    }

    // MARK: PNG

    /// A 1 × 1 grey PNG with `chunks` before its image data.
    static func png(with chunks: [[UInt8]]) -> [UInt8] {
        PNGFiles.png(width: 1, height: 1, bitDepth: 8, colorType: 0, rows: [[128]], extra: chunks)
    }

    static func iccp(_ profile: [UInt8], name: String = "ICC profile") -> [UInt8] {
        PNGFiles.chunk("iCCP", Array(name.utf8) + [0, 0] + PNGFiles.zlibStored(profile))
    }

    static let chrm = PNGFiles.chunk("cHRM", [31270, 32900, 64000, 33000, 30000, 60000, 15000, 6000].flatMap(PNGFiles.bigEndian32))

    @Test func pngPrecedence() throws {
        let profile = (0..<5000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let cicp = PNGFiles.chunk("cICP", [12, 13, 0, 1])
        let srgb = PNGFiles.chunk("sRGB", [0])
        let gama = PNGFiles.chunk("gAMA", PNGFiles.bigEndian32(100_000))
        let p3 = ColorDescription.codePoints(primaries: 12, transfer: 13, matrix: 0, fullRange: true)
        #expect(Self.png(Self.png(with: [gama, Self.chrm, srgb, Self.iccp(profile), cicp])).description == p3, "cICP over everything")
        #expect(Self.png(Self.png(with: [gama, srgb, Self.iccp(profile)])).description == .iccProfile(profile), "iCCP over sRGB and gAMA")
        #expect(Self.png(Self.png(with: [gama, Self.chrm, srgb])).description == .sRGB, "sRGB over gAMA and cHRM")
        #expect(Self.png(Self.png(with: [gama, Self.chrm])).description == .gamma(1, chromaticities: .sRGB))
        #expect(Self.png(Self.png(with: [gama])).description == .gamma(1, chromaticities: nil))
        #expect(Self.png(Self.png(with: [Self.chrm])).description == .gamma(1 / 2.2, chromaticities: .sRGB))
        let plain = Self.png(Self.png(with: []))
        #expect(plain.description == .untagged && plain.isComplete && plain.warnings.isEmpty)
        // Chunks after the image data do not count.
        let late = PNGFiles.inserting(srgb, into: Self.png(with: []), before: "IEND")
        #expect(Self.png(late).description == .untagged)
    }

    @Test func pngDamagedChunksFallThrough() throws {
        let gama = PNGFiles.chunk("gAMA", PNGFiles.bigEndian32(45455))
        var badCRC = Self.iccp([1, 2, 3])
        badCRC[badCRC.count - 1] ^= 1
        let cases: [(String, [UInt8], String)] = [
            ("bad CRC", badCRC, "CRC"),
            ("no name", PNGFiles.chunk("iCCP", [0, 0] + PNGFiles.zlibStored([1, 2, 3])), "name"),
            ("method 1", PNGFiles.chunk("iCCP", Array("x".utf8) + [0, 1] + PNGFiles.zlibStored([1, 2, 3])), "compression method"),
            ("not zlib", PNGFiles.chunk("iCCP", Array("x".utf8) + [0, 0, 1, 2, 3, 4, 5, 6]), "corrupt"),
            (
                "cut zlib",
                PNGFiles.chunk("iCCP", Array("x".utf8) + [0, 0] + PNGFiles.zlibStored([UInt8](repeating: 9, count: 100)).prefix(40)),
                "cut short"
            ),
            ("cICP of YCbCr", PNGFiles.chunk("cICP", [1, 13, 1, 1]), "matrix"),
            ("cICP too long", PNGFiles.chunk("cICP", [1, 13, 0, 1, 0]), "5 bytes")
        ]
        for (name, chunk, reason) in cases {
            let info = Self.png(Self.png(with: [chunk, gama]))
            #expect(info.description == .gamma(0.45455, chromaticities: nil), "\(name): the gamma applies")
            #expect(info.warnings.count == 1 && info.warnings[0].contains(reason), "\(name): \(info.warnings)")
        }
        // A profile that inflates beyond the limit: the zlib data of a large blank PNG's image.
        let blank = [UInt8](repeating: 0, count: 2500 * 2000)
        let encoded = try blank.withUnsafeBytes {
            try PNGEncoder.encode(pixels: $0.baseAddress!, width: 2500, height: 2000, bytesPerRow: 2500, format: .gray8)
        }
        let zlib = PNGFiles.chunks(encoded).filter { $0.type == "IDAT" }.flatMap(\.data)
        #expect(zlib.count < 100_000)
        let bomb = Self.png(Self.png(with: [PNGFiles.chunk("iCCP", Array("bomb".utf8) + [0, 0] + zlib)]))
        #expect(bomb.description == .untagged)
        #expect(bomb.warnings.count == 1 && bomb.warnings[0].contains("4 MiB"), "\(bomb.warnings)")
    }

    @Test func pngCutShort() throws {
        let profile = (0..<2000).map { UInt8(truncatingIfNeeded: $0) }
        let file = Self.png(with: [Self.iccp(profile), PNGFiles.chunk("sRGB", [0])])
        for length in 0..<file.count {
            let info = Self.png(Array(file.prefix(length)))
            if case .iccProfile(let found) = info.description { #expect(found == profile) }
            #expect(!info.isComplete || length > 33 + 12 + 2000, "cut at \(length)")
        }
        // A length field that claims 2 GiB.
        let absurd = PNGFiles.signature + [0x7F, 0xFF, 0xFF, 0xFF] + Array("iCCP".utf8) + [1, 2, 3]
        #expect(Self.png(absurd) == EmbeddedColor())
    }

    // MARK: WebP

    @Test func webpFlagAndChunk() throws {
        func extended(flags: UInt8, chunks: [[UInt8]]) -> [UInt8] {
            let body =
                TestImageBuilder.riffChunk(
                    "VP8X", [flags, 0, 0, 0] + TestImageBuilder.littleEndian24(0) + TestImageBuilder.littleEndian24(0))
                + chunks.flatMap { $0 } + TestImageBuilder.riffChunk("VP8L", [0x2F, 0, 0, 0, 0])
            return Array("RIFF".utf8) + TestImageBuilder.littleEndian32(body.count + 4) + Array("WEBP".utf8) + body
        }
        let profile = (0..<777).map { UInt8(truncatingIfNeeded: $0) }
        let tagged = Self.webp(extended(flags: 0x20, chunks: [TestImageBuilder.riffChunk("ICCP", profile)]))
        #expect(tagged.description == .iccProfile(profile) && tagged.isComplete && tagged.warnings.isEmpty)
        let unannounced = Self.webp(extended(flags: 0, chunks: [TestImageBuilder.riffChunk("ICCP", profile)]))
        #expect(unannounced.description == .untagged && unannounced.warnings.count == 1)
        let missing = Self.webp(extended(flags: 0x20, chunks: []))
        #expect(missing.description == .untagged && missing.warnings.count == 1)
        let simple = Self.webp(try TestData.bytes("webp/astronaut-lossy.webp"))
        #expect(
            simple
                == {
                    var e = EmbeddedColor(); e.isComplete = true; return e
                }())
        // Cut anywhere: the whole profile or none.
        let file = extended(flags: 0x20, chunks: [TestImageBuilder.riffChunk("ICCP", profile)])
        for length in 0..<file.count {
            if case .iccProfile(let found) = Self.webp(Array(file.prefix(length))).description { #expect(found == profile) }
        }
    }
}
