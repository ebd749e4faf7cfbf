import FICHarness
import FICTestSupport
import Foundation
@testable import ImageCodec
import Testing

/// Which image of a HEIF file with several is shown is libheif's choice, as vips (whose
/// heifload reads libheif's primary image) makes it: a file of two top-level images whose
/// primary item reference (`pitm`) is damaged shows what vips shows, or is refused as vips
/// refuses it, whatever libheif version the machine has.
@Suite struct HEIFPrimaryItemTests {
    typealias Files = HEIFTestFiles

    /// Two photos, one covering 120 × 90 (item 1, the primary) and one 60 × 80, in one HEIC
    /// written by heif-enc.
    static func twoImages() throws -> [UInt8] {
        let first = try Files.sourcePNG("coffee", 120, 90), second = try Files.sourcePNG("chelsea", 60, 80)
        let path = try Files.file("two-images.heic") { path in
            try Files.run("heif-enc", package: "libheif-examples", ["-q", "80", "-o", path, first, second])
        }
        return try ExternalTools.bytes(atPath: path)
    }

    @Test(arguments: ["names item 99", "names item 0", "is missing"])
    func aDamagedPrimaryReferenceIsLibheifsChoice(_ damage: String) throws {
        var bytes = try Self.twoImages()
        let pitm = try #require(bytes.firstRange(of: Array("pitm".utf8))?.lowerBound)
        switch damage {
        case "names item 99": bytes[pitm + 8] = 0; bytes[pitm + 9] = 99
        case "names item 0": bytes[pitm + 8] = 0; bytes[pitm + 9] = 0
        default: bytes.replaceSubrange(pitm..<pitm + 4, with: Array("free".utf8))
        }
        let path = Files.folder + "/pitm-\(damage.replacingOccurrences(of: " ", with: "-")).heic"
        try ExternalTools.write(bytes, to: path)
        let reference = try? Self.vips(path)
        let decoded = Result { try ImageDecoder.decode(bytes) }
        switch (reference, decoded) {
        case (let reference?, .success(let image)):
            #expect(
                image.width == reference.width && image.height == reference.height,
                "\(image.width)×\(image.height), vips \(reference.width)×\(reference.height)")
        case (nil, .failure(let error)):
            #expect((error as? ImageCacheError)?.code == .corruptData, "\(error)")
        case (nil, .success(let image)):
            Issue.record("vips refuses the file; the package shows a \(image.width)×\(image.height) image")
        case (_?, .failure(let error)):
            Issue.record("vips shows the file; the package refuses it: \(error)")
        }
        // The undamaged file shows its primary image, the first, as vips does.
        let whole = try ImageDecoder.decode(try Self.twoImages())
        let first = try ImageDecoder.decode(contentsOf: try Files.sourcePNG("coffee", 120, 90))
        let converted = try Self.vips(Files.folder + "/two-images.heic")
        #expect(
            whole.width == first.width && whole.height == first.height && converted.width == first.width && converted.height == first.height
        )
    }

    /// vips's decode of the HEIF at `path` (its primary image), read back from a PNG.
    static func vips(_ path: String) throws -> DecodedImage {
        let out = path + ".vips-\(UUID().uuidString).png"
        defer { unlink(out) }
        try ExternalTools.run(try ExternalTools.tool("/usr/bin/vips", package: "libvips-tools"), ["copy", path, out])
        return try ImageDecoder.decode(contentsOf: out)
    }
}
