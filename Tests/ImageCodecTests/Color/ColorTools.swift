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
    static let missing: Comment = "the colour tests need liblcms2-utils, libvips-tools, exiftool, imagemagick, colord-data and libgs-common (scripts/install-deps installs them)"

    /// Runs `arguments` (the tool first, by path), `stdin` and `stdout` from and to files when
    /// given; throws when it cannot start or exits with a failure. Its stderr is discarded.
    /// posix_spawn, not Foundation's Process, which leaks under LeakSanitizer.
    static func run(_ arguments: [String], stdin: String? = nil, stdout: String? = nil) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdin ?? "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let started = posix_spawn(&pid, arguments[0], &actions, nil, argv, environ)
        try #require(started == 0, "\(arguments[0]) could not be started (\(started))")
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        try #require(status == 0, "\(arguments.joined(separator: " ")) failed (wait status \(status))")
    }

    /// The bytes of a file the tests made.
    static func read(_ path: String) throws -> [UInt8] {
        let descriptor = open(path, O_RDONLY)
        try #require(descriptor >= 0, "cannot open \(path)")
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            try #require(count >= 0, "cannot read \(path)")
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    /// Writes `bytes` to `path`.
    static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// The decoded samples of an image file as vips reads it (libjpeg, libspng/libpng, libwebp):
    /// interleaved, 8 or 16 bits native-endian, CMYK as plain (not inverted) ink.
    static func rawPixels(of path: String, in folder: String) throws -> [UInt8] {
        let raw = folder + "/" + UUID().uuidString + ".raw"
        defer { try? FileManager.default.removeItem(atPath: raw) }
        try run([vips, "rawsave", path, raw])
        return try read(raw)
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
        return try read(out)
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
        let values = String(decoding: try read(output), as: UTF8.self)
            .split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Double($0) }
        try #require(values.count == samples.count, "transicc gave \(values.count) values for \(samples.count)")
        return values.map { UInt8(min(max($0.rounded(), 0), 255)) }
    }
}
