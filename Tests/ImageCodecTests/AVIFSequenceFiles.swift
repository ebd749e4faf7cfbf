import FICTestSupport
import Foundation
@testable import ImageCodec
import Testing

/// AVIF image sequences made at test time: frames of the bundled photos made by ImageMagick,
/// encoded by `avifenc` (libavif-bin) with the durations given, and `avifdec --index N`'s decode
/// of each frame, the reference. Made once per test process in ``HEIFTestFiles/folder``.
enum AVIFSequenceFiles {
    /// The tools, as files: test traits are evaluated when tests are listed, in every run, so
    /// they look for files and start no process.
    static let tools = ["/usr/bin/avifenc", "/usr/bin/avifdec", ExternalTools.convert]
    /// Whether every tool is installed (scripts/install-deps installs them).
    static let available = tools.allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    /// Why the tests that need them are skipped.
    static let missing: Comment = "avifenc and avifdec (libavif-bin) and ImageMagick are needed: run scripts/install-deps"

    /// What a test sequence's frames are.
    enum Kind: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// JPEG frames: 8-bit 4:2:0, no alpha.
        case opaque = "8-bit 4:2:0"
        /// PNG frames whose alpha falls from 255 to 0 across each frame: 8-bit 4:4:4 with alpha.
        case alpha = "8-bit alpha"
        /// 16-bit PNG frames encoded at 10 bits, 4:4:4 (avifenc adds an opaque alpha track).
        case tenBit = "10-bit"
        /// JPEG frames encoded at 12 bits, 4:2:0, no alpha.
        case twelveBit = "12-bit 4:2:0"

        var testDescription: String { rawValue }
        /// A name for its files.
        var tag: String { ["opaque", "alpha", "10bit", "12bit"][Self.allCases.firstIndex(of: self)!] }
        /// avifenc's options.
        var options: [String] {
            switch self {
            case .opaque, .alpha: []
            case .tenBit: ["-d", "10"]
            case .twelveBit: ["-d", "12"]
            }
        }
    }

    /// The photos of a test sequence, one a frame, and the durations given to avifenc (ms).
    static let photos = ["chelsea", "coffee", "rocket", "astronaut"]
    static let durations = [100, 250, 40, 1000]
    /// Every frame's size.
    static let width = 64, height = 48

    /// `photo` (of the test data's photos/) resized to exactly `width × height` by ImageMagick,
    /// without its colour profile, as `kind`'s encoder input: a JPEG (quality 95), a PNG with alpha falling from opaque at the
    /// top to transparent at the bottom, or a 16-bit PNG.
    static func frame(_ photo: String, _ kind: Kind, width: Int = width, height: Int = height) throws -> String {
        let name = "\(photo)-\(width)x\(height)"
        // Without the photo's ICC profile (rocket.jpg's is Adobe RGB): a sequence has one, its
        // first frame's, so the frames' samples are compared as they are.
        let resized = [TestData.path("photos/\(photo).jpg"), "+profile", "*", "-resize", "\(width)x\(height)!"]
        switch kind {
        case .opaque, .twelveBit:
            return try HEIFTestFiles.file(name + ".jpg") {
                try ExternalTools.run(ExternalTools.convert, resized + ["-sampling-factor", "2x2", "-quality", "95", $0])
            }
        case .alpha:
            return try HEIFTestFiles.file(name + "-alpha.png") {
                try ExternalTools.run(
                    ExternalTools.convert,
                    resized + [
                        "(", "-size", "\(width)x\(height)", "gradient:white-black", ")",
                        "-alpha", "off", "-compose", "copy_opacity", "-composite", "PNG32:" + $0
                    ])
            }
        case .tenBit:
            return try HEIFTestFiles.file(name + "-16.png") {
                try ExternalTools.run(ExternalTools.convert, resized + ["-depth", "16", "PNG48:" + $0])
            }
        }
    }

    /// `photo` resized to exactly `width × height` by ImageMagick, as an 8-bit RGB PNG without
    /// a colour profile, or with `profile` (a path) assigned to its samples (for lossless
    /// sequences, whose samples come back exactly).
    static func png(_ photo: String, _ width: Int, _ height: Int, profile: String? = nil) throws -> String {
        let tag = profile.map { "-" + (($0 as NSString).lastPathComponent as NSString).deletingPathExtension } ?? ""
        return try HEIFTestFiles.file("\(photo)-\(width)x\(height)-rgb\(tag).png") {
            try ExternalTools.run(
                ExternalTools.convert,
                [TestData.path("photos/\(photo).jpg"), "+profile", "*", "-resize", "\(width)x\(height)!"]
                    + (profile.map { ["-profile", $0] } ?? []) + ["PNG24:" + $0])
        }
    }

    /// `avifenc` of `frames` (each an input file and its duration in units of `timescale`) into
    /// the sequence `name`, with `options` before the inputs, at speed 8.
    static func sequence(_ name: String, _ frames: [(source: String, duration: Int)], timescale: Int = 1000, options: [String] = []) throws
        -> String
    {
        try HEIFTestFiles.file(name) { path in
            var arguments = ["-s", "8", "--timescale", "\(timescale)"] + options
            for frame in frames { arguments += ["--duration", "\(frame.duration)", frame.source] }
            try HEIFTestFiles.run("avifenc", package: "libavif-bin", arguments + [path])
        }
    }

    /// The four-frame sequence of ``photos`` of `kind`, with ``durations`` in milliseconds, at
    /// quantisers 5 to 15 (avifenc's defaults code 12 bits far worse than 8 or 10).
    static func standard(_ kind: Kind) throws -> String {
        let frames = try zip(photos, durations).map { (try frame($0, kind), $1) }
        return try sequence("four-\(kind.tag).avif", frames, options: kind.options + ["--min", "5", "--max", "15"])
    }

    /// Every frame the package decodes of the file at `path`, and its info.
    static func decode(_ path: String, options: DecodingOptions = .init()) throws -> (info: AnimationInfo, frames: [AnimationFrame]) {
        try AnimationFiles.decode(try HEIFTestFiles.bytes(path), options: options)
    }
}
