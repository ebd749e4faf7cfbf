import ArgumentParser
import FastImageCache
import Foundation
import ImageCodec

/// `fic decode FILE --out FILE.png`: a full-size, upright decode.
struct DecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode a JPEG, PNG, WebP, HEIC, AVIF, JPEG XL, GIF or TIFF (the first frame of an animation) at full size, upright, into a PNG file.",
        discussion: "A damaged file is decoded as browsers show it (what can be recovered; the rest of a JPEG grey, of a GIF transparent or black) and what was wrong is listed; --strict refuses it. Exit status: 0 when written, 1 when the file cannot be decoded, 2 on usage errors."
    )

    @Argument(help: ArgumentHelp("The image file.", valueName: "file"))
    var file: String

    @Option(name: .long, help: ArgumentHelp("The PNG file to write.", valueName: "file.png"))
    var out: String

    @Flag(name: .long, help: "Refuse a damaged file instead of decoding what can be recovered (as browsers do, the default).")
    var strict = false

    func run() throws {
        let decoded: DecodedImage
        do {
            ImageDecoder.logger = CacheOpener.quietLogger  // the damage is reported below
            decoded = try ImageDecoder.decode(contentsOf: Paths.absolute(file), options: DecodingOptions(allowCorruptData: !strict))
        } catch let error as ImageCacheError {
            throw CLIError("cannot decode \(file): \(error.message)")
        }
        do {
            try PNGEncoder.write(pixels: decoded.baseAddress, width: decoded.width, height: decoded.height,
                bytesPerRow: decoded.bytesPerRow, format: decoded.pixelFormat, to: Paths.absolute(out))
        } catch {
            throw CLIError("cannot write \(out): \(error)")
        }
        let info = decoded.source
        let turned = info.orientation == .up ? "" : ", EXIF orientation \(info.orientation.rawValue) applied"
        print("wrote \(out): \(decoded.width)×\(decoded.height) px from a \(info.format.rawValue) stored \(info.width)×\(info.height)\(turned)")
        if !decoded.warnings.isEmpty {
            print("the file is damaged; what could be decoded is shown:")
            for warning in decoded.warnings { print("  \(warning)") }
        }
    }
}
