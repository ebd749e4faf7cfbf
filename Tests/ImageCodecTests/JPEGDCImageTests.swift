import FICTestSupport
import Foundation
import Testing

@testable import ImageCodec

/// Progressive JPEGs at 1/8 from their DC coefficients (``JPEGDCImage``), against libjpeg's own
/// `djpeg -scale 1/8` of the same files, which reads every scan.
@Suite struct JPEGDCImageTests {
    /// `djpeg -scale 1/8` of `path`: its size and RGB (or grey) bytes.
    static func djpegEighth(_ path: String, folder: String) throws -> (width: Int, height: Int, channels: Int, bytes: [UInt8]) {
        let output = folder + "/eighth.pnm"
        try ExternalTools.run("djpeg", ["-scale", "1/8", "-pnm", "-outfile", output, path])
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
        // P6/P5, width, height, 255, one whitespace byte, then the samples.
        var fields: [String] = [], current = "", index = 0
        while fields.count < 4 {
            let c = Character(UnicodeScalar(data[index]))
            index += 1
            if c.isWhitespace {
                if !current.isEmpty { fields.append(current) }
                current = ""
            } else {
                current.append(c)
            }
        }
        let channels = fields[0] == "P6" ? 3 : 1
        return (Int(fields[1])!, Int(fields[2])!, channels, Array(data[index...]))
    }

    /// Largest difference of any sample, and the PSNR, of `image` (BGRX) against djpeg's samples.
    static func compare(_ image: DecodedImage, _ reference: (width: Int, height: Int, channels: Int, bytes: [UInt8])) -> (
        largest: Int, psnr: Double
    ) {
        var largest = 0, squared = 0.0
        for y in 0..<image.height {
            for x in 0..<image.width {
                for c in 0..<3 {
                    let ours = Int(image.baseAddress.load(fromByteOffset: y * image.bytesPerRow + x * 4 + 2 - c, as: UInt8.self))
                    let theirs = Int(reference.bytes[(y * reference.width + x) * reference.channels + min(c, reference.channels - 1)])
                    largest = max(largest, abs(ours - theirs))
                    squared += Double((ours - theirs) * (ours - theirs))
                }
            }
        }
        return (largest, 10 * log10(255 * 255 / max(squared / Double(image.width * image.height * 3), 1e-9)))
    }

    /// A scan script: each component's DC in a scan of its own at half precision, the AC in two
    /// bands, then the DC refinements (cjpeg `-scans`).
    static let separateScans = """
        0: 0 0 0 1;
        1: 0 0 0 1;
        2: 0 0 0 1;
        0: 1 5 0 0;
        0: 6 63 0 0;
        1: 1 63 0 0;
        2: 1 63 0 0;
        0: 0 0 1 0;
        2: 0 0 1 0;
        1: 0 0 1 0;
        """

    @Test(arguments: [
        // cjpeg arguments, and whether the pixels are libjpeg's exactly (else the least PSNR).
        (["-sample", "1x1"], true),
        (["-grayscale"], true),
        (["-sample", "1x1", "-restart", "1"], true),
        (["-sample", "1x1", "-restart", "7B", "SCANS"], true),
        ([], false),
        (["-sample", "2x1"], false),
        (["-restart", "3B"], false)
    ])
    func progressiveAtAnEighthIsLibjpegsPicture(arguments: [String], exact: Bool) throws {
        let folder = try TestImageBuilder.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var extra = arguments
        if let scans = extra.firstIndex(of: "SCANS") {
            try Self.separateScans.write(toFile: folder + "/scans.txt", atomically: true, encoding: .utf8)
            extra[scans...scans] = ["-scans", folder + "/scans.txt"]
        }
        // An odd size, so that the last blocks and MCUs are partial.
        guard
            let path = try TestImageBuilder.largeJPEG(
                from: "photos/retina.jpg", width: 1601, height: 1203, progressive: true, extra: extra, in: folder)
        else { return }
        let bytes = try ImageBytes(contentsOf: path)
        let probe = AllocationProbe()
        let image = try AllocationProbe.$current.withValue(probe) {
            try ImageDecoder.decode(bytes, options: DecodingOptions(targetSize: PixelSize(width: 201, height: 151)))
        }
        let reference = try Self.djpegEighth(path, folder: folder)
        #expect(image.width == reference.width && image.height == reference.height && image.width == 201 && image.height == 151)
        let (largest, psnr) = Self.compare(image, reference)
        if exact {
            #expect(largest == 0, "largest difference \(largest), PSNR \(psnr) dB")
        } else {
            // Subsampled chroma is each block's mean, where libjpeg's 2×2 inverse DCT adds detail.
            #expect(psnr >= 38, "PSNR \(psnr) dB")
        }
        // libjpeg's coefficient array (128 bytes a block: 4 MB here, 3.7 MB at 4:2:0) was never mapped.
        #expect(probe.libraryPeakBytes < 1 << 20, "libjpeg mapped \(probe.libraryPeakBytes) bytes")
    }

    @Test func whatItDoesNotTakeLibjpegDecodesAsBefore() throws {
        let folder = try TestImageBuilder.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        guard
            let path = try TestImageBuilder.largeJPEG(
                from: "photos/retina.jpg", width: 801, height: 601, progressive: true, extra: ["-sample", "1x1"], in: folder)
        else { return }
        let file = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let target = DecodingOptions(targetSize: PixelSize(width: 100, height: 75))
        let whole = try ImageDecoder.decode(file, options: target)
        // A DC scan's data damaged (bytes of its entropy-coded data turned into a marker): libjpeg's
        // to judge, as before: shown with its warning, or refused when damage is not allowed.
        let firstScan = try TestImageBuilder.offset(of: 0xDA, in: file)
        var damaged = file
        for i in 0..<40 { damaged[firstScan + 40 + i] = 0xFF }
        damaged[firstScan + 80] = 0xC8
        let shown = try ImageDecoder.decode(damaged, options: target)
        #expect(shown.warnings.contains { $0.contains("premature end") }, "\(shown.warnings)")
        var strict = target
        strict.allowCorruptData = false
        let error = try #require(throws: ImageCacheError.self) { try ImageDecoder.decode(damaged, options: strict) }
        #expect(error.code == .corruptData, "\(error)")
        // Cut short in its AC scans: refused, as before.
        let cut = Array(file.prefix(file.count * 3 / 4))
        #expect(throws: ImageCacheError.self) { try ImageDecoder.decode(cut, options: target) }
        // The same file whole still decodes, the same way twice.
        #expect(try ImageDecoder.decode(file, options: target).withUnsafeBytes { Array($0) } == whole.withUnsafeBytes { Array($0) })
    }
}
