import FICTestSupport
import Foundation
import ImageCodec
import Testing

/// Damage every viewer shows decodes with a warning — to the undamaged picture where the damage
/// leaves it whole, to what libjpeg recovers otherwise — unless strict decoding is asked for; a
/// file cut short (an incomplete download) stays an error. Every damaged file is made here from a
/// bundled photo.
@Suite struct DamagedJPEGTests {
    static let photo = "photos/astronaut.jpg"

    static func original() throws -> (bytes: [UInt8], image: DecodedImage) {
        let bytes = try TestData.bytes(photo)
        return (bytes, try ImageDecoder.decode(bytes))
    }

    /// Decodes `damaged` and checks it gives the original's pixels with a warning containing `expected`.
    static func expectRecovered(_ damaged: [UInt8], warning expected: String) throws {
        let (_, clean) = try original()
        #expect(clean.warnings.isEmpty)
        let image = try ImageDecoder.decode(damaged)
        #expect(PixelComparison.identical(image, clean), "the damaged file decodes to other pixels")
        #expect(image.warnings.contains { $0.contains(expected) }, "warnings: \(image.warnings)")
        #expect(try ImageDecoder.info(damaged) == (try ImageDecoder.info(try TestData.bytes(photo))))
    }

    @Test func extraneousBytesBeforeAMarker() throws {
        let (bytes, _) = try Self.original()
        let damaged = TestImageBuilder.inserting(
            [0x00, 0x13, 0x37, 0x42, 0x00], into: bytes, at: try TestImageBuilder.offset(of: 0xDB, in: bytes))
        try Self.expectRecovered(damaged, warning: "5 extraneous bytes before marker 0xdb")
    }

    @Test func junkBeforeTheStartOfImage() throws {
        let (bytes, _) = try Self.original()
        let junk = Array("HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\n\r\n".utf8) + [0xFF, 0xD8, 0x00]  // even a false start
        try Self.expectRecovered(junk + bytes, warning: "\(junk.count) bytes of junk before the JPEG's start-of-image marker")
        // Too far in, it is no longer taken for a JPEG.
        let far = [UInt8](repeating: 0x20, count: 2000) + bytes
        #expect(throws: ImageCacheError.self) { try ImageDecoder.decode(far) }
    }

