import FICTestSupport
import Foundation
import ImageCodec

/// TIFFs made at test time from the bundled photos with Debian's tools (vips, libtiff's tiffcp and
/// tiffset, ImageMagick), and references decoded by those tools, never by the package's TIFF code.
enum TIFFMaker {
    static let vips = "/usr/bin/vips"
    static let convert = "/usr/bin/convert"  // /usr/local/bin/convert may be something else
    static let tiffcp = "/usr/bin/tiffcp"
    static let tiffset = "/usr/bin/tiffset"
    static let tiff2rgba = "/usr/bin/tiff2rgba"

    /// A bundled photo's path.
    static func photo(_ name: String) -> String { TestData.path("photos/" + name) }

    /// A fresh folder for one test's files; remove it with ``remove(_:)``.
    static func folder(_ name: String = #function) throws -> String {
        try ExternalTools.makeFolder("tiff-" + name)
    }

    static func remove(_ folder: String) {
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Runs `tool` and returns the bytes of `output`, which it wrote.
    @discardableResult
    static func make(_ output: String, _ tool: String, _ arguments: [String]) throws -> [UInt8] {
        try ExternalTools.run(tool, arguments)
        return try ExternalTools.bytes(atPath: output)
    }

    /// The package's decode of a PNG a tool wrote (the reference for a TIFF): PNG decoding is
    /// independent of the TIFF code.
    static func decodePNG(_ path: String, options: DecodingOptions = DecodingOptions()) throws -> DecodedImage {
        try ImageDecoder.decode(try ExternalTools.bytes(atPath: path), options: options)
    }

    /// `vips copy TIFF ref.png` decoded: libvips' own reading of the TIFF.
    static func vipsReference(_ tiff: String, in folder: String, suffix: String = "") throws -> DecodedImage {
        let png = folder + "/ref-\(UInt32.random(in: 0...UInt32.max)).png"
        try ExternalTools.run(vips, ["copy", tiff + suffix, png])
        return try decodePNG(png)
    }
}
