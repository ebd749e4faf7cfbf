import Foundation
import ImageCodec

/// The pictures a conformance file's decode may match (it matches if it matches any one): Pillow's
/// decode, for PngSuite's gamma files also Pillow's decode as a display of gamma 2.2 shows it
/// (both written by `scripts/conformance-refs`), and the suite's stored reference. The PNGs are
/// read with the package's own PNG decoder: they are plain 8-bit RGB or RGBA files.
struct ConformanceReferences {
    /// A reference picture and what it is, as failures name it.
    struct Picture {
        let name: String
        let image: DecodedImage
    }

    /// The pictures found, in the order above.
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
            pictures.append(Picture(name: "Pillow", image: try ImageDecoder.decode(contentsOf: base + ".png")))
            if FileManager.default.fileExists(atPath: base + ".gamma.png") {
                pictures.append(Picture(name: "Pillow at display gamma 2.2", image: try ImageDecoder.decode(contentsOf: base + ".gamma.png")))
            }
        } else if let text = try? String(contentsOfFile: base + ".unreadable.txt", encoding: .utf8) {
            refusal = text.trimmingCharacters(in: .whitespacesAndNewlines)
        } else {
            throw ConformanceFailure("no Pillow reference at \(base).png: run scripts/conformance-refs (scripts/test runs it)")
        }
        if let stored = entry.storedReference {
            let path = Conformance.root + "/" + entry.suite + "-refs/" + stored
            pictures.append(Picture(name: "stored \(stored)", image: try ImageDecoder.decode(contentsOf: path)))
        }
        self.pictures = pictures
        pillowRefusal = refusal
    }

    /// How `decoded` compares with each picture: its PSNR on grey 128 (35 dB or more matches), or
    /// why it cannot be compared (another size).
    func compare(_ decoded: DecodedImage) -> [(name: String, psnr: Double?, problem: String?)] {
        pictures.map { picture in
            let reference = picture.image
            guard reference.width == decoded.width, reference.height == decoded.height else {
                return (picture.name, nil, "decoded \(decoded.width)×\(decoded.height), \(picture.name) is \(reference.width)×\(reference.height)")
            }
            return (picture.name, PixelComparison.psnrOnGrey(decoded, reference), nil)
        }
    }
}

/// A conformance check that cannot go on, with the reason a failure shows.
struct ConformanceFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