    @Test func brokenEXIF() throws {
        let (bytes, _) = try Self.original()
        // An EXIF block whose IFD offset and entry count point far outside it.
        let tiff: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 0xF0, 0xFF, 0xFF, 0x7F, 0xFF, 0xFF, 0x12, 0x01, 0x03]
        let damaged = TestImageBuilder.inserting(TestImageBuilder.appSegment(1, Array("Exif".utf8) + [0, 0] + tiff), into: bytes, at: 2)
        let image = try ImageDecoder.decode(damaged)
        #expect(PixelComparison.identical(image, try Self.original().image))
        #expect(image.source.orientation == .up)
        // An APP1 segment whose length stops short: its remaining bytes are junk before the next marker.
        let short = TestImageBuilder.appSegment(1, Array("Exif".utf8) + [0, 0] + PNGFiles.exif(orientation: 1), declaredLength: 10)
        try Self.expectRecovered(TestImageBuilder.inserting(short, into: bytes, at: 2), warning: "extraneous bytes")
    }

    @Test func truncatedAdobeSegment() throws {
        let (bytes, _) = try Self.original()
        // APP14 "Adobe" is 12 bytes of data; this one declares 8, leaving the rest behind.
        let adobe = Array("Adobe".utf8) + [0x00, 0x64, 0x00, 0x00, 0x00, 0x00, 0x01]
        let truncated = TestImageBuilder.appSegment(14, adobe, declaredLength: 8)
        try Self.expectRecovered(
            TestImageBuilder.inserting(truncated, into: bytes, at: try TestImageBuilder.offset(of: 0xDB, in: bytes)),
            warning: "extraneous bytes")
    }

    @Test func prematureEndStaysAnError() throws {
        let (bytes, _) = try Self.original()
        let cut = Array(bytes.prefix(bytes.count * 6 / 10))
        let error = try #require(throws: ImageCacheError.self) { try ImageDecoder.decode(cut) }
        #expect(error.code == .truncated)
        // Also for a progressive JPEG decoded at 1/8 from its first scans: its end is still checked.
        let progressive = try TestData.bytes("jpeg/coffee-progressive.jpg")
        let target = DecodingOptions(targetSize: PixelSize(width: 60, height: 40))
        let whole = try ImageDecoder.decode(progressive, options: target)
        #expect(whole.width == 60 && whole.height == 40)  // DCT scale 1/8 (75×50), then resampled
        for fraction in [98, 90, 75] {
            let partial = Array(progressive.prefix(progressive.count * fraction / 100))
            let cutError = try #require(throws: ImageCacheError.self, "cut at \(fraction)%") {
                try ImageDecoder.decode(partial, options: target)
            }
            #expect(cutError.code == .truncated)
        }
    }

    @Test func lostEntropyDataIsShownWithAWarningUnlessStrict() throws {
        let (bytes, clean) = try Self.original()
        // Thousands of bytes left over before the end marker: the decoder lost its way in the data.
        let junk = [UInt8](repeating: 0x5A, count: 3000)
        let damaged = TestImageBuilder.inserting(junk, into: bytes, at: bytes.count - 2)
        let shown = try ImageDecoder.decode(damaged)
        #expect(shown.warnings.contains { $0.contains("extraneous") }, "\(shown.warnings)")
        #expect(shown.width == clean.width && shown.height == clean.height)
        let error = try #require(throws: ImageCacheError.self) {
            try ImageDecoder.decode(damaged, options: DecodingOptions(allowCorruptData: false))
        }
        #expect(error.code == .corruptData)
        #expect(error.message.contains("extraneous"))
        // A little padding there is not damage at all.
        try Self.expectRecovered(TestImageBuilder.inserting([0, 0, 0, 0], into: bytes, at: bytes.count - 2), warning: "extraneous")
    }

    @Test func aFileCutShortIsRefusedEvenWhenDamageIsAllowed() throws {
        for file in ["bad/truncated-half.jpg", "bad/truncated-real.jpg", "bad/header-only.jpg"] {
            let error = try #require(throws: ImageCacheError.self, "\(file)") { try ImageDecoder.decode(try TestData.bytes(file)) }
            #expect(error.code == .truncated, "\(file): \(error)")
        }
    }

    @Test func corruptEntropyDataStaysAnError() throws {
        let error = try #require(throws: ImageCacheError.self) { try ImageDecoder.decode(try TestData.bytes("bad/corrupt-entropy.jpg")) }
        #expect(error.code == .corruptData)
    }

    /// A frame header naming a quantisation table that cannot exist (there are four, 0–3): read
    /// as a header without touching memory past the tables (a fuzzed file crashed the header read
    /// once), refused when decoded.
    @Test func aFrameHeaderNamingATableThatCannotExistIsAnError() throws {
        let original = try TestData.bytes(Self.photo)
        let frame = try #require(
            (2..<(original.count - 1)).first { (i: Int) -> Bool in
                let marker: UInt8 = original[i + 1]
                return original[i] == 0xFF && (marker == 0xC0 || marker == 0xC2)
            })
        // FF Cn, length (2), precision, height (2), width (2), components, then per component:
        // id, sampling, table number.
        #expect(original[frame + 9] == 3)
        for number in 4...255 {
            var bytes = original
            bytes[frame + 12] = UInt8(number)
            _ = try? ImageDecoder.info(bytes)
            #expect(throws: ImageCacheError.self, "table \(number)") { try ImageDecoder.decode(bytes) }
        }
    }
}
