import FICTestSupport
import Foundation
@testable import ImageCodec
import Testing

/// One way of storing a photo as TIFF, made by a tool at test time, and how its decode is checked.
struct TIFFVariant: Sendable, CustomStringConvertible {
    /// How the reference pixels are made (never by the package's TIFF code).
    enum Reference: Sendable {
        /// `vips copy t.tif ref.png`.
        case vips
        /// `convert t.tif -colorspace sRGB ref.png` (ImageMagick's own CMYK conversion).
        case convertSRGB
        /// `tiff2rgba t.tif` (libtiff's RGBA reader), then `vips copy` to PNG.
        case tiff2rgba
    }

    let description: String
    /// Tool runs making `{dir}/t.tif` from `{photo}` (placeholders replaced).
    let steps: [[String]]
    let reference: Reference
    /// Whether the pixels must be identical (lossless storage, same rounding), else ≥ 38 dB.
    let exact: Bool
    var hasAlpha = false
    var bits = 8
    var photo = "chelsea.jpg"

    static let all: [TIFFVariant] = [
        TIFFVariant(
            description: "strips, uncompressed", steps: [[TIFFMaker.vips, "tiffsave", "{photo}", "{dir}/t.tif", "--compression", "none"]],
            reference: .vips, exact: true),
        TIFFVariant(
            description: "strips, deflate", steps: [[TIFFMaker.vips, "tiffsave", "{photo}", "{dir}/t.tif", "--compression", "deflate"]],
            reference: .vips, exact: true),
        TIFFVariant(
            description: "strips, LZW with horizontal predictor",
            steps: [[TIFFMaker.vips, "tiffsave", "{photo}", "{dir}/t.tif", "--compression", "lzw", "--predictor", "horizontal"]],
            reference: .vips, exact: true),
        TIFFVariant(
            description: "tiles 64², deflate",
            steps: [
                [
                    TIFFMaker.vips, "tiffsave", "{photo}", "{dir}/t.tif", "--tile", "--tile-width", "64", "--tile-height", "64",
                    "--compression", "deflate"
                ]
            ], reference: .vips, exact: true),
        TIFFVariant(
            description: "tiles 64², uncompressed",
            steps: [
                [
                    TIFFMaker.vips, "tiffsave", "{photo}", "{dir}/t.tif", "--tile", "--tile-width", "64", "--tile-height", "64",
                    "--compression", "none"
                ]
            ], reference: .vips, exact: true),
        TIFFVariant(
            description: "tiles, JPEG (RGB)",
            steps: [
                [
                    TIFFMaker.vips, "tiffsave", "{photo}", "{dir}/t.tif", "--tile", "--tile-width", "64", "--tile-height", "64",
                    "--compression", "jpeg", "--Q", "90"
                ]
            ], reference: .vips, exact: false),
        TIFFVariant(
            description: "BigTIFF strips, LZW",
            steps: [[TIFFMaker.vips, "tiffsave", "{photo}", "{dir}/t.tif", "--bigtiff", "--compression", "lzw"]], reference: .vips,
            exact: true),
        TIFFVariant(
            description: "BigTIFF tiles, deflate",
            steps: [
                [
                    TIFFMaker.vips, "tiffsave", "{photo}", "{dir}/t.tif", "--bigtiff", "--tile", "--tile-width", "128", "--tile-height",
                    "128", "--compression", "deflate"
                ]
            ], reference: .vips, exact: true),
        TIFFVariant(
            description: "YCbCr JPEG strips (tiffcp)",
            steps: [
                [TIFFMaker.vips, "tiffsave", "{photo}", "{dir}/s.tif", "--compression", "none"],
                [TIFFMaker.tiffcp, "-c", "jpeg:90", "-r", "16", "{dir}/s.tif", "{dir}/t.tif"]
            ], reference: .vips, exact: false),
        TIFFVariant(
            description: "YCbCr JPEG tiles (tiffcp)",
            steps: [
                [TIFFMaker.vips, "tiffsave", "{photo}", "{dir}/s.tif", "--compression", "none"],
                [TIFFMaker.tiffcp, "-c", "jpeg:90", "-t", "-w", "64", "-l", "64", "{dir}/s.tif", "{dir}/t.tif"]
            ], reference: .vips, exact: false),
        TIFFVariant(
            description: "separate planes, strips (tiffcp)",
            steps: [
                [TIFFMaker.vips, "tiffsave", "{photo}", "{dir}/s.tif", "--compression", "none"],
                [TIFFMaker.tiffcp, "-p", "separate", "-c", "lzw", "{dir}/s.tif", "{dir}/t.tif"]
            ], reference: .vips, exact: true),
        TIFFVariant(
            description: "separate planes, tiles (tiffcp)",
            steps: [
                [TIFFMaker.vips, "tiffsave", "{photo}", "{dir}/s.tif", "--compression", "none"],
                [TIFFMaker.tiffcp, "-p", "separate", "-t", "-w", "64", "-l", "64", "-c", "zip", "{dir}/s.tif", "{dir}/t.tif"]
            ], reference: .tiff2rgba, exact: true),  // vips does not read separate planes in tiles
        TIFFVariant(
            description: "16-bit RGB, deflate (ImageMagick)",
            steps: [[TIFFMaker.convert, "{photo}", "-depth", "16", "-compress", "zip", "{dir}/t.tif"]], reference: .vips, exact: true,
            bits: 16),
        TIFFVariant(
            description: "16-bit grey (ImageMagick)",
            steps: [[TIFFMaker.convert, "{photo}", "-colorspace", "gray", "-depth", "16", "{dir}/t.tif"]], reference: .vips, exact: true,
            bits: 16),
        TIFFVariant(
            description: "16-bit RGBA, unassociated (ImageMagick)",
            steps: [
                [
                    TIFFMaker.convert, "{photo}", "(", "+clone", "-fx", "i/w", ")", "-alpha", "off", "-compose", "copy_opacity",
                    "-composite", "-depth", "16", "-define", "tiff:alpha=unassociated", "{dir}/t.tif"
                ]
            ], reference: .vips, exact: false, hasAlpha: true, bits: 16),
        TIFFVariant(
            description: "8-bit grey",
            steps: [
                [TIFFMaker.vips, "colourspace", "{photo}", "{dir}/g.v", "b-w"],
                [TIFFMaker.vips, "tiffsave", "{dir}/g.v", "{dir}/t.tif", "--compression", "deflate"]
            ], reference: .vips, exact: true),
        TIFFVariant(
            description: "8-bit MinIsWhite (vips --miniswhite)",
            steps: [
                [TIFFMaker.vips, "colourspace", "{photo}", "{dir}/g.v", "b-w"],
                [TIFFMaker.vips, "tiffsave", "{dir}/g.v", "{dir}/t.tif", "--miniswhite"]
            ], reference: .vips, exact: true),
        TIFFVariant(
            description: "1-bit MinIsWhite, CCITT group 4 (ImageMagick)",
            steps: [[TIFFMaker.convert, "{photo}", "-monochrome", "-compress", "Group4", "{dir}/t.tif"]], reference: .vips, exact: true,
            bits: 1),
        TIFFVariant(
            description: "8-bit palette (ImageMagick)",
            steps: [[TIFFMaker.convert, "{photo}", "-colors", "200", "-type", "Palette", "{dir}/t.tif"]], reference: .vips, exact: false),
        TIFFVariant(
            description: "4-bit palette (ImageMagick)",
            steps: [[TIFFMaker.convert, "{photo}", "-colors", "16", "-type", "Palette", "{dir}/t.tif"]], reference: .vips, exact: false,
            bits: 4),
        TIFFVariant(
            description: "RGBA, unassociated alpha (ImageMagick)",
            steps: [
                [
                    TIFFMaker.convert, "{photo}", "(", "+clone", "-fx", "i/w", ")", "-alpha", "off", "-compose", "copy_opacity",
                    "-composite", "-define", "tiff:alpha=unassociated", "{dir}/t.tif"
                ]
            ], reference: .vips, exact: false, hasAlpha: true),
        TIFFVariant(
            description: "RGBA, associated alpha (ImageMagick)",
            steps: [
                [
                    TIFFMaker.convert, "{photo}", "(", "+clone", "-fx", "i/w", ")", "-alpha", "off", "-compose", "copy_opacity",
                    "-composite", "-define", "tiff:alpha=associated", "{dir}/t.tif"
                ]
            ], reference: .vips, exact: false, hasAlpha: true),
        TIFFVariant(
            description: "grey and alpha (ImageMagick)",
            steps: [
                [
                    TIFFMaker.convert, "{photo}", "-colorspace", "gray", "(", "+clone", "-fx", "j/h", ")", "-alpha", "off", "-compose",
                    "copy_opacity", "-composite", "-define", "tiff:alpha=unassociated", "{dir}/t.tif"
                ]
            ], reference: .vips, exact: false, hasAlpha: true),
        TIFFVariant(
            description: "CMYK, LZW (ImageMagick)",
            steps: [[TIFFMaker.convert, "{photo}", "-colorspace", "CMYK", "-compress", "lzw", "{dir}/t.tif"]], reference: .convertSRGB,
            exact: false),
        TIFFVariant(
            description: "CIE L*a*b* (libtiff's RGBA reader)",
            steps: [
                [TIFFMaker.vips, "colourspace", "{photo}", "{dir}/l.v", "labq"],
                [TIFFMaker.vips, "tiffsave", "{dir}/l.v", "{dir}/t.tif"]
            ], reference: .tiff2rgba, exact: true)
    ]

