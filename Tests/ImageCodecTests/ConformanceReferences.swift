import Foundation
import ImageCodec

/// The pictures a conformance file's decode may match (it matches if it matches any one, and is
/// credited to the one it comes closest to): Pillow's decode; where the file declares colours
/// Pillow ignores, that decode converted to sRGB as a colour-managed decoder shows it (a PNG's
/// gAMA, an embedded ICC profile; all written by `scripts/conformance-refs`); and the suite's
/// stored reference. Both renderings are accepted because whether the package converts a file's
/// colours is its own decision (PNG's gamma near sRGB's is left alone, for one); the summary says
/// which one each decode matched. The PNGs are read with the package's own PNG decoder: they are
/// plain 8-bit RGB or RGBA files without colour chunks.
struct ConformanceReferences {
    /// What a reference picture is.
    enum Kind: CaseIterable, Sendable {
        /// Pillow's decode, colours as stored.
        case pillow
        /// Pillow's decode with the PNG's gAMA converted to sRGB (`<file>.gamma.png`).
        case pillowGammaToSRGB
        /// Pillow's decode converted from its embedded ICC profile to sRGB (`<file>.icc.png`).
        case pillowICCToSRGB
        /// The suite's own reference (`<suite>-refs/`).
        case stored

        /// How failures and the summary name it.
        var label: String {
            switch self {
            case .pillow: "Pillow"
            case .pillowGammaToSRGB: "Pillow with gAMA to sRGB"
            case .pillowICCToSRGB: "Pillow with its ICC profile to sRGB"
            case .stored: "stored"
            }
        }
    }

    /// A reference picture and what it is.
    struct Picture {
        let kind: Kind
        /// The label, with the stored reference's file name.
        let name: String
        let image: DecodedImage
    }

    /// A decode compared with one picture: its PSNR on grey 128, or why it cannot be compared.
    struct Comparison {
        let kind: Kind
        let name: String
        let psnr: Double?
        let problem: String?
    }

    /// The pictures found, in the order of ``Kind``.
    let pictures: [Picture]
    /// Pillow's message when it could not read the file (then there is no Pillow picture).
    let pillowRefusal: String?

    /// The references of `entry`. Throws, saying what to run, when `scripts/conformance-refs` has
    /// not made Pillow's yet, and when a reference that exists cannot be read.
    init(for entry: Conformance.Entry) throws {
        let base = Conformance.references + "/" + entry.suite + "/" + entry.file
        var pictures: [Picture] = []
        var refusal: String?
        if FileManager.default.fileExists(atPath: base + ".png") {
            for (kind, path) in [
                (Kind.pillow, base + ".png"), (.pillowGammaToSRGB, base + ".gamma.png"), (.pillowICCToSRGB, base + ".icc.png")
            ]
            where FileManager.default.fileExists(atPath: path) {
                pictures.append(Picture(kind: kind, name: kind.label, image: try ImageDecoder.decode(contentsOf: path)))
            }
        } else if let text = try? String(contentsOfFile: base + ".unreadable.txt", encoding: .utf8) {
            refusal = text.trimmingCharacters(in: .whitespacesAndNewlines)
        } else {
            throw ConformanceFailure("no Pillow reference at \(base).png: run scripts/conformance-refs (scripts/test runs it)")
        }
        if let stored = entry.storedReference {
            let path = Conformance.root + "/" + entry.suite + "-refs/" + stored
            pictures.append(Picture(kind: .stored, name: "stored \(stored)", image: try ImageDecoder.decode(contentsOf: path)))
        }
        self.pictures = pictures
        pillowRefusal = refusal
    }

    /// How `decoded` compares with each picture: its PSNR on grey 128, or why it cannot be
    /// compared (another size).
    func compare(_ decoded: DecodedImage) -> [Comparison] {
        pictures.map { picture in
            let reference = picture.image
            guard reference.width == decoded.width, reference.height == decoded.height else {
                return Comparison(
                    kind: picture.kind, name: picture.name, psnr: nil,
                    problem: "decoded \(decoded.width)×\(decoded.height), \(picture.name) is \(reference.width)×\(reference.height)")
            }
            return Comparison(kind: picture.kind, name: picture.name, psnr: PixelComparison.psnrOnGrey(decoded, reference), problem: nil)
        }
    }
}

/// A conformance check that cannot go on, with the reason a failure shows.
struct ConformanceFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
