import FICTestSupport
import Foundation
import Testing

/// The command-line tools the colour tests make photos and references with (installed by
/// scripts/install-deps): LittleCMS's own (transicc, jpgicc), vips, exiftool, ImageMagick.
enum ColorTools {
    static let vips = "/usr/bin/vips"
    static let transicc = "/usr/bin/transicc"
    static let jpgicc = "/usr/bin/jpgicc"
    static let exiftool = "/usr/bin/exiftool"
    /// ImageMagick's, by full path: another `convert` may come first on PATH.
    static let convert = "/usr/bin/convert"

    /// Profiles on disk (icc-profiles-free, colord-data, libgs-common).
    static let adobeRGB = "/usr/share/color/icc/colord/AdobeRGB1998.icc"
    static let proPhoto = "/usr/share/color/icc/colord/ProPhotoRGB.icc"
    static let ghostscriptCMYK = "/usr/share/color/icc/ghostscript/default_cmyk.icc"

    /// Whether every tool and profile is there.
    static let available: Bool = [vips, transicc, jpgicc, exiftool, convert, adobeRGB, proPhoto, ghostscriptCMYK]
        .allSatisfy { FileManager.default.fileExists(atPath: $0) }

    /// Why the tests that need them are skipped.
    static let missing: Comment =
        "the colour tests need liblcms2-utils, libvips-tools, exiftool, imagemagick, colord-data and libgs-common (scripts/install-deps installs them)"

    /// Runs `arguments` (the tool first, by path), `stdin` and `stdout` from and to files when
    /// given; throws, with what the tool said, when it cannot start or exits with a failure.
    static func run(_ arguments: [String], stdin: String? = nil, stdout: String? = nil) throws {
        try ExternalTools.run(arguments[0], Array(arguments.dropFirst()), stdin: stdin, stdout: stdout)
    }

    /// The decoded samples of an image file as vips reads it (libjpeg, libspng/libpng, libwebp):
    /// interleaved, 8 or 16 bits native-endian, CMYK as plain (not inverted) ink.
    static func rawPixels(of path: String, in folder: String) throws -> [UInt8] {
        let raw = folder + "/" + UUID().uuidString + ".raw"
        defer { try? FileManager.default.removeItem(atPath: raw) }
        try run([vips, "rawsave", path, raw])
        return try ExternalTools.bytes(atPath: raw)
    }

    /// LittleCMS's conversion of an image file to 8-bit sRGB through its embedded profile
    /// (vips icc_transform, relative colorimetric), as interleaved R, G, B.
    static func sRGBReference(of path: String, in folder: String) throws -> [UInt8] {
        let converted = folder + "/" + UUID().uuidString + ".v"
        defer { try? FileManager.default.removeItem(atPath: converted) }
        try run([vips, "icc_transform", path, converted, "srgb", "--embedded", "--intent", "relative"])
        return try rawPixels(of: converted, in: folder)
    }

    /// The ICC profile exiftool finds in a file.
    static func embeddedProfile(of path: String, in folder: String) throws -> [UInt8] {
        let out = folder + "/" + UUID().uuidString + ".icc"
        defer { try? FileManager.default.removeItem(atPath: out) }
        try run([exiftool, "-b", "-ICC_Profile", path], stdout: out)
        return try ExternalTools.bytes(atPath: out)
    }

    /// LittleCMS's floating-point conversion (transicc, relative colorimetric) of 16-bit RGB
    /// samples through `profile` to sRGB, as 8-bit R, G, B (clipped and rounded).
    static func transicc16(_ samples: [UInt16], profile: String, in folder: String) throws -> [UInt8] {
        let input = folder + "/" + UUID().uuidString + ".txt", output = input + ".out"
        defer {
            try? FileManager.default.removeItem(atPath: input)
            try? FileManager.default.removeItem(atPath: output)
        }
        // transicc's RGB is 0…255 in floating point both ways (its 16-bit mode, -w, gave wrong
        // colours for non-sRGB profiles in 2.14), so 16-bit samples go in as v / 257.
        var text = ""
        for i in stride(from: 0, to: samples.count, by: 3) {
            text += (0..<3).map { String(format: "%.5f", Double(samples[i + $0]) / 257) }.joined(separator: " ") + "\n"
        }
        try Data(text.utf8).write(to: URL(fileURLWithPath: input))
        try run([transicc, "-i", profile, "-o", "*sRGB", "-t", "1", "-n"], stdin: input, stdout: output)
        let values = String(decoding: try ExternalTools.bytes(atPath: output), as: UTF8.self)
            .split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Double($0) }
        try #require(values.count == samples.count, "transicc gave \(values.count) values for \(samples.count)")
        return values.map { UInt8(min(max($0.rounded(), 0), 255)) }
    }
}