    /// Makes the TIFF in `folder`; returns its path.
    func make(in folder: String) throws -> String {
        for step in steps {
            let arguments = step.dropFirst().map {
                $0.replacingOccurrences(of: "{photo}", with: TIFFMaker.photo(photo)).replacingOccurrences(of: "{dir}", with: folder)
            }
            try ExternalTools.run(step[0], Array(arguments))
        }
        return folder + "/t.tif"
    }

    /// The reference decode of `tiff`.
    func referenceImage(_ tiff: String, in folder: String) throws -> DecodedImage {
        switch reference {
        case .vips:
            return try TIFFMaker.vipsReference(tiff, in: folder)
        case .convertSRGB:
            try ExternalTools.run(TIFFMaker.convert, [tiff, "-colorspace", "sRGB", folder + "/ref.png"])
            return try TIFFMaker.decodePNG(folder + "/ref.png")
        case .tiff2rgba:
            try ExternalTools.run(TIFFMaker.tiff2rgba, [tiff, folder + "/rgba.tif"])
            return try TIFFMaker.vipsReference(folder + "/rgba.tif", in: folder)
        }
    }
}

/// Every layout the issue lists, decoded and compared with an independent decode.
@Suite struct TIFFVariantTests {
    @Test(arguments: TIFFVariant.all)
    func decodesLikeAnIndependentDecoder(_ variant: TIFFVariant) throws {
        let folder = try TIFFMaker.folder()
        defer { TIFFMaker.remove(folder) }
        let tiff = try variant.make(in: folder)
        let bytes = try ExternalTools.bytes(atPath: tiff)
        let info = try ImageDecoder.info(bytes)
        #expect(info.format == .tiff)
        #expect(info.width == 451 && info.height == 300)
        #expect(info.hasAlpha == variant.hasAlpha)
        #expect(info.bitsPerSample == variant.bits)
        #expect(info.frameCount == 1)
        let image = try ImageDecoder.decode(bytes, options: DecodingOptions(allowCorruptData: false))
        #expect(image.warnings.isEmpty, "\(image.warnings)")
        #expect(image.pixelFormat == (variant.hasAlpha ? .bgra32Premultiplied : .bgrx32))
        let reference = try variant.referenceImage(tiff, in: folder)
        try #require(image.width == reference.width && image.height == reference.height)
        let psnr = PixelComparison.psnr(image, reference)
        if variant.exact {
            #expect(
                PixelComparison.identical(image, reference),
                "PSNR \(psnr) dB, largest difference \(PixelComparison.maximumDifference(image, reference))")
        } else {
            #expect(psnr >= 38, "PSNR \(psnr) dB")
        }
        if variant.hasAlpha {
            // Alpha as stored (the reference is 8 bits too): within one level after SamplePipeline's rounding.
            #expect(
                PixelComparison.maximumDifference(image, reference) <= 2,
                "largest difference \(PixelComparison.maximumDifference(image, reference))")
        }
    }
}
