import FICTestSupport
import Foundation
import ImageCodec
import Testing

/// Photos in other colour spaces, made once per test run from the bundled photos with
/// LittleCMS's and vips's own tools: their pixels converted into that space and its profile
/// embedded, as cameras, Photoshop and phones write them.
enum ColorFixtures {
    /// One made photo.
    struct Photo: Sendable {
        /// What it is, for messages.
        let name: String
        /// Where it is.
        let path: String
        /// Its file format.
        let format: ImageFileFormat
        /// The layout of its decoded samples as vips's rawsave writes them.
        let layout: ColorConverter.Layout
    }

    /// The JPEG conformance files beside the shared test data (`../conformance/jpeg-suite`).
    static let jpegSuite = URL(fileURLWithPath: TestData.root + "/../conformance/jpeg-suite").standardizedFileURL.path

    /// The photos' names, for parameterised tests.
    static let names = [
        "Display P3 JPEG", "Adobe RGB PNG", "ProPhoto JPEG", "ProPhoto 16-bit PNG", "Display P3 WebP",
        "CMYK JPEG", "CMYK JPEG (SWOP)", "YCCK JPEG"
    ]

    /// The folder they are in (removed by no one: the system's temporary folder is cleaned).
    static let folder: String = {
        let path = NSTemporaryDirectory() + "fic-color-\(getpid())"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    /// The photos, made on first use (by one thread; the others wait).
    static let photos: Result<[String: Photo], any Error> = Result {
        let photos = TestData.path("photos")
        let made: [(String, String, [String], ImageFileFormat, ColorConverter.Layout)] = [
            ("Display P3 JPEG", "p3.jpg", [ColorTools.vips, "icc_transform", photos + "/hubble.jpg", "OUT[Q=95]", "p3"], .jpeg, .rgb8),
            (
                "Adobe RGB PNG", "adobe.png", [ColorTools.vips, "icc_transform", photos + "/coffee.jpg", "OUT", ColorTools.adobeRGB], .png,
                .rgb8
            ),
            (
                "ProPhoto JPEG", "prophoto.jpg",
                [ColorTools.jpgicc, "-t1", "-o" + ColorTools.proPhoto, "-e", "-q95", photos + "/astronaut.jpg", "OUT"], .jpeg, .rgb8
            ),
            (
                "ProPhoto 16-bit PNG", "prophoto16.png",
                [ColorTools.vips, "icc_transform", photos + "/chelsea.jpg", "OUT", ColorTools.proPhoto, "--depth", "16"], .png, .rgb16
            ),
            ("Display P3 WebP", "p3.webp", [ColorTools.vips, "icc_transform", photos + "/rocket.jpg", "OUT[Q=95]", "p3"], .webp, .rgb8),
            ("CMYK JPEG", "cmyk.jpg", [ColorTools.vips, "icc_transform", photos + "/retina.jpg", "OUT[Q=95]", "cmyk"], .jpeg, .cmyk8),
            (
                "CMYK JPEG (SWOP)", "cmyk-swop.jpg",
                [ColorTools.vips, "icc_transform", photos + "/coffee.jpg", "OUT[Q=95]", ColorTools.ghostscriptCMYK], .jpeg, .cmyk8
            ),
            (
                "YCCK JPEG", "ycck.jpg", [ColorTools.convert, photos + "/rocket.jpg", "-profile", ColorTools.ghostscriptCMYK, "OUT"], .jpeg,
                .cmyk8
            )
        ]
        var result: [String: Photo] = [:]
        for (name, file, command, format, layout) in made {
            let path = folder + "/" + file
            try ColorTools.run(command.map { $0.replacingOccurrences(of: "OUT", with: path) })
            result[name] = Photo(name: name, path: path, format: format, layout: layout)
        }
        return result
    }

    /// The photo called `name`.
    static func photo(_ name: String) throws -> Photo {
        try #require(try photos.get()[name])
    }

    /// vips's built-in Display P3 profile (not in Debian as a file), taken out of the P3 JPEG.
    static let displayP3: Result<String, any Error> = Result {
        let path = folder + "/DisplayP3.icc"
        try ExternalTools.write(try ColorTools.embeddedProfile(of: try photo("Display P3 JPEG").path, in: folder), to: path)
        return path
    }

    /// The colour information the package's parser finds in a file of `format`.
    static func embeddedColor(_ bytes: [UInt8], _ format: ImageFileFormat) -> EmbeddedColor {
        bytes.withUnsafeBytes { bytes in
            switch format {
            case .jpeg: return EmbeddedColor.jpeg(bytes)
            case .png: return EmbeddedColor.png(bytes)
            default: return EmbeddedColor.webp(bytes)
            }
        }
    }

    /// Interleaved R, G, B of `count` BGRA pixels.
    static func rgb(ofBGRA pixels: [UInt8]) -> [UInt8] {
        var rgb = [UInt8](repeating: 0, count: pixels.count / 4 * 3)
        // A while loop over pointers: ranges and array subscripts cost a call each in the debug build.
        pixels.withUnsafeBufferPointer { source in
            rgb.withUnsafeMutableBufferPointer { target in
                let p = source.baseAddress!, q = target.baseAddress!
                var i = 0
                while i < source.count / 4 {
                    q[3 * i] = p[4 * i + 2]
                    q[3 * i + 1] = p[4 * i + 1]
                    q[3 * i + 2] = p[4 * i]
                    i += 1
                }
            }
        }
        return rgb
    }

    /// `converter` run over `source` (`count` pixels), as BGRA.
    static func convert(_ converter: ColorConverter, _ source: [UInt8], count: Int) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: count * 4)
        source.withUnsafeBytes { source in
            output.withUnsafeMutableBytes { converter.convert(source.baseAddress!, to: $0.baseAddress!, count: count) }
        }
        return output
    }
}
