import Foundation
@testable import ImageCodec
import Testing

import FICTestSupport

/// The JPEG XL and GIF encoders and the reference decoders Debian ships, run at test time to make
/// files and to decode them independently: `cjxl`/`djxl` (libjxl-tools), `gifbuild`
/// (giflib-tools), ImageMagick's `/usr/bin/convert` and Pillow (python3-pil).
extension ExternalTools {
    /// The Python that has Debian's Pillow (another `python3` on PATH may not).
    static let python = "/usr/bin/python3"
    /// ImageMagick itself: `convert` elsewhere on PATH may be something else.
    static let convert = "/usr/bin/convert"

    /// `cjxl INPUT OUTPUT ARGUMENTS…`: the JPEG XL file's bytes.
    static func cjxl(_ input: String, _ arguments: [String] = [], in folder: String, name: String) throws -> [UInt8] {
        let output = folder + "/" + name
        try run(try tool("cjxl", package: "libjxl-tools"), [input, output] + arguments)
        return try bytes(atPath: output)
    }

    /// `djxl`'s own decode of `jxl` (upright, first frame), read back through the package's PNG
    /// decoder. Images stored in XYB are asked for in sRGB (`--color_space`): by default djxl 0.7
    /// writes those that carry an ICC profile in linear sRGB.
    static func djxl(_ jxl: [UInt8], in folder: String, colorSpace: String = "RGB_D65_SRG_Rel_SRG") throws -> DecodedImage {
        let input = folder + "/djxl-\(UUID().uuidString).jxl", output = input + ".png"
        try Data(jxl).write(to: URL(fileURLWithPath: input))
        try run(try tool("djxl", package: "libjxl-tools"), [input, output, "--color_space=" + colorSpace])
        return try ImageDecoder.decode(contentsOf: output)
    }

    /// `gifbuild` of the text description `text`: the GIF's bytes.
    static func gifbuild(_ text: String, in folder: String) throws -> [UInt8] {
        let input = folder + "/gifbuild-\(UUID().uuidString).txt", output = input + ".gif"
        try text.write(toFile: input, atomically: true, encoding: .utf8)
        try run(try tool("gifbuild", package: "giflib-tools"), [input], stdout: output)
        return try bytes(atPath: output)
    }

    /// `/usr/bin/convert ARGUMENTS… OUTPUT`: the output file's bytes.
    static func convert(_ arguments: [String], in folder: String, name: String) throws -> [UInt8] {
        let output = folder + "/" + name
        try run(try tool(convert, package: "imagemagick"), arguments + [output])
        return try bytes(atPath: output)
    }

    /// Pillow's first frame of the image in `bytes`, `Image.open(f).convert("RGBA")`, premultiplied
    /// as the package's pixels are: a bitmap to compare with a decode.
    static func pillow(_ bytes: [UInt8], in folder: String) throws -> DecodedImage {
        let input = folder + "/pillow-\(UUID().uuidString)", output = input + ".rgba"
        try Data(bytes).write(to: URL(fileURLWithPath: input))
        let script = """
            import sys
            from PIL import Image
            image = Image.open(sys.argv[1])
            image.seek(0)
            rgba = image.convert("RGBA")
            with open(sys.argv[2], "wb") as out:
                out.write(rgba.size[0].to_bytes(4, "little") + rgba.size[1].to_bytes(4, "little") + rgba.tobytes())
            """
        try run(try tool(python, package: "python3-pil"), ["-c", script, input, output])
        let raw = try Self.bytes(atPath: output)
        let width = raw[0..<4].reversed().reduce(0) { $0 << 8 | Int($1) }, height = raw[4..<8].reversed().reduce(0) { $0 << 8 | Int($1) }
        try #require(raw.count == 8 + width * height * 4)
        return AnimationFiles.image(rgba: Array(raw[8...]), width: width, height: height)
    }
}
